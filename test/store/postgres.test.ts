// The PostgreSQL store against a real server this file starts (test/support/postgres.ts), one
// fresh database per test: what postgres.conformance.test.ts cannot see through the Store
// interface alone (column types, several stores on one database, migrations racing, the
// messages for a wrong password or a server that is down, losing the server and recovering).
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  MigrationRefusedError,
  StoreCancelledError,
  StoreConstraintError,
  StoreOpenError,
  StoreQueryError,
  StoreUnavailableError,
  type Row,
} from "../../model/store.js";
import { openPostgresStore, type PostgresStore } from "../../runtime/store/postgres/store.js";
import { postgresUnavailable, startPostgres, type PostgresServer } from "../support/postgres.js";
import { array, blog, catalog, field, opt, ref, scalar, struct, type } from "./fixture.js";

let server: PostgresServer;
let url: string;
let store: PostgresStore;

describe.skipIf(postgresUnavailable !== undefined)(
  `PostgreSQL store${postgresUnavailable ? ` (skipped: ${postgresUnavailable})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.stop();
    });
    beforeEach(async () => {
      url = await server.createDatabase();
      ({ store } = await openPostgresStore({ url, catalog: blog() }));
    });
    afterEach(async () => {
      await store.close();
    });

    const author = (n: number) => ({ name: `A${n}`, email: `a${n}@x.org` });
    const post = (authorId: number, extra: Row = {}): Row => ({
      title: "T",
      author: authorId,
      published: false,
      status: "Draft",
      meta: { words: 3 },
      tags: [],
      order: 0,
      ...extra,
    });
    const countRows = (table: string) => store.read((tx) => tx.count(table));
    const ids = (rows: Row[]) => rows.map((r) => r.id);

    describe("rows", () => {
      it("insert → get round-trips structs, arrays, bools, floats and nulls, id first, keys in field order", async () => {
        const a = await store.write((tx) => tx.insert("author", author(1)));
        expect(a).toEqual({ id: 1, name: "A1", email: "a1@x.org" });
        // Nested key order is kept as written (JSON, not JSONB).
        const p = await store.write((tx) =>
          tx.insert(
            "post",
            post(a.id as number, { published: true, meta: { words: 7, lang: "en" }, tags: ["x", "y"], score: 1.5 }),
          ),
        );
        const expected = {
          id: 1,
          title: "T",
          author: 1,
          published: true,
          status: "Draft",
          subtitle: null,
          meta: { words: 7, lang: "en" },
          tags: ["x", "y"],
          score: 1.5,
          order: 0,
          related: null,
        };
        expect(p).toEqual(expected);
        const got = await store.read((tx) => tx.get("post", 1));
        expect(got).toEqual(expected);
        expect(Object.keys(got!)).toEqual([
          "id",
          "title",
          "author",
          "published",
          "status",
          "subtitle",
          "meta",
          "tags",
          "score",
          "order",
          "related",
        ]);
        expect(Object.keys(got!.meta as object)).toEqual(["words", "lang"]);
        expect(await store.read((tx) => tx.get("post", 99))).toBeUndefined();
        expect(await store.read((tx) => tx.get("post", 1.5))).toBeUndefined();
      });

      it("stores typed columns: BIGINT ids and refs, BOOLEAN, JSON structs, byte-ordered text", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.write((tx) => tx.insert("post", post(1, { published: true })));
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        const cols = (
          await c.query(
            `SELECT column_name AS name, data_type AS type, collation_name AS coll FROM information_schema.columns WHERE table_name = 'post' ORDER BY ordinal_position`,
          )
        ).rows;
        await c.end();
        expect(cols).toContainEqual({ name: "id", type: "bigint", coll: null });
        expect(cols).toContainEqual({ name: "author", type: "bigint", coll: null });
        expect(cols).toContainEqual({ name: "published", type: "boolean", coll: null });
        expect(cols).toContainEqual({ name: "meta", type: "json", coll: null });
        expect(cols).toContainEqual({ name: "score", type: "double precision", coll: null });
        expect(cols).toContainEqual({ name: "title", type: "text", coll: "C" });
      });

      it("update is a shallow merge; undefined keeps, null clears; unknown id → undefined", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.write((tx) => tx.insert("post", post(1, { subtitle: "s" })));
        const u = await store.write((tx) =>
          tx.update("post", 1, { title: "New", subtitle: null, published: true, order: undefined, id: 77 }),
        );
        expect(u).toMatchObject({ id: 1, title: "New", subtitle: null, published: true, order: 0, meta: { words: 3 } });
        expect(await store.write((tx) => tx.update("post", 42, { title: "x" }))).toBeUndefined();
        expect(await store.write((tx) => tx.update("post", 1, {}))).toMatchObject({ title: "New" });
      });

      it("delete reports whether a row went; ids are never reused; a caller's id is ignored", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const a2 = await store.write((tx) => tx.insert("author", { id: 500, ...author(2) }));
        expect(a2.id).toBe(2);
        expect(await store.write((tx) => tx.delete("author", 2))).toBe(true);
        expect(await store.write((tx) => tx.delete("author", 2))).toBe(false);
        expect((await store.write((tx) => tx.insert("author", author(3)))).id).toBe(3);
      });

      it("Timestamps are stored in the one UTC text form", async () => {
        const { store: s } = await openPostgresStore({
          url: await server.createDatabase(),
          catalog: catalog(type("Ev", [field("at", scalar("Timestamp"))])),
        });
        try {
          const row = await s.write((tx) => tx.insert("ev", { at: "2026-01-01T09:00:00+01:00" }));
          expect(row.at).toBe("2026-01-01T08:00:00.000Z");
          expect(
            await s.read((tx) =>
              tx.count("ev", { where: [{ column: "at", op: "==", value: "2026-01-01T08:00:00Z" }] }),
            ),
          ).toBe(1);
        } finally {
          await s.close();
        }
      });
    });

    describe("unique", () => {
      it("a duplicate @unique value → StoreConstraintError naming the field; Email ignores case; nothing written", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const err = await store
          .write((tx) => tx.insert("author", { name: "Other", email: "A1@X.org" }))
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreConstraintError);
        expect(err).toMatchObject({ constraint: "unique", table: "author", fields: ["email"] });
        expect(await countRows("author")).toBe(1);
        await store.write((tx) => tx.insert("author", author(2)));
        const err2 = await store.write((tx) => tx.update("author", 2, { email: "a1@x.org" })).catch((e: unknown) => e);
        expect(err2).toMatchObject({ fields: ["email"] });
        expect(await store.read((tx) => tx.get("author", 2))).toMatchObject({ email: "a2@x.org" });
      });

      it("a caught violation inside the callback does not poison the transaction (insert and update)", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.write(async (tx) => {
          await tx.insert("author", author(1)).catch(() => undefined);
          const a2 = await tx.insert("author", author(2));
          await tx.update("author", a2.id as number, { email: "a1@x.org" }).catch(() => undefined);
          await tx.insert("author", author(3));
        });
        expect((await store.read((tx) => tx.list("author"))).map((a) => a.email)).toEqual([
          "a1@x.org",
          "a2@x.org",
          "a3@x.org",
        ]);
      });

      it("20 concurrent inserts of one value: exactly one row, the others StoreConstraintError", async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.write((tx) => tx.insert("author", { name: `N${i}`, email: "same@x.org" })),
          ),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StoreConstraintError);
        expect(await countRows("author")).toBe(1);
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

      it("a savepoint undoes only its own writes", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx
            .savepoint(async () => {
              await tx.insert("author", author(2));
              throw new Error("inner");
            })
            .catch(() => undefined);
          await tx.insert("author", author(3));
        });
        expect((await store.read((tx) => tx.list("author"))).map((a) => a.name)).toEqual(["A1", "A3"]);
      });

      it("aborted before commit → rollback and StoreCancelledError", async () => {
        const ac = new AbortController();
        const err = await store
          .write(
            async (tx) => {
              await tx.insert("author", author(1));
              ac.abort();
            },
            { signal: ac.signal },
          )
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreCancelledError);
        expect(await countRows("author")).toBe(0);
      });

      it("read-modify-write from 40 concurrent writes over two stores on one database loses no update", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.write((tx) => tx.insert("post", post(1)));
        const { store: other } = await openPostgresStore({ url, catalog: blog() });
        try {
          await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              (i % 2 ? store : other).write(async (tx) => {
                const p = await tx.get("post", 1);
                await tx.update("post", 1, { order: (p!.order as number) + 1 });
              }),
            ),
          );
        } finally {
          await other.close();
        }
        expect(await store.read((tx) => tx.get("post", 1))).toMatchObject({ order: 40 });
      });

      it("a read() cannot write, and a finished tx cannot be used", async () => {
        await expect(store.read((tx) => tx.insert("author", author(1)))).rejects.toThrow(/cannot write/);
        let kept: Parameters<Parameters<typeof store.read>[0]>[0] | undefined;
        await store.read(async (tx) => {
          kept = tx;
        });
        await expect(kept!.get("author", 1)).rejects.toThrow(/already ended/);
      });
    });

    describe("queries", () => {
      beforeEach(async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          for (let i = 0; i < 10; i++) {
            await tx.insert(
              "post",
              post(1, {
                title: `P${i}`,
                published: i % 2 === 0,
                status: i < 3 ? "Live" : "Draft",
                order: i,
                subtitle: i === 4 ? "s" : null,
              }),
            );
          }
        });
      });

      it("filters on scalar columns (bools, null, comparisons), ascending id", async () => {
        expect(
          ids(await store.read((tx) => tx.list("post", { where: [{ column: "published", op: "==", value: true }] }))),
        ).toEqual([1, 3, 5, 7, 9]);
        expect(
          ids(
            await store.read((tx) =>
              tx.list("post", {
                where: [
                  { column: "status", op: "==", value: "Live" },
                  { column: "published", op: "==", value: false },
                ],
              }),
            ),
          ),
        ).toEqual([2]);
        expect(
          ids(await store.read((tx) => tx.list("post", { where: [{ column: "order", op: ">=", value: 7 }] }))),
        ).toEqual([8, 9, 10]);
        expect(
          ids(await store.read((tx) => tx.list("post", { where: [{ column: "subtitle", op: "!=", value: null }] }))),
        ).toEqual([5]);
        expect(
          await store.read((tx) => tx.count("post", { where: [{ column: "subtitle", op: "==", value: null }] })),
        ).toBe(9);
        // != is null-safe, as SQLite's IS NOT: rows without a value count as different.
        expect(
          await store.read((tx) => tx.count("post", { where: [{ column: "subtitle", op: "!=", value: "s" }] })),
        ).toBe(9);
        expect(
          ids(await store.read((tx) => tx.list("post", { where: [{ column: "id", op: "<", value: 3 }] }))),
        ).toEqual([1, 2]);
        expect(ids(await store.read((tx) => tx.list("post", { after: { id: 4 }, limit: 3 })))).toEqual([5, 6, 7]);
        expect(await store.read((tx) => tx.list("post", { limit: 0 }))).toEqual([]);
      });

      it("a filter on an unknown or JSON column is invalid input, not a crash", async () => {
        for (const column of ["nope", "meta", "tags", 'x"; DROP TABLE post; --']) {
          const err = await store
            .read((tx) => tx.list("post", { where: [{ column, op: "==", value: 1 }] }))
            .catch((e: unknown) => e);
          expect(err).toBeInstanceOf(StoreQueryError);
        }
        expect(await countRows("post")).toBe(10);
      });
    });

    describe("operators and sorting", () => {
      beforeEach(async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          const titles = ["Émile 100%", "émile_a", "plain", "100 percent", "ÉMILE"];
          const subtitles = [null, "b", null, "a", "b"];
          for (let i = 0; i < 5; i++)
            await tx.insert("post", post(1, { title: titles[i], order: i % 2, subtitle: subtitles[i] }));
        });
      });

      it("in, and contains ignoring Unicode case with % and _ taken literally", async () => {
        const list = (query: object) => store.read((tx) => tx.list("post", query));
        expect(ids(await list({ where: [{ column: "id", op: "in", value: [2, 4, 99] }] }))).toEqual([2, 4]);
        expect(ids(await list({ where: [{ column: "title", op: "contains", value: "émile" }] }))).toEqual([1, 2, 5]);
        expect(ids(await list({ where: [{ column: "title", op: "contains", value: "0%" }] }))).toEqual([1]);
        expect(ids(await list({ where: [{ column: "title", op: "contains", value: "_" }] }))).toEqual([2]);
        expect(
          await store.read((tx) => tx.count("post", { where: [{ column: "subtitle", op: "in", value: ["b"] }] })),
        ).toBe(2);
      });

      it("sorts both ways with nulls first ascending and last descending, ties by id; keyset pages cover every row once", async () => {
        const walk = async (descending: boolean) => {
          const seen: Row[] = [];
          let after: { id: number; value?: unknown } | undefined;
          for (;;) {
            const page: Row[] = await store.read((tx) =>
              tx.list("post", { sort: { column: "subtitle", descending }, limit: 2, ...(after ? { after } : {}) }),
            );
            if (page.length === 0) return ids(seen);
            seen.push(...page);
            const last = page[page.length - 1]!;
            after = { id: last.id as number, value: last.subtitle };
          }
        };
        expect(await walk(false)).toEqual([1, 3, 4, 2, 5]);
        expect(await walk(true)).toEqual([5, 2, 4, 3, 1]);
        expect(ids(await store.read((tx) => tx.list("post", { sort: { column: "order", descending: true } })))).toEqual(
          [4, 2, 5, 3, 1],
        );
        expect(
          ids(
            await store.read((tx) => tx.list("post", { sort: { column: "id", descending: true }, after: { id: 3 } })),
          ),
        ).toEqual([2, 1]);
        // Text sorts by bytes, as on SQLite (a locale would put "É" next to "e").
        expect(
          (await store.read((tx) => tx.list("post", { sort: { column: "title", descending: false } }))).map(
            (p) => p.title,
          ),
        ).toEqual(["100 percent", "plain", "ÉMILE", "Émile 100%", "émile_a"]);
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
        expect(await store.read((tx) => tx.referrers("author", 1))).toEqual([
          { table: "post", field: "author", count: 2 },
        ]);
        expect(await store.read((tx) => tx.referrers("post", 1))).toEqual([
          { table: "post", field: "related", count: 1 },
        ]);
        expect(await store.read((tx) => tx.referrers("post", 3))).toEqual([]);
        expect(await store.read((tx) => tx.referrers("post", 2))).toEqual([
          { table: "post", field: "related", count: 1 },
        ]);
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
        const { store: s } = await openPostgresStore({ url: await server.createDatabase(), catalog: nested });
        try {
          await s.write(async (tx) => {
            for (let i = 0; i < 4; i++) await tx.insert("tag", { name: `t${i}` });
            await tx.insert("book", {
              meta: { editor: 1, also: [2] },
              parts: [{ tag: 3 }, { tag: null }],
              credit: { person: 1 },
              shelves: [[4], [2, 1]],
            });
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
          expect(await s.read((tx) => tx.referrers("tag", 3))).toEqual([
            { table: "book", field: "parts.tag", count: 1 },
          ]);
          expect(await s.read((tx) => tx.referrers("tag", 4))).toEqual([{ table: "book", field: "shelves", count: 1 }]);
          expect(await s.read((tx) => tx.referrers("tag", 5))).toEqual([]);
        } finally {
          await s.close();
        }
      });
    });

    describe("opening and migrating", () => {
      it("additive changes apply; a second open changes nothing; destructive ones are refused until allowed", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.close();
        const withAge = blog();
        withAge.types[0]!.fields.push(opt("age", scalar("Int")));
        let opened = await openPostgresStore({ url, catalog: withAge });
        expect(opened.migration.applied).toEqual(["new optional field 'Author.age'"]);
        await opened.store.write((tx) => tx.update("author", 1, { age: 40 }));
        await opened.store.close();
        opened = await openPostgresStore({ url, catalog: withAge });
        expect(opened.migration.applied).toEqual([]);
        await opened.store.close();
        const err = await openPostgresStore({ url, catalog: blog() }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(MigrationRefusedError);
        expect((err as Error).message).toMatch(/field 'Author.age' was removed: 1 row hold a value/);
        expect((err as Error).message).not.toContain("wo-test-secret");
        ({ store } = await openPostgresStore({ url, catalog: blog(), allowDestructiveMigration: true }));
        expect(await store.read((tx) => tx.get("author", 1))).toEqual({ id: 1, ...author(1) });
      });

      it("migrate() while serving (wo run --watch): writes after it see the new shape; a refused change changes nothing", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const withAge = blog();
        withAge.types[0]!.fields.push(opt("age", scalar("Int")));
        expect((await store.migrate(withAge, { allowDestructive: false })).applied).toEqual([
          "new optional field 'Author.age'",
        ]);
        expect(await store.write((tx) => tx.update("author", 1, { age: 40 }))).toEqual({
          id: 1,
          ...author(1),
          age: 40,
        });
        expect(
          await store.read((tx) => tx.list("author", { where: [{ column: "age", op: ">", value: 30 }] })),
        ).toHaveLength(1);
        await expect(store.migrate(blog(), { allowDestructive: false })).rejects.toBeInstanceOf(MigrationRefusedError);
        expect(await store.read((tx) => tx.get("author", 1))).toMatchObject({ age: 40 });
      });

      it("a new @unique over duplicates is blocked, and nothing changes", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.insert("post", post(1, { title: "same" }));
          await tx.insert("post", post(1, { title: "same" }));
        });
        await store.close();
        const uniqueTitle = blog();
        uniqueTitle.types[1]!.fields.find((f) => f.name === "title")!.isUnique = true;
        const err = await openPostgresStore({ url, catalog: uniqueTitle }).catch((e: unknown) => e);
        expect((err as Error).message).toMatch(/cannot add @unique on 'Post.title': 1 value occur more than once/);
        ({ store } = await openPostgresStore({ url, catalog: blog() }));
        expect(await countRows("post")).toBe(2);
      });

      it("instances opening one new database at once: one migrates, the others find it done", async () => {
        const fresh = await server.createDatabase();
        const opened = await Promise.all(
          Array.from({ length: 4 }, () => openPostgresStore({ url: fresh, catalog: blog() })),
        );
        const applied = opened.map((o) => o.migration.applied.length);
        expect(applied.filter((n) => n > 0)).toHaveLength(1);
        await opened[0]!.store.write((tx) => tx.insert("author", author(1)));
        expect(await opened[3]!.store.read((tx) => tx.get("author", 1))).toMatchObject(author(1));
        for (const o of opened) await o.store.close();
      });

      it("wrong password, unknown database and an unreachable server are clear StoreOpenErrors", async () => {
        const wrong = await openPostgresStore({
          url: server.url("postgres", { password: "nope" }),
          catalog: blog(),
        }).catch((e: unknown) => e);
        expect(wrong).toBeInstanceOf(StoreOpenError);
        expect((wrong as Error).message).toMatch(/refused the user name or password/);
        expect((wrong as Error).message).not.toContain("nope");
        const missing = await openPostgresStore({ url: server.url("no_such_db"), catalog: blog() }).catch(
          (e: unknown) => e,
        );
        expect((missing as Error).message).toMatch(/no_such_db.*does not exist/);
        const down = await openPostgresStore({ url: "postgres://wo:x@127.0.0.1:1/db", catalog: blog() }).catch(
          (e: unknown) => e,
        );
        expect(down).toBeInstanceOf(StoreOpenError);
        expect((down as Error).message).toMatch(
          /Cannot reach the PostgreSQL server at postgres:\/\/wo:\*\*\*@127\.0\.0\.1:1\/db: the server refuses connections/,
        );
        // The password may come separately (password_env).
        const u = new URL(url);
        u.password = "";
        const { store: s } = await openPostgresStore({
          url: u.toString(),
          password: "wo-test-secret",
          catalog: blog(),
        });
        await s.close();
      });
    });

    describe("losing the server", () => {
      it("calls fail with StoreUnavailableError while it is down, and work again once it is back", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await server.shutDown();
        try {
          await expect(store.read((tx) => tx.get("author", 1))).rejects.toBeInstanceOf(StoreUnavailableError);
          await expect(store.write((tx) => tx.insert("author", author(2)))).rejects.toBeInstanceOf(
            StoreUnavailableError,
          );
          expect(await store.problem()).toMatch(/refuses connections/);
        } finally {
          await server.restart();
        }
        expect(await store.problem()).toBeUndefined();
        expect(await store.read((tx) => tx.get("author", 1))).toMatchObject(author(1));
        await store.write((tx) => tx.insert("author", author(2)));
        expect(await countRows("author")).toBe(2);
      }, 60_000);
    });
  },
);
