// The SQLite store through the Store interface, on real files in temp folders.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OperationError } from "../../model/errors.js";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { StoreConstraintError, type Row } from "../../model/store.js";
import { array, blog, catalog, field, opt, ref, scalar, struct, tempDir, type } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;

beforeEach(async () => {
  tmp = tempDir();
  ({ store } = await openSqliteStore({ file: tmp.file, catalog: blog() }));
});
afterEach(async () => {
  await store.close();
  tmp.cleanup();
});

const author = (n: number) => ({ name: `A${n}`, email: `a${n}@x.org` });
const post = (authorId: number, extra: Row = {}): Row => ({ title: "T", author: authorId, published: false, status: "Draft", meta: { words: 3 }, tags: [], order: 0, ...extra });
const countRows = (table: string) => store.read((tx) => tx.count(table));

describe("rows", () => {
  it("insert → get round-trips structs, arrays, bools, floats and nulls, id first, keys in field order", async () => {
    const a = await store.write((tx) => tx.insert("author", author(1)));
    expect(a).toEqual({ id: 1, name: "A1", email: "a1@x.org" });
    const p = await store.write((tx) => tx.insert("post", post(a.id as number, { published: true, meta: { words: 7, lang: "en" }, tags: ["x", "y"], score: 1.5 })));
    const expected = { id: 1, title: "T", author: 1, published: true, status: "Draft", subtitle: null, meta: { words: 7, lang: "en" }, tags: ["x", "y"], score: 1.5, order: 0, related: null };
    expect(p).toEqual(expected);
    const got = await store.read((tx) => tx.get("post", 1));
    expect(got).toEqual(expected);
    expect(Object.keys(got!)).toEqual(["id", "title", "author", "published", "status", "subtitle", "meta", "tags", "score", "order", "related"]);
    expect(await store.read((tx) => tx.get("post", 99))).toBeUndefined();
    expect(await store.read((tx) => tx.get("post", 1.5))).toBeUndefined();
  });

  it("stores typed columns: bool as 0/1, struct as JSON text (read with plain SQLite)", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    await store.write((tx) => tx.insert("post", post(1, { published: true })));
    await store.close();
    const db = new Database(tmp.file, { readonly: true });
    const raw = db.prepare(`SELECT typeof("published") p, "published" v, typeof("meta") m, typeof("author") a FROM post`).get();
    const cols = db.prepare(`SELECT name, type FROM pragma_table_info('post')`).all();
    db.close();
    expect(raw).toEqual({ p: "integer", v: 1, m: "text", a: "integer" });
    expect(cols).toContainEqual({ name: "score", type: "REAL" });
    expect(cols).toContainEqual({ name: "id", type: "INTEGER" });
    ({ store } = await openSqliteStore({ file: tmp.file, catalog: blog() }));
  });

  it("update is a shallow merge; undefined keeps, null clears; unknown id → undefined", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    await store.write((tx) => tx.insert("post", post(1, { subtitle: "s" })));
    const u = await store.write((tx) => tx.update("post", 1, { title: "New", subtitle: null, published: true, order: undefined, id: 77 }));
    expect(u).toMatchObject({ id: 1, title: "New", subtitle: null, published: true, order: 0, meta: { words: 3 } });
    expect(await store.write((tx) => tx.update("post", 42, { title: "x" }))).toBeUndefined();
    expect(await store.write((tx) => tx.update("post", 1, {}))).toMatchObject({ title: "New" });
  });

  it("delete reports whether a row went; ids are never reused", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    const a2 = await store.write((tx) => tx.insert("author", author(2)));
    expect(await store.write((tx) => tx.delete("author", a2.id as number))).toBe(true);
    expect(await store.write((tx) => tx.delete("author", a2.id as number))).toBe(false);
    const a3 = await store.write((tx) => tx.insert("author", author(3)));
    expect(a3.id).toBe(3);
  });

  it("a caller-supplied id is ignored: the store mints it", async () => {
    const a = await store.write((tx) => tx.insert("author", { id: 500, ...author(1) }));
    expect(a.id).toBe(1);
  });
});

describe("unique", () => {
  it("a duplicate @unique value → StoreConstraintError naming the field; nothing written", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    const err = await store.write((tx) => tx.insert("author", { name: "Other", email: "a1@x.org" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConstraintError);
    expect(err).toMatchObject({ constraint: "unique", table: "author", fields: ["email"] });
    expect(await countRows("author")).toBe(1);
    // Same on update.
    await store.write((tx) => tx.insert("author", author(2)));
    const err2 = await store.write((tx) => tx.update("author", 2, { email: "a1@x.org" })).catch((e: unknown) => e);
    expect(err2).toMatchObject({ fields: ["email"] });
    expect(await store.read((tx) => tx.get("author", 2))).toMatchObject({ email: "a2@x.org" });
  });

  it("a caught violation inside the callback does not poison the transaction", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    await store.write(async (tx) => {
      await tx.insert("author", author(1)).catch(() => undefined);
      await tx.insert("author", author(2));
    });
    expect(await countRows("author")).toBe(2);
  });
});

