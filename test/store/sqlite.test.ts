// What the SQLite store does beyond the Store contract (which sqlite.conformance.test.ts checks):
// its column types, the writer queue with group commit, and a database locked from outside.
// On real files in temp folders.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { StoreBusyError, StoreCancelledError, StoreConstraintError } from "../../model/store.js";
import { blog, tempDir, authorRow as author, postRow as post } from "./fixture.js";

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

const countRows = (table: string) => store.read((tx) => tx.count(table));

describe("rows", () => {
  it("stores typed columns: bool as 0/1, struct as JSON text (read with plain SQLite)", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    await store.write((tx) => tx.insert("post", post(1, { published: true })));
    await store.close();
    const db = new Database(tmp.file, { readonly: true });
    const raw = db
      .prepare(`SELECT typeof("published") p, "published" v, typeof("meta") m, typeof("author") a FROM post`)
      .get();
    const cols = db.prepare(`SELECT name, type FROM pragma_table_info('post')`).all();
    db.close();
    expect(raw).toEqual({ p: "integer", v: 1, m: "text", a: "integer" });
    expect(cols).toContainEqual({ name: "score", type: "REAL" });
    expect(cols).toContainEqual({ name: "id", type: "INTEGER" });
    ({ store } = await openSqliteStore({ file: tmp.file, catalog: blog() }));
  });
});

describe("transactions", () => {
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
    await expect(second).rejects.toBeInstanceOf(StoreCancelledError);
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
});

describe("a database locked from outside", () => {
  it("a write that cannot get the lock within the busy timeout → StoreBusyError; nothing written, the next write works", async () => {
    await store.write((tx) => tx.insert("author", author(1)));
    // Another program (here a second connection, as the sqlite3 shell would be) holds the write lock.
    const outsider = new Database(tmp.file);
    outsider.prepare("BEGIN IMMEDIATE").run();
    try {
      const err = await store.write((tx) => tx.insert("author", author(2))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreBusyError);
      expect((err as Error).message).toContain(tmp.file);
    } finally {
      outsider.prepare("ROLLBACK").run();
      outsider.close();
    }
    await store.write((tx) => tx.insert("author", author(3)));
    expect((await store.read((tx) => tx.list("author"))).map((r) => r.email)).toEqual(["a1@x.org", "a3@x.org"]);
  }, 20_000);
});
