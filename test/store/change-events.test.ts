// Change events and the durable change log of the SQLite store (spec/live.md, "Change events
// and the change log"), on real files in temp folders.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import type { Row, RowChange } from "../../model/store.js";
import { rowFilter } from "../../runtime/store/row-match.js";
import { blog, catalog, field, ref, scalar, tempDir, type } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
let heard: RowChange[][];

const author = (n: number) => ({ name: `A${n}`, email: `a${n}@x.org` });
const post = (authorId: number, extra: Row = {}): Row => ({ title: "T", author: authorId, published: false, status: "Draft", meta: { words: 3 }, tags: [], order: 0, ...extra });
const brief = (changes: readonly RowChange[]) => changes.map((c) => [c.table, c.op, c.id, c.seq]);

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

describe("commit events", () => {
  it("one event per create, update and delete, after the commit, with the committed row; seq only for logged tables", async () => {
    let seenBeforeAnswer = false;
    const a = await store.write(async (tx) => {
      const row = await tx.insert("author", author(1));
      expect(heard).toEqual([]); // nothing is published before the COMMIT
      return row;
    });
    seenBeforeAnswer = heard.length === 1;
    expect(seenBeforeAnswer).toBe(true);
    await store.write(async (tx) => {
      const p = await tx.insert("post", post(a.id as number));
      await tx.update("post", p.id as number, { title: "U" });
      await tx.delete("post", p.id as number);
    });
    expect(brief(heard[0]!)).toEqual([["author", "create", 1, undefined]]);
    expect(heard[0]![0]!.row).toEqual({ id: 1, ...author(1) });
    expect(brief(heard[1]!)).toEqual([
      ["post", "create", 1, 1],
      ["post", "update", 1, 2],
      ["post", "delete", 1, 3],
    ]);
    expect(heard[1]![1]!.row).toMatchObject({ id: 1, title: "U" });
    expect(heard[1]![2]!.row).toBeNull();
  });

  it("no event for a write that rolls back, for a savepoint that rolls back, for an update of nothing or a delete of nothing", async () => {
    await expect(store.write(async (tx) => {
      await tx.insert("author", author(1));
      throw new Error("no");
    })).rejects.toThrow("no");
    await store.write(async (tx) => {
      await tx.insert("author", author(2));
      await tx.savepoint(async () => {
        await tx.insert("author", author(3));
        throw new Error("undo");
      }).catch(() => undefined);
      expect(await tx.update("author", 99, { name: "x" })).toBeUndefined();
      expect(await tx.delete("author", 99)).toBe(false);
    });
    expect(heard.map((c) => c.map((x) => [x.op, x.row?.name]))).toEqual([[["create", "A2"]]]);
  });

  it("writes grouped into one COMMIT publish once, in order; a failing neighbour's changes are not among them", async () => {
    const writes = [1, 2, 3].map((n) =>
      store.write(async (tx) => {
        await tx.insert("author", author(n));
        if (n === 2) throw new Error("fails");
      }),
    );
    await Promise.allSettled(writes);
    expect(heard.flat().map((c) => c.row?.name)).toEqual(["A1", "A3"]);
  });

  it("a listener that throws fails no write and does not stop the others; the returned function stops a listener", async () => {
    const other: number[] = [];
    store.onCommit(() => {
      throw new Error("listener bug");
    });
    const stop = store.onCommit((c) => other.push(c.length));
    await store.write((tx) => tx.insert("author", author(1)));
    stop();
    await store.write((tx) => tx.insert("author", author(2)));
    expect(other).toEqual([1]);
    expect(heard.length).toBe(2);
  });

  it("deleting an endpoint reports the links that went with it", async () => {
    await store.close();
    const cat = catalog(
      type("Tag", [field("label", scalar("Text"))]),
      type("Item", [field("name", scalar("Text"))]),
      type("Tagging", [field("item", ref("Item")), field("tag", ref("Tag"))], { link: { from: "Item", to: "Tag", fromField: "item", toField: "tag" } }),
    );
    const tmp2 = tempDir();
    ({ store } = await openSqliteStore({ file: tmp2.file, catalog: cat }));
    heard = [];
    store.onCommit((changes) => heard.push([...changes]));
    await store.write(async (tx) => {
      await tx.insert("tag", { label: "x" });
      await tx.insert("item", { name: "i" });
      await tx.insert("tagging", { item: 1, tag: 1 });
    });
    await store.write((tx) => tx.delete("tag", 1));
    expect(brief(heard[1]!)).toEqual([
      ["tagging", "delete", 1, undefined],
      ["tag", "delete", 1, undefined],
    ]);
    await store.close();
    tmp2.cleanup();
    await open();
  });
});

describe("the change log", () => {
  it("is written in the same transaction: a rolled-back write leaves no entry, and entries survive a restart", async () => {
    const a = await store.write((tx) => tx.insert("author", author(1)));
    await store.write((tx) => tx.insert("post", post(a.id as number)));
    await expect(store.write(async (tx) => {
      await tx.insert("post", post(a.id as number));
      throw new Error("no");
    })).rejects.toThrow();
    await store.write((tx) => tx.update("post", 1, { title: "again" }));
    await store.close();
    await open();
    const read = await store.changesAfter("post", 0, 10);
    expect(read.gone).toBe(false);
    if (read.gone) return;
    expect(brief(read.changes)).toEqual([
      ["post", "create", 1, 1],
      ["post", "update", 1, 2],
    ]);
    expect(read.changes[1]!.row).toMatchObject({ title: "again" });
    // Only the logged table's changes are in the file.
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

describe("rowFilter agrees with the store's list filters", () => {
  it("for ==, !=, null, in, ordering, contains and Timestamps, on the same rows", async () => {
    await store.close();
    const cat = catalog(type("Ev", [field("name", scalar("Text"), { isOptional: true }), field("n", scalar("Int"), { isOptional: true }), field("at", scalar("Timestamp"), { isOptional: true }), field("ok", scalar("Bool"), { isOptional: true })]));
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
    const queries: NonNullable<Parameters<typeof rowFilter>[0]>[] = [
      [{ column: "name", op: "==", value: "apfel" }],
      [{ column: "name", op: "!=", value: "apfel" }],
      [{ column: "name", op: "==", value: null }],
      [{ column: "n", op: "!=", value: null }],
      [{ column: "n", op: ">=", value: 1 }, { column: "n", op: "<", value: 10 }],
      [{ column: "n", op: "in", value: [1, 10, 7] }],
      [{ column: "name", op: "contains", value: "ÄPF" }],
      [{ column: "name", op: ">", value: "z" }],
      [{ column: "ok", op: "==", value: true }],
      [{ column: "at", op: "==", value: "2026-01-01T12:00:00+02:00" }],
      [{ column: "at", op: "<", value: "2026-01-01T11:00:00+01:00" }],
    ];
    for (const where of queries) {
      const listed = (await store.read((tx) => tx.list("ev", { where }))).map((r) => r.id);
      const filtered = stored.filter(rowFilter(where, new Set(["at"]))).map((r) => r.id);
      expect([JSON.stringify(where), filtered]).toEqual([JSON.stringify(where), listed]);
    }
    await store.close();
    tmp2.cleanup();
    await open();
  });
});