describe("transactions", () => {
  it("a throwing callback rolls back every write of the call", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    const err = await store
      .write(async (tx) => {
        await tx.insert("author", author(2));
        await tx.update("author", 1, { name: "changed" });
        await tx.insert("post", post(1));
        throw new Error("boom");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("boom");
    expect(await countRows("author")).toBe(1);
    expect(await countRows("post")).toBe(0);
    expect(await store.read((tx) => tx.get("author", 1))).toMatchObject({ name: "A1" });
  });

  it("aborted before commit → rollback and OperationError('cancelled')", async () => {
    const ac = new AbortController();
    const err = await store
      .write(
        async (tx) => {
          await tx.insert("author", author(1));
          ac.abort();
          return "done";
        },
        { signal: ac.signal },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationError);
    expect((err as OperationError).kind).toBe("cancelled");
    expect(await countRows("author")).toBe(0);
    // The store still works afterwards.
    await store.write((tx) => tx.insert("author", author(2)));
    expect(await countRows("author")).toBe(1);
  });

  it("a write cancelled while queued rejects at once and never runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = store.write(async (tx) => {
      await tx.insert("author", author(1));
      await gate;
    });
    const ac = new AbortController();
    let ran = false;
    const second = store.write(
      async (tx) => {
        ran = true;
        await tx.insert("author", author(2));
      },
      { signal: ac.signal },
    );
    ac.abort();
    await expect(second).rejects.toMatchObject({ kind: "cancelled" });
    release();
    await first;
    expect(ran).toBe(false);
    expect(await countRows("author")).toBe(1);
  });

  it("a long-lived signal shared by many writes does not collect listeners", async () => {
    const ac = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      for (let i = 0; i < 30; i++) await store.write((tx) => tx.insert("author", author(i)), { signal: ac.signal });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    expect(await countRows("author")).toBe(30);
  });

  it("200 concurrent write() calls are serialized: 200 rows, distinct ids", async () => {
    const rows = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.write(async (tx) => {
          // Two statements with an await between them: interleaving would break the count.
          const before = await tx.count("author");
          const row = await tx.insert("author", author(i));
          expect(await tx.count("author")).toBe(before + 1);
          return row;
        }),
      ),
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(200);
    expect(await countRows("author")).toBe(200);
  });

  it("group commit: writes queued together share commits, and each still sees the ones before it", async () => {
    const before = store.writeStats;
    const seen = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.write(async (tx) => {
          await tx.insert("author", author(i));
          return tx.count("author");
        }),
      ),
    );
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const after = store.writeStats;
    expect(after.writes - before.writes).toBe(50);
    expect(after.commits - before.commits).toBeLessThan(50);
  });

  it("in one group, a failing callback loses only its own writes; its neighbours commit", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    const results = await Promise.allSettled([
      store.write((tx) => tx.insert("author", author(2))),
      store.write(async (tx) => {
        await tx.insert("author", author(3));
        throw new Error("boom");
      }),
      store.write(async (tx) => {
        await tx.insert("author", author(4));
        return tx.insert("author", author(1)); // duplicate email: unique violation escapes
      }),
      store.write((tx) => tx.insert("author", author(5))),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConstraintError);
    const emails = (await store.read((tx) => tx.list("author"))).map((r) => r.email);
    expect(emails).toEqual(["a1@x.org", "a2@x.org", "a5@x.org"]);
  });

  it("reads during a pending write see only committed data and do not wait for it", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const didInsert = new Promise<void>((r) => (inserted = r));
    const pending = store.write(async (tx) => {
      await tx.insert("author", author(2));
      await tx.update("author", 1, { name: "uncommitted" });
      inserted();
      await gate;
    });
    await didInsert;
    expect(await countRows("author")).toBe(1);
    expect(await store.read((tx) => tx.get("author", 1))).toMatchObject({ name: "A1" });
    expect(await store.read((tx) => tx.get("author", 2))).toBeUndefined();
    release();
    await pending;
    expect(await countRows("author")).toBe(2);
    expect(await store.read((tx) => tx.get("author", 1))).toMatchObject({ name: "uncommitted" });
  });

  it("one read() sees one snapshot even when a write commits between its queries", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    const seen = await store.read(async (tx) => {
      const first = await tx.count("author");
      await store.write((w) => w.insert("author", author(2)));
      const again = await tx.count("author");
      return [first, again, (await tx.list("author")).length];
    });
    expect(seen).toEqual([1, 1, 1]);
    // The next read() sees the commit.
    expect(await countRows("author")).toBe(2);
  });

  it("a read() cannot write, and a finished tx cannot be used", async () => {
    await expect(store.read((tx) => tx.insert("author", author(1)))).rejects.toThrow(/cannot write/);
    let kept: unknown;
    await store.write(async (tx) => {
      kept = tx;
    });
    await expect((kept as { insert(t: string, r: Row): Promise<Row> }).insert("author", author(1))).rejects.toThrow(/ended/);
    expect(await countRows("author")).toBe(0);
  });
});

