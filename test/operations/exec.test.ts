// `wo exec`: the app's `main { … }` block, run once against its store in one transaction, with
// print(…) on stdout (spec/language.md, "main and wo exec"). Real processes, real SQLite file.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { dumpDb, runWoCommand, startWo, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Note {
  title: Text
  service rest "/api/notes" expose list, get, create
}

fn add(title: Text) -> Note {
  let n = insert Note { title: title }
  return n
}

main {
  let a = add("first")
  add("second")
  let total = 0
  for n in Note{ id > 0 } {
    total += 1
    print("note", n.id, n.title)
  }
  print("count:", len(Note{ id > 0 }), total, true, null, a.title)
  assert total < 3 otherwise abort "too many notes: " + total
}
`;

describe("wo exec", () => {
  it("prints from main, commits its writes, and rolls all of them back when it aborts", async () => {
    const dir = writeApp("exec", { "app.wo": app });
    const first = await runWoCommand(["exec", dir]);
    expect(first).toMatchObject({ code: 0, stdout: "note 1 first\nnote 2 second\ncount: 2 2 true null first\n" });
    expect(dumpDb(dir).note).toHaveLength(2);

    const second = await runWoCommand(["exec", dir]);
    expect(second.code).toBe(1);
    expect(second.stdout).toContain("count: 4 4 true null first\n");
    expect(second.stderr).toContain("wo exec: main aborted: too many notes: 4\n");
    expect(dumpDb(dir).note).toHaveLength(2);
  });

  it("is refused while wo run holds the data folder, and says so", async () => {
    const dir = writeApp("exec-locked", { "app.wo": app });
    const wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    try {
      const r = await runWoCommand(["exec", dir]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^wo exec: The data folder .* is in use by another wo process \(pid \d+\)\. Stop it first/,
      );
    } finally {
      await wo.stop();
    }
  });

  it("wo exec and wo run choose the store alike: a postgres:// database that is not there gets the same words, nothing created", async () => {
    const dir = writeApp("exec-pg", {
      "app.wo": app,
      "wo.toml": '[database]\nurl = "postgres://wo@127.0.0.1:1/notes"\n',
    });
    const refusal =
      "Cannot reach the PostgreSQL server at postgres://wo@127.0.0.1:1/notes: the server refuses connections (is it running, on this host and port?).";
    const exec = await runWoCommand(["exec", dir]);
    expect(exec).toMatchObject({ code: 1, stdout: "", stderr: `wo exec: ${refusal}\n` });
    const run = await runWoCommand(["run", dir, "--listen", "127.0.0.1:0", "--db", "postgres://wo@127.0.0.1:1/notes"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(refusal);
    expect(existsSync(join(dir, ".wo/data"))).toBe(false);
  });

  it("an app without a main that runs says why", async () => {
    const dir = writeApp("exec-none", {
      "app.wo": app.replace(/main \{[\s\S]*$/, "main {\n  as session someone {\n    print(1)\n  }\n}\n"),
    });
    const check = await runWoCommand(["check", dir]);
    expect(check.stdout + check.stderr).toContain(
      "warning WO2113: 'main' is not run: 'as session someone' is not supported in a method yet",
    );
    const r = await runWoCommand(["exec", dir]);
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toContain("wo exec: the app has no 'main' block that runs (wo check says why when there is one).");
  });
});
