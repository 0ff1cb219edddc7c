// The entry points are recorded like writes (spec/operations.md, "Audit trail"): `wo exec`'s
// `main` as `(main)` from surface `exec`, as the owner, also when it aborts; `$session` there is null.

import { describe, expect, it, vi } from "vitest";
import { dumpDb, removeApp, runWoCommand, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000 });

const app = (body: string) => `
type Note {
  text: Text
  by: Text?
  service rest "/api/notes" expose list, get
}

main {
${body}
}
`;

describe("wo exec and the audit trail", () => {
  it("records (main) with surface exec, ok or the abort; $session.user is null there", async () => {
    const dir = writeApp("exec-audit", { "app.wo": app('  insert Note { text: "hi", by: $session.user }') });
    try {
      expect((await runWoCommand(["exec", dir])).code).toBe(0);
      expect(dumpDb(dir).note).toEqual([{ id: 1, text: "hi", by: null }]);
      const aborting = app('  insert Note { text: "no" }\n  assert false otherwise abort "stop here"');
      const { writeFileSync } = await import("node:fs");
      writeFileSync(`${dir}/app.wo`, aborting);
      const refused = await runWoCommand(["exec", dir]);
      expect(refused.code).toBe(1);
      const trail = await runWoCommand(["audit", dir, "--json"]);
      expect(trail.code).toBe(0);
      const entries = JSON.parse(trail.stdout) as Record<string, unknown>[];
      expect(entries.map((e) => [e.operation, e.surface, e.principal, e.user, e.type, e.rowId, e.outcome])).toEqual([
        ["(main)", "exec", "owner", null, null, null, "ok"],
        ["(main)", "exec", "owner", null, null, null, "aborted"],
      ]);
    } finally {
      removeApp(dir);
    }
  });
});