describe("list and count", () => {
  beforeEach(async () => {
    await store.write(async (tx) => {
      await tx.insert("author", author(1));
      for (let i = 0; i < 10; i++) {
        await tx.insert("post", post(1, { title: `P${i}`, published: i % 2 === 0, status: i < 3 ? "Live" : "Draft", order: i, subtitle: i === 4 ? "s" : null }));
      }
    });
  });

  it("filters on scalar columns (bools as true/false, null, comparisons), ascending id", async () => {
    const ids = (rows: Row[]) => rows.map((r) => r.id);
    expect(ids(await store.read((tx) => tx.list("post", { where: [{ column: "published", op: "==", value: true }] })))).toEqual([1, 3, 5, 7, 9]);
    expect(ids(await store.read((tx) => tx.list("post", { where: [{ column: "status", op: "==", value: "Live" }, { column: "published", op: "==", value: false }] })))).toEqual([2]);
    expect(ids(await store.read((tx) => tx.list("post", { where: [{ column: "order", op: ">=", value: 7 }] })))).toEqual([8, 9, 10]);
    expect(ids(await store.read((tx) => tx.list("post", { where: [{ column: "subtitle", op: "!=", value: null }] })))).toEqual([5]);
    expect(await store.read((tx) => tx.count("post", { where: [{ column: "subtitle", op: "==", value: null }] }))).toBe(9);
    expect(await store.read((tx) => tx.count("post", { where: [{ column: "status", op: "!=", value: "Live" }] }))).toBe(7);
    expect(ids(await store.read((tx) => tx.list("post", { where: [{ column: "id", op: "<", value: 3 }] })))).toEqual([1, 2]);
    expect(ids(await store.read((tx) => tx.list("post", { after: { id: 4 }, limit: 3 })))).toEqual([5, 6, 7]);
    expect(await store.read((tx) => tx.list("post", { limit: 0 }))).toEqual([]);
  });

  it("a filter on an unknown or JSON column is invalid input, not a crash", async () => {
    for (const column of ["nope", "meta", "tags", "x\"; DROP TABLE post; --"]) {
      const err = await store.read((tx) => tx.list("post", { where: [{ column, op: "==", value: 1 }] })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OperationError);
      expect((err as OperationError).kind).toBe("invalid_input");
    }
    expect(await countRows("post")).toBe(10);
  });

  it("keyset pagination over a table that grows during the walk: no duplicates, no gaps", async () => {
    const seen: number[] = [];
    let afterId: number | undefined;
    let added = 0;
    for (;;) {
      const page: Row[] = await store.read((tx) => tx.list("post", afterId === undefined ? { limit: 3 } : { after: { id: afterId }, limit: 3 }));
      if (page.length === 0) break;
      seen.push(...page.map((r) => r.id as number));
      afterId = page[page.length - 1]!.id as number;
      if (added < 5) {
        added++;
        await store.write((tx) => tx.insert("post", post(1, { title: `new${added}` })));
      }
    }
    const all = (await store.read((tx) => tx.list("post"))).map((r) => r.id);
    expect(seen).toEqual(all);
    expect(seen.length).toBe(15);
  });
});

