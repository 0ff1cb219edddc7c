// wo.toml `[audit] retention` (spec/operations.md, "Audit trail"): a duration or a number of
// entries; anything else is WO4005 at the key.

import { describe, expect, it } from "vitest";
import { readConfig } from "../../compiler/check/config.js";
import { DiagnosticBag } from "../../compiler/diagnostics/diagnostic.js";
import { sinceTime } from "../../model/duration.js";

const read = (toml: string) => {
  const bag = new DiagnosticBag();
  const { config } = readConfig(toml, "wo.toml", "app", bag);
  return { config, diagnostics: bag.sorted().map((d) => `${d.code} ${d.span.line}:${d.span.col} ${d.message}`) };
};

describe("[audit] retention", () => {
  it("a duration keeps entries that young; a number keeps that many; absent is the default", () => {
    expect(read('[audit]\nretention = "30d"\n').config.auditRetention).toEqual({ maxAgeMs: 30 * 86_400_000 });
    expect(read('[audit]\nretention = "12h"\n').config.auditRetention).toEqual({ maxAgeMs: 12 * 3_600_000 });
    expect(read("[audit]\nretention = 5000\n").config.auditRetention).toEqual({ maxRows: 5000 });
    expect(read("").config.auditRetention).toBeUndefined();
    expect(read('[audit]\nretention = "2w"\n').diagnostics).toEqual([]);
  });

  it("anything else is WO4005 at the key, naming both forms", () => {
    for (const value of ['"30 days"', "0", "-5", '"1.5d"', "true"]) {
      const { config, diagnostics } = read(`[audit]\nretention = ${value}\n`);
      expect(config.auditRetention).toBeUndefined();
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatch(/^WO4005 2:1 .*audit\.retention.*a positive number of entries or a duration/);
    }
  });
});

describe("--since and ?since=", () => {
  const now = Date.parse("2026-05-02T12:00:00.000Z");
  it("takes an ISO-8601 time or a duration ago; anything else is null", () => {
    expect(sinceTime("1h", now)).toBe("2026-05-02T11:00:00.000Z");
    expect(sinceTime("2d", now)).toBe("2026-04-30T12:00:00.000Z");
    expect(sinceTime("2026-05-01T10:00:00+02:00", now)).toBe("2026-05-01T08:00:00.000Z");
    expect(sinceTime("2026-05-01", now)).toBe("2026-05-01T00:00:00.000Z");
    for (const bad of ["yesterday", "1 h", "5", "2026-13-45", ""]) expect(sinceTime(bad, now)).toBeNull();
  });
});
