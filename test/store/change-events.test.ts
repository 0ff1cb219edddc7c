// The SQLite change log's own rules (spec/live.md, "Change events and the change log"): what
// `_wo_changes` holds, retention and pruning, a store without a log; and the in-memory list
// filter of live streams against SQLite's. What every store must do with change events is in
// the Store conformance suite (conformance.ts).
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import type { ListQuery, RowChange } from "../../model/store.js";
import { catalogTables, queryCondition, rowMatcher } from "../../runtime/store/conditions.js";
import { blog, catalog, field, scalar, tempDir, type, authorRow as author, postRow as post } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
let heard: RowChange[][];

async function open(retention = 100): Promise<void> {
  ({ store } = await openSqliteStore({ file: tmp.file, catalog: blog(), changeLog: { tables: ["post"], retention } }));
  heard = [];
  store.onCommit((changes) => heard.push([...changes]));
}

beforeEach(async () => {
  tmp = tempDir();
  await open();
});
afterEach(async () => {
  await store.close();
  tmp.cleanup();
});

describe("the change log", () => {
  it("holds only the logged tables' changes, numbered from 1", async () => {
    const a = await store.write((tx) => tx.insert("author", author(1)));
    await store.write((tx) => tx.insert("post", post(a.id as number)));
    await store.write((tx) => tx.update("post", 1, { title: "again" }));
    expect(heard.flat().map((c) => c.seq)).toEqual([undefined, 1, 2]);
    const db = new Database(tmp.file, { readonly: true });
    expect(db.prepare(`SELECT DISTINCT "table" FROM _wo_changes`).all()).toEqual([{ table: "post" }]);
    db.close();
  });

  it("pages with `more`, and says `gone` past its retention or for a position it never handed out", async () => {
    await store.close();
    await open(5);
    const a = await store.write((tx) => tx.insert("author", author(1)));
    for (let i = 0; i < 12; i++) await store.write((tx) => tx.insert("post", post(a.id as number, { order: i })));
    const first = await store.changesAfter("post", 11, 0);
    expect(first).toEqual({ gone: false, changes: [], more: true });
    const tail = await store.changesAfter("post", 10, 5);
    expect(tail.gone === false && tail.changes.map((c) => c.seq)).toEqual([11, 12]);
    // Pruned in batches: at least the newest 5 are kept; the oldest are gone.
    expect(await store.changesAfter("post", 0, 5)).toEqual({ gone: true, newest: 12 });
    expect(await store.changesAfter("post", 13, 5)).toEqual({ gone: true, newest: 12 });
    expect(await store.changesAfter("post", 12, 5)).toEqual({ gone: false, changes: [], more: false });
  });

  it("a store opened without a change log writes none", async () => {
    await store.close();
    ({ store } = await openSqliteStore({ file: tmp.file, catalog: blog() }));
    await expect(store.changesAfter("post", 0, 1)).rejects.toThrow("no change log");
  });
});

describe("the in-memory row matcher agrees with the store's list filters", () => {
  it("for ==, !=, null, in, ordering, contains and Timestamps, on the same rows", async () => {
    await store.close();
    const cat = catalog(
      type("Ev", [
        field("name", scalar("Text"), { isOptional: true }),
        field("n", scalar("Int"), { isOptional: true }),
        field("at", scalar("Timestamp"), { isOptional: true }),
        field("ok", scalar("Bool"), { isOptional: true }),
      ]),
    );
    const tmp2 = tempDir();
    ({ store } = await openSqliteStore({ file: tmp2.file, catalog: cat }));
    const rows = [
      { name: "Äpfel", n: 1, at: "2026-01-01T10:00:00.000Z", ok: true },
      { name: "apfel", n: 5, at: "2026-01-02T00:00:00.000Z", ok: false },
      { name: null, n: null, at: null, ok: null },
      { name: "𝔸 high", n: -3, at: "2025-12-31T23:59:59.999Z", ok: true },
      { name: "\uffff low", n: 10, at: "2026-06-01T00:00:00.000Z", ok: false },
    ];
    await store.write(async (tx) => {
      for (const r of rows) await tx.insert("ev", r);
    });
    const stored = await store.read((tx) => tx.list("ev"));
    const queries: NonNullable<ListQuery["where"]>[] = [
      [{ column: "name", op: "==", value: "apfel" }],
      [{ column: "name", op: "!=", value: "apfel" }],
      [{ column: "name", op: "==", value: null }],
      [{ column: "n", op: "!=", value: null }],
      [
        { column: "n", op: ">=", value: 1 },
        { column: "n", op: "<", value: 10 },
      ],
      [{ column: "n", op: "in", value: [1, 10, 7] }],
      [{ column: "name", op: "contains", value: "ÄPF" }],
      [{ column: "name", op: ">", value: "z" }],
      [{ column: "ok", op: "==", value: true }],
      [{ column: "at", op: "==", value: "2026-01-01T12:00:00+02:00" }],
      [{ column: "at", op: "<", value: "2026-01-01T11:00:00+01:00" }],
    ];
    for (const where of queries) {
      const listed = (await store.read((tx) => tx.list("ev", { where }))).map((r) => r.id);
      const passes = rowMatcher(queryCondition("ev", { where }), "ev", catalogTables(cat))!;
      const filtered = stored.filter(passes).map((r) => r.id);
      expect([JSON.stringify(where), filtered]).toEqual([JSON.stringify(where), listed]);
    }
    await store.close();
    tmp2.cleanup();
    await open();
  });
});

describe("migrate() of an open store (wo run --watch)", () => {
  it("follows the new build: a type that starts exposing subscribe is logged from then on", async () => {
    await store.close();
    const plain = catalog(type("Note", [field("title", scalar("Text"))]));
    const tmp2 = tempDir();
    ({ store } = await openSqliteStore({ file: tmp2.file, catalog: plain }));
    const seqs: (number | undefined)[] = [];
    store.onCommit((changes) => seqs.push(...changes.map((c) => c.seq)));
    await store.write((tx) => tx.insert("note", { title: "before" }));
    const live = catalog(
      type("Note", [field("title", scalar("Text"))], { rest: [{ path: "/api/notes", ops: ["subscribe"] }] }),
    );
    await store.migrate(live, { allowDestructive: false });
    await store.write((tx) => tx.insert("note", { title: "after" }));
    expect(seqs).toEqual([undefined, 1]);
    const read = await store.changesAfter("note", 0, 10);
    expect(read.gone === false && read.changes.map((c) => c.row?.title)).toEqual(["after"]);
    await store.close();
    tmp2.cleanup();
    await open();
  });
});