describe("operators and sorting", () => {
  const ids = (rows: Row[]) => rows.map((r) => r.id);
  beforeEach(async () => {
    await store.write(async (tx) => {
      await tx.insert("author", author(1));
      const titles = ["Émile 100%", "émile_a", "plain", "100 percent", "ÉMILE"];
      const subtitles = [null, "b", null, "a", "b"];
      for (let i = 0; i < 5; i++) await tx.insert("post", post(1, { title: titles[i], order: i % 2, subtitle: subtitles[i] }));
    });
  });

  it("in, and contains ignoring case with % and _ taken literally", async () => {
    const list = (query: object) => store.read((tx) => tx.list("post", query));
    expect(ids(await list({ where: [{ column: "id", op: "in", value: [2, 4, 99] }] }))).toEqual([2, 4]);
    expect(ids(await list({ where: [{ column: "title", op: "contains", value: "émile" }] }))).toEqual([1, 2, 5]);
    expect(ids(await list({ where: [{ column: "title", op: "contains", value: "0%" }] }))).toEqual([1]);
    expect(ids(await list({ where: [{ column: "title", op: "contains", value: "_" }] }))).toEqual([2]);
    expect(await store.read((tx) => tx.count("post", { where: [{ column: "subtitle", op: "in", value: ["b"] }] }))).toBe(2);
  });

  it("sorts both ways with nulls first ascending and last descending, ties by id; keyset pages cover every row once", async () => {
    const walk = async (descending: boolean) => {
      const seen: Row[] = [];
      let after: { id: number; value?: unknown } | undefined;
      for (;;) {
        const page: Row[] = await store.read((tx) => tx.list("post", { sort: { column: "subtitle", descending }, limit: 2, ...(after ? { after } : {}) }));
        if (page.length === 0) return ids(seen);
        seen.push(...page);
        const last = page[page.length - 1]!;
        after = { id: last.id as number, value: last.subtitle };
      }
    };
    expect(await walk(false)).toEqual([1, 3, 4, 2, 5]);
    expect(await walk(true)).toEqual([5, 2, 4, 3, 1]);
    const byOrder = await store.read((tx) => tx.list("post", { sort: { column: "order", descending: true } }));
    expect(ids(byOrder)).toEqual([4, 2, 5, 3, 1]);
    const byIdDown = await store.read((tx) => tx.list("post", { sort: { column: "id", descending: true }, after: { id: 3 } }));
    expect(ids(byIdDown)).toEqual([2, 1]);
  });
});

describe("referrers", () => {
  it("finds ref columns and arrays of refs pointing at a row; a self-reference does not count", async () => {
    await store.write(async (tx) => {
      await tx.insert("author", author(1));
      await tx.insert("author", author(2));
      await tx.insert("post", post(1));
      await tx.insert("post", post(1, { related: [1] }));
      await tx.insert("post", post(2, { related: [3, 2] }));
    });
    expect(await store.read((tx) => tx.referrers("author", 1))).toEqual([{ table: "post", field: "author", count: 2 }]);
    expect(await store.read((tx) => tx.referrers("author", 2))).toEqual([{ table: "post", field: "author", count: 1 }]);
    expect(await store.read((tx) => tx.referrers("post", 1))).toEqual([{ table: "post", field: "related", count: 1 }]);
    // Post 3 lists itself among related: that alone does not keep it.
    expect(await store.read((tx) => tx.referrers("post", 3))).toEqual([]);
    expect(await store.read((tx) => tx.referrers("post", 2))).toEqual([{ table: "post", field: "related", count: 1 }]);
  });

  it("finds ids nested in structs, arrays of structs, embedded types and arrays of arrays, per place", async () => {
    const nested = catalog(
      type("Tag", [field("name", scalar("Text"))]),
      type("Credit", [field("person", ref("Tag"))]),
      type("Book", [
        opt("meta", struct(opt("editor", ref("Tag")), field("also", array(ref("Tag"))))),
        field("parts", array(struct(opt("tag", ref("Tag"))))),
        opt("credit", { kind: "embedded", type: "Credit" }),
        field("shelves", array(array(ref("Tag")))),
      ]),
    );
    const other = tempDir();
    const { store: s } = await openSqliteStore({ file: other.file, catalog: nested });
    try {
      await s.write(async (tx) => {
        for (let i = 0; i < 4; i++) await tx.insert("tag", { name: `t${i}` });
        await tx.insert("book", { meta: { editor: 1, also: [2] }, parts: [{ tag: 3 }, { tag: null }], credit: { person: 1 }, shelves: [[4], [2, 1]] });
        await tx.insert("book", { meta: null, parts: [], credit: null, shelves: [] });
      });
      expect(await s.read((tx) => tx.referrers("tag", 1))).toEqual([
        { table: "book", field: "meta.editor", count: 1 },
        { table: "book", field: "credit.person", count: 1 },
        { table: "book", field: "shelves", count: 1 },
      ]);
      expect(await s.read((tx) => tx.referrers("tag", 2))).toEqual([
        { table: "book", field: "meta.also", count: 1 },
        { table: "book", field: "shelves", count: 1 },
      ]);
      expect(await s.read((tx) => tx.referrers("tag", 3))).toEqual([{ table: "book", field: "parts.tag", count: 1 }]);
      expect(await s.read((tx) => tx.referrers("tag", 4))).toEqual([{ table: "book", field: "shelves", count: 1 }]);
      // An id that no place holds.
      expect(await s.read((tx) => tx.referrers("tag", 5))).toEqual([]);
    } finally {
      await s.close();
      other.cleanup();
    }
  });
});
