// `wo migrate --plan` / `--apply` (cli/commands/migrate.ts) with real `wo` processes on real
// databases: the plan names each kind of change with its SQL and the rows it touches, changes
// nothing, and is what `wo run` then does; a declared rename (`@renamed_from`) keeps every
// value; a refusal is exit 1; a served data folder is refused with the lock's message. The
// same on a real PostgreSQL server (test/support/postgres.ts).
import Database from "better-sqlite3";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MigrationPlan } from "../../model/store.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { dumpDb, removeApp, runWoCommand, startWo, writeApp } from "../support/wo-process.js";

const v1 = `type Note {
  title: Text
  body: Text?
  status: Draft | Done | Dropped = Draft
  service rest "/api/notes" expose list, get, create
}
`;

let apps: string[] = [];
afterEach(() => {
  for (const a of apps) removeApp(a);
  apps = [];
});

function app(source: string): string {
  const dir = writeApp("notes", { "wo.toml": 'name = "notes"\n', "note.wo": source });
  apps.push(dir);
  return dir;
}

async function plan(dir: string, ...flags: string[]): Promise<{ code: number | string; plan: MigrationPlan }> {
  const r = await runWoCommand(["migrate", dir, "--plan", "--json", ...flags]);
  expect(r.stderr).toBe("");
  return { code: r.code, plan: JSON.parse(r.stdout) as MigrationPlan };
}

async function apply(dir: string, ...flags: string[]): Promise<string[]> {
  const r = await runWoCommand(["migrate", dir, "--apply", "--json", ...flags]);
  expect(r).toMatchObject({ code: 0, stderr: "" });
  return (JSON.parse(r.stdout) as { applied: string[] }).applied;
}

function insertNotes(dir: string, rows: { title: string; body: string | null; status: string }[]): void {
  const db = new Database(join(dir, ".wo/data/app.sqlite"));
  for (const r of rows)
    db.prepare(`INSERT INTO note (title, body, status) VALUES (?, ?, ?)`).run(r.title, r.body, r.status);
  db.close();
}

