// codes.ts, spec/diagnostics.md and the tests agree: every code is documented with its
// severity, nothing undocumented is documented, and every checker error code (WO2xxx–WO4xxx)
// is exercised by some test.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codes } from "../../compiler/diagnostics/codes.js";

const root = join(import.meta.dirname, "..", "..");
const spec = readFileSync(join(root, "spec", "diagnostics.md"), "utf8");
const documented = new Map(
  [...spec.matchAll(/^### (WO\d{4}) — (error|warning)( \(retired\))?/gm)].map((m) => [
    m[1]!,
    { severity: m[2]!, retired: !!m[3] },
  ]),
);

/** Error codes no test can provoke on this machine, with the reason. */
const notExercisable: Record<string, string> = {
  WO4003: "unreadable files cannot be made as root (the test runs it when not root)",
};

function testSources(dir: string): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((p) => (statSync(p).isDirectory() ? testSources(p) : p.endsWith(".ts") ? readFileSync(p, "utf8") : ""))
    .join("\n");
}

describe("diagnostic codes", () => {
  it("every code in codes.ts is documented with its severity", () => {
    const missing = Object.entries(codes).filter(([code, def]) => documented.get(code)?.severity !== def.severity);
    expect(missing.map(([c]) => c)).toEqual([]);
  });

  it("spec/diagnostics.md documents no code that does not exist, and a retired code is not reused", () => {
    expect([...documented].filter(([c, d]) => !d.retired && !(c in codes)).map(([c]) => c)).toEqual([]);
    expect([...documented].filter(([c, d]) => d.retired && c in codes).map(([c]) => c)).toEqual([]);
  });

  it("every checker error code is exercised by a test", () => {
    const tests = testSources(join(root, "test"));
    const unexercised = Object.entries(codes)
      .filter(([code, def]) => /^WO[234]/.test(code) && def.severity === "error")
      .filter(([code]) => !documented.get(code)?.retired && !(code in notExercisable))
      .filter(([code]) => !tests.includes(`"${code}"`))
      .map(([code]) => code);
    expect(unexercised).toEqual([]);
  });
});