describe("wo migrate on SQLite", () => {
  it("plans a new database's tables without creating it, then --apply creates them", async () => {
    const dir = app(v1);
    const { code, plan: p } = await plan(dir);
    expect(code).toBe(0);
    expect(p.changes).toEqual([{ severity: "additive", text: "created table 'note' for type 'Note'" }]);
    expect(p.statements[0]!.sql).toMatch(/^CREATE TABLE "note"/);
    expect(p.refusal).toBeUndefined();
    expect(() => dumpDb(dir)).toThrow(); // nothing was created
    expect(await apply(dir)).toEqual(["created table 'note' for type 'Note'"]);
    expect(dumpDb(dir)).toEqual({ note: [] });
  });

  it("each kind of change: the plan's words, SQL and rows, nothing changed, and then exactly what --apply does", async () => {
    const dir = app(v1);
    await apply(dir);
    insertNotes(dir, [
      { title: "a", body: "kept", status: "Draft" },
      { title: "b", body: null, status: "Dropped" },
      { title: "c", body: "also kept", status: "Done" },
    ]);
    const before = dumpDb(dir);
    // Rename body (declared), add a field with a default, narrow the union, drop nothing yet.
    writeFileSync(
      join(dir, "note.wo"),
      v1
        .replace("  body: Text?", '  text: Text? @renamed_from("body")\n  rank: Int = 5')
        .replace("Draft | Done | Dropped = Draft", "Draft | Done = Draft"),
    );
    const { code, plan: p } = await plan(dir, "--allow-destructive-migration");
    expect(code).toBe(0);
    expect(p.changes).toEqual([
      { severity: "additive", text: "field 'Note.body' is renamed 'text' (@renamed_from), its 2 values kept" },
      { severity: "additive", text: `new field 'Note.rank'; existing rows get its default 5` },
      {
        severity: "destructive",
        text: "field 'Note.status' no longer allows 'Dropped', but 1 row use it (they would be set to \"Draft\")",
      },
    ]);
    expect(p.statements).toEqual([
      { sql: 'ALTER TABLE "note" RENAME COLUMN "body" TO "text"' },
      { sql: 'ALTER TABLE "note" ADD COLUMN "rank" INTEGER' },
      { sql: 'UPDATE "note" SET "rank" = ?', rows: 3 },
      { sql: 'UPDATE "note" SET "status" = ? WHERE "status" IN (SELECT value FROM json_each(?))', rows: 1 },
    ]);
    // Planning changed nothing.
    expect(dumpDb(dir)).toEqual(before);
    // Without leave for the destructive change, the plan says wo run would refuse: exit 1.
    const refused = await plan(dir);
    expect(refused.code).toBe(1);
    expect(refused.plan.refusal).toContain("--allow-destructive-migration");
    expect(dumpDb(dir)).toEqual(before);

    const applied = await apply(dir, "--allow-destructive-migration");
    expect(applied).toEqual(
      p.changes.map((c) =>
        c.severity === "destructive" ? `${c.text} (applied: --allow-destructive-migration)` : c.text,
      ),
    );
    // The rename kept every value, under the new name.
    expect(dumpDb(dir).note).toEqual([
      { id: 1, title: "a", text: "kept", status: "Draft", rank: 5 },
      { id: 2, title: "b", text: null, status: "Draft", rank: 5 },
      { id: 3, title: "c", text: "also kept", status: "Done", rank: 5 },
    ]);
    // And now there is nothing left to do.
    expect((await plan(dir)).plan).toMatchObject({ changes: [], statements: [] });
  });

  it("a dropped field and a blocked @unique: marked, refused (exit 1), nothing changed", async () => {
    const dir = app(v1);
    await apply(dir);
    insertNotes(dir, [
      { title: "same", body: "x", status: "Draft" },
      { title: "same", body: "y", status: "Draft" },
    ]);
    const before = dumpDb(dir);
    writeFileSync(
      join(dir, "note.wo"),
      v1.replace("  body: Text?\n", "").replace("title: Text", "title: Text @unique"),
    );
    const r = await runWoCommand(["migrate", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "! field 'Note.body' was removed: 2 rows hold a value for it that would be deleted (destructive",
    );
    expect(r.stdout).toContain(
      "× cannot add @unique on 'Note.title': 1 value occurs more than once in the stored rows (blocked",
    );
    expect(r.stdout).toContain('ALTER TABLE "note" DROP COLUMN "body";');
    expect(r.stdout).not.toContain("CREATE UNIQUE INDEX"); // a blocked change runs nothing
    expect(r.stdout).toContain("wo run would refuse this and change nothing");
    expect(dumpDb(dir)).toEqual(before);
  });

  it("a type renamed with @renamed_from keeps its rows; the data folder of a running wo run is refused", async () => {
    const dir = app(v1);
    await apply(dir);
    insertNotes(dir, [{ title: "moved", body: null, status: "Done" }]);
    writeFileSync(
      join(dir, "note.wo"),
      `@renamed_from("Note")\n${v1.replace("type Note", "type Memo").replace("/api/notes", "/api/memos")}`,
    );
    const { plan: p } = await plan(dir);
    expect(p.changes).toEqual([
      {
        severity: "additive",
        text: "type 'Note' is renamed 'Memo' (@renamed_from): table 'note' becomes 'memo', its 1 row kept",
      },
    ]);
    const wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    try {
      const rows = await fetch(`${wo.url}/api/memos`).then((r) => r.json() as Promise<{ items: unknown[] }>);
      expect(rows.items).toMatchObject([{ id: 1, title: "moved", status: "Done" }]);
      const busy = await runWoCommand(["migrate", dir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/wo migrate: The data folder .* is in use by another wo process/);
    } finally {
      await wo.stop();
    }
  });

  it("@renamed_from takes one plain name: anything else is an error at its place", async () => {
    const dir = app(v1.replace("  body: Text?", "  body: Text? @renamed_from(old body)"));
    const r = await runWoCommand(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/note\.wo:3:15: error WO2041: @renamed_from takes the old name of a field as one string/);
  });
});

describe("wo migrate on PostgreSQL", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("plans in PostgreSQL's SQL, changes nothing, and --apply keeps a renamed field's values", async () => {
    const url = await server.createDatabase();
    const dir = app(v1);
    await apply(dir, "--db", url);
    const wo = await startWo([dir, "--listen", "127.0.0.1:0", "--db", url]);
    try {
      const made = await fetch(`${wo.url}/api/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "pg", body: "kept on PostgreSQL" }),
      });
      expect(made.status).toBe(201);
    } finally {
      await wo.stop();
    }
    writeFileSync(join(dir, "note.wo"), v1.replace("  body: Text?", '  text: Text? @renamed_from("body")'));
    const { code, plan: p } = await plan(dir, "--db", url);
    expect(code).toBe(0);
    expect(p.where).not.toContain("wo-test-secret");
    expect(p.statements).toEqual([{ sql: 'ALTER TABLE "note" RENAME COLUMN "body" TO "text"' }]);
    expect((await plan(dir, "--db", url)).plan.changes).toHaveLength(1); // the plan was rolled back
    await apply(dir, "--db", url);
    const wo2 = await startWo([dir, "--listen", "127.0.0.1:0", "--db", url]);
    try {
      const rows = await fetch(`${wo2.url}/api/notes`).then((r) => r.json() as Promise<{ items: unknown[] }>);
      expect(rows.items).toMatchObject([{ title: "pg", text: "kept on PostgreSQL" }]);
    } finally {
      await wo2.stop();
    }
  });
});
