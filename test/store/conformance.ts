// The Store conformance suite: what every Store implementation must do, checked only through
// the Store interface (model/store.ts) so that SQLite and any other store run this same
// file unchanged (spec/storage.md, "The Store contract"). A store's test file calls
// storeConformance(name, harness) with a harness that makes empty databases of its kind.
//
// Nothing here knows how a store lays rows out: no SQL, no files. Store-specific facts (column
// types, locks, file damage) are tested next to each store.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../model/app.js";
import type { FieldCheck } from "../../model/field-check.js";
import {
  MigrationRefusedError,
  StoreCancelledError,
  StoreConstraintError,
  StoreQueryError,
  type AuditRecord,
  type ListQuery,
  type MigrationReport,
  type Row,
  type RowChange,
  type Store,
} from "../../model/store.js";
import { array, authorRow, catalog, field, opt, postRow as post, ref, scalar, struct, type, union } from "./fixture.js";

export interface StoreHarness {
  /** A new, empty database of this store's kind; every call a different one. */
  createDatabase(): Promise<ConformanceDatabase>;
}

export interface ConformanceDatabase {
  /**
   * Opens the store on this database for `app`, migrating the database to it. Called again
   * after the previous store was closed (durability, migrations), it opens the same data.
   */
  open(
    app: Catalog,
    options?: { allowDestructiveMigration?: boolean },
  ): Promise<{ store: Store; migration: MigrationReport }>;
  /** Removes the database; every store opened on it has been closed. */
  dispose(): Promise<void>;
}

const endpoint = (name: string, target: string) =>
  field(name, ref(target), { isImmutable: true, isRequiredOnCreate: true });
const literal = (value: string | number | boolean) => ({ default: { kind: "literal" as const, value } });

/**
 * The suite's app: uniques (one ignoring case, one optional), refs at the top level and nested
 * in structs, arrays and an embedded type, a link type, and every scalar kind a store keeps.
 */
export function conformanceApp(): Catalog {
  return catalog(
    type("Author", [
      field("name", scalar("Text")),
      field("email", scalar("Email"), { isUnique: true }),
      opt("handle", scalar("Slug"), { isUnique: true }),
      opt("joined", scalar("Timestamp")),
      field("balance", scalar("Money"), literal(0)),
      opt("rating", scalar("Float")),
    ]),
    type(
      "Post",
      [
        field("title", scalar("Text")),
        field("author", ref("Author")),
        field("published", scalar("Bool"), literal(false)),
        field("status", union("Draft", "Live"), literal("Draft")),
        opt("subtitle", scalar("Text")),
        field(
          "meta",
          struct(
            field("words", scalar("Int")),
            opt("lang", scalar("Text")),
            opt("editor", ref("Author")),
            opt("at", scalar("Timestamp")),
          ),
        ),
        field("tags", array(scalar("Text"))),
        opt("score", scalar("Float")),
        field("order", scalar("Int"), literal(0)),
        opt("related", array(ref("Post"))),
      ],
      { indexes: [{ name: "by_status", columns: ["status", "order"] }] },
    ),
    type("Tag", [field("label", scalar("Text"))]),
    type("Tagging", [endpoint("post", "Post"), endpoint("tag", "Tag"), opt("note", scalar("Text"))], {
      link: { from: "Post", to: "Tag", fromField: "post", toField: "tag" },
    }),
    type("Credit", [field("person", ref("Author"))]),
    type("Shelf", [
      field("parts", array(struct(opt("author", ref("Author"))))),
      opt("credit", { kind: "embedded", type: "Credit" }),
      field("rows", array(array(ref("Author")))),
      opt("pinned", ref("Tagging")),
    ]),
    type("Counter", [field("n", scalar("Int"))]),
    type("Bin", [
      opt("box", struct(opt("size", scalar("Int")))),
      opt("items", array(struct(opt("qty", scalar("Int"))))),
    ]),
  );
}

const author = (n: number, extra: Row = {}): Row => authorRow(n, { balance: 0, ...extra });
const ids = (rows: Row[]) => rows.map((r) => r.id);
const byPlace = (a: { table: string; field: string }, b: { table: string; field: string }) =>
  `${a.table}.${a.field}`.localeCompare(`${b.table}.${b.field}`);

export function storeConformance(name: string, harness: StoreHarness): void {
  describe(`Store conformance: ${name}`, () => {
    let db: ConformanceDatabase;
    let store: Store;
    /** The store currently open on `db` (tests that reopen replace it). */
    const reopen = async (app: Catalog = conformanceApp(), options?: { allowDestructiveMigration?: boolean }) => {
      await store.close();
      const opened = await db.open(app, options);
      store = opened.store;
      return opened.migration;
    };
    /** Opens `app` expecting a refusal: resolves with the error, the suite's app open again. */
    const refusedOpen = async (app: Catalog, options?: { allowDestructiveMigration?: boolean }) => {
      await store.close();
      const err = await db.open(app, options).then(
        async (opened) => {
          await opened.store.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      ({ store } = await db.open(conformanceApp()));
      return err;
    };
    const count = (table: string, query?: ListQuery) => store.read((tx) => tx.count(table, query));
    const list = (table: string, query?: ListQuery) => store.read((tx) => tx.list(table, query));
    const get = (table: string, id: number) => store.read((tx) => tx.get(table, id));

    beforeEach(async () => {
      db = await harness.createDatabase();
      ({ store } = await db.open(conformanceApp()));
    });
    afterEach(async () => {
      await store.close();
      await db.dispose();
    });

    describe("rows", () => {
      it("insert mints the id and returns the stored row: id first, fields in declaration order, absent optionals null", async () => {
        const a = await store.write((tx) => tx.insert("author", author(1, { id: 77 })));
        expect(a).toEqual({
          id: 1,
          name: "A1",
          email: "a1@x.org",
          handle: null,
          joined: null,
          balance: 0,
          rating: null,
        });
        const p = await store.write((tx) =>
          tx.insert("post", post(1, { published: true, meta: { words: 7, lang: "en" }, tags: ["x", "y"], score: 1.5 })),
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
        const got = await get("post", 1);
        expect(got).toEqual(expected);
        expect(Object.keys(got!)).toEqual(Object.keys(expected));
        expect(await get("post", 99)).toBeUndefined();
        expect(await get("post", 1.5)).toBeUndefined();
        expect(await get("post", -1)).toBeUndefined();
      });

      it("update is a shallow merge: undefined keeps, null clears, id and unknown keys are ignored; a missing row is undefined", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.insert("post", post(1, { subtitle: "s", meta: { words: 3, lang: "en" } }));
        });
        const u = await store.write((tx) =>
          tx.update("post", 1, {
            title: "New",
            subtitle: null,
            published: true,
            order: undefined,
            id: 77,
            nope: 1,
            meta: { words: 4 },
          }),
        );
        expect(u).toEqual({
          ...post(1),
          id: 1,
          title: "New",
          subtitle: null,
          published: true,
          meta: { words: 4 },
          score: null,
          related: null,
        });
        expect(await get("post", 1)).toEqual(u);
        expect(await store.write((tx) => tx.update("post", 42, { title: "x" }))).toBeUndefined();
        expect(await store.write((tx) => tx.update("post", 1, {}))).toEqual(u);
        expect(await count("post")).toBe(1);
      });

      it("delete says whether a row went; ids are never reused, not even the newest one's", async () => {
        await store.write(async (tx) => {
          for (let i = 1; i <= 3; i++) await tx.insert("tag", { label: `t${i}` });
        });
        expect(await store.write((tx) => tx.delete("tag", 3))).toBe(true);
        expect(await store.write((tx) => tx.delete("tag", 3))).toBe(false);
        expect(await store.write((tx) => tx.delete("tag", 2.5))).toBe(false);
        expect((await store.write((tx) => tx.insert("tag", { label: "t4" }))).id).toBe(4);
        expect(ids(await list("tag"))).toEqual([1, 2, 4]);
      });

      it("insertWithId keeps the given id; minted ids continue after the highest, also after a reopen; a taken id or value is StoreConstraintError", async () => {
        const a = await store.write((tx) => tx.insertWithId("author", 40, author(1)));
        expect(a).toMatchObject({ id: 40, name: "A1", email: "a1@x.org" });
        await store.write((tx) => tx.insertWithId("tag", 7, { label: "seven" }));
        await store.write((tx) => tx.insertWithId("tag", 3, { label: "three" }));
        expect((await store.write((tx) => tx.insert("tag", { label: "next" }))).id).toBe(8);
        await reopen();
        expect((await store.write((tx) => tx.insert("tag", { label: "after reopen" }))).id).toBe(9);
        expect(ids(await list("tag"))).toEqual([3, 7, 8, 9]);
        const takenId = await store.write((tx) => tx.insertWithId("tag", 7, { label: "again" })).catch((e) => e);
        expect(takenId).toBeInstanceOf(StoreConstraintError);
        expect(takenId).toMatchObject({ table: "tag", fields: ["id"] });
        const takenEmail = await store
          .write((tx) => tx.insertWithId("author", 41, author(2, { email: "A1@x.org" })))
          .catch((e) => e);
        expect(takenEmail).toMatchObject({ table: "author", fields: ["email"] });
        // Caught, the violation leaves the transaction usable: the rest commits.
        await store.write(async (tx) => {
          await expect(tx.insertWithId("tag", 3, { label: "dup" })).rejects.toBeInstanceOf(StoreConstraintError);
          await tx.insertWithId("tag", 20, { label: "twenty" });
        });
        expect(ids(await list("tag"))).toEqual([3, 7, 8, 9, 20]);
        expect((await store.write((tx) => tx.insert("tag", { label: "t" }))).id).toBe(21);
      });
    });

    describe("values round-trip", () => {
      it("nested structs and arrays, empty ones, and text of every kind come back as written", async () => {
        const texts = [
          "",
          'it\'s "quoted"; DROP TABLE post; --',
          "Ünïcødé 😀 中文",
          "line\nbreak\ttab",
          "\\ backslash %_",
          "x".repeat(10_000),
        ];
        await store.write((tx) => tx.insert("author", author(1)));
        for (const title of texts) {
          const row = post(1, { title, tags: [title, ""], meta: { words: 0, lang: title } });
          const stored = await store.write((tx) => tx.insert("post", row));
          expect(await get("post", stored.id as number)).toMatchObject({
            title,
            tags: [title, ""],
            meta: { words: 0, lang: title },
          });
        }
        const shelf = {
          parts: [{ author: 1 }, { author: null }, {}],
          credit: { person: 1 },
          rows: [[], [1, 1]],
          pinned: null,
        };
        const s = await store.write((tx) => tx.insert("shelf", shelf));
        expect(s).toEqual({ id: 1, ...shelf });
        expect(await get("shelf", 1)).toEqual({ id: 1, ...shelf });
        const empty = await store.write((tx) => tx.insert("shelf", { parts: [], rows: [] }));
        expect(empty).toEqual({ id: 2, parts: [], credit: null, rows: [], pinned: null });
      });

      it("Int, Money and Float keep their edge values exactly", async () => {
        const floats = [0.1 + 0.2, 1e308, -1e-308, 5e-324, -2.5, 0, 123456789.12345679, Number.MAX_SAFE_INTEGER];
        const money = [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -1, 0];
        for (const [i, rating] of floats.entries()) {
          const balance = money[i % money.length]!;
          const row = await store.write((tx) => tx.insert("author", author(i, { rating, balance })));
          expect(row).toMatchObject({ rating, balance });
          expect(await get("author", row.id as number)).toMatchObject({ rating, balance });
        }
        await store.write((tx) => tx.insert("counter", { n: Number.MIN_SAFE_INTEGER }));
        expect(await get("counter", 1)).toEqual({ id: 1, n: Number.MIN_SAFE_INTEGER });
        expect(
          ids(await list("author", { where: [{ column: "balance", op: "==", value: Number.MAX_SAFE_INTEGER }] })),
        ).toEqual([1, 5]);
        expect(ids(await list("author", { where: [{ column: "rating", op: ">", value: 1e307 }] }))).toEqual([2]);
        expect(
          ids(await list("author", { where: [{ column: "rating", op: "==", value: 0.30000000000000004 }] })),
        ).toEqual([1]);
      });

      it("Timestamps are kept in one form, UTC with milliseconds, at the top level and nested; filters compare instants", async () => {
        const a = await store.write((tx) => tx.insert("author", author(1, { joined: "2026-01-01T10:00:00+02:00" })));
        expect(a.joined).toBe("2026-01-01T08:00:00.000Z");
        await store.write((tx) => tx.insert("author", author(2, { joined: "2026-01-01T08:00:00.5Z" })));
        await store.write((tx) => tx.insert("author", author(3, { joined: "2025-12-31T23:59:59.999999Z" })));
        expect((await list("author")).map((r) => r.joined)).toEqual([
          "2026-01-01T08:00:00.000Z",
          "2026-01-01T08:00:00.500Z",
          "2025-12-31T23:59:59.999Z",
        ]);
        const p = await store.write((tx) =>
          tx.insert("post", post(1, { meta: { words: 1, at: "2026-06-01T00:00:00-05:00" } })),
        );
        expect(p.meta).toEqual({ words: 1, at: "2026-06-01T05:00:00.000Z" });
        const updated = await store.write((tx) => tx.update("author", 3, { joined: "2027-01-01T00:00:00+01:00" }));
        expect(updated?.joined).toBe("2026-12-31T23:00:00.000Z");
        expect(
          ids(await list("author", { where: [{ column: "joined", op: "==", value: "2026-01-01T09:00:00+01:00" }] })),
        ).toEqual([1]);
        expect(
          ids(await list("author", { where: [{ column: "joined", op: ">", value: "2026-01-01T08:00:00Z" }] })),
        ).toEqual([2, 3]);
        expect(ids(await list("author", { sort: { column: "joined", descending: false } }))).toEqual([1, 2, 3]);
      });
    });

    describe("transactions", () => {
      it("a write whose callback throws keeps nothing, in any table; the error is the callback's", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const err = await store
          .write(async (tx) => {
            await tx.insert("author", author(2));
            await tx.update("author", 1, { name: "changed" });
            await tx.insert("post", post(1));
            await tx.delete("author", 1);
            throw new Error("boom");
          })
          .catch((e: unknown) => e);
        expect((err as Error).message).toBe("boom");
        expect(await list("author")).toEqual([{ ...author(1), id: 1, handle: null, joined: null, rating: null }]);
        expect(await count("post")).toBe(0);
      });

      it("a write sees its own writes; the value it returns is what write() resolves to", async () => {
        const seen = await store.write(async (tx) => {
          const a = await tx.insert("author", author(1));
          await tx.update("author", a.id as number, { name: "B" });
          return [await tx.get("author", a.id as number), await tx.count("author"), (await tx.list("author")).length];
        });
        expect(seen).toEqual([expect.objectContaining({ name: "B" }), 1, 1]);
      });

      it("a savepoint that throws undoes only its own writes; the transaction goes on and commits", async () => {
        const result = await store.write(async (tx) => {
          await tx.insert("tag", { label: "kept 1" });
          const caught = await tx
            .savepoint(async () => {
              await tx.insert("tag", { label: "undone" });
              await tx.update("tag", 1, { label: "undone too" });
              throw new Error("inner");
            })
            .catch((e: unknown) => (e as Error).message);
          const value = await tx.savepoint(async () => {
            await tx.insert("tag", { label: "kept 2" });
            // Nested: the inner one goes, the outer one stays.
            await tx
              .savepoint(async () =>
                tx.insert("tag", { label: "undone nested" }).then(() => Promise.reject(new Error("nested"))),
              )
              .catch(() => undefined);
            return "ok";
          });
          return [caught, value, await tx.count("tag")];
        });
        expect(result).toEqual(["inner", "ok", 2]);
        expect((await list("tag")).map((t) => t.label)).toEqual(["kept 1", "kept 2"]);
      });

      it("a unique violation caught in a savepoint does not spoil the transaction", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          const err = await tx
            .savepoint(() => tx.insert("author", author(1, { name: "dup" })))
            .catch((e: unknown) => e);
          expect(err).toBeInstanceOf(StoreConstraintError);
          await tx.insert("author", author(2));
        });
        expect((await list("author")).map((r) => r.email)).toEqual(["a1@x.org", "a2@x.org"]);
      });

      it("a write aborted before its commit rejects with StoreCancelledError and keeps nothing; the store goes on", async () => {
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
        expect(err).toBeInstanceOf(StoreCancelledError);
        expect(await count("author")).toBe(0);
        const already = await store
          .write((tx) => tx.insert("author", author(2)), { signal: ac.signal })
          .catch((e: unknown) => e);
        expect(already).toBeInstanceOf(StoreCancelledError);
        await store.write((tx) => tx.insert("author", author(3)));
        expect((await list("author")).map((r) => r.email)).toEqual(["a3@x.org"]);
      });

      it("read() cannot write, and a transaction that has ended cannot be used", async () => {
        await expect(store.read((tx) => tx.insert("tag", { label: "x" }))).rejects.toThrow();
        let kept: Parameters<Parameters<Store["write"]>[0]>[0] | undefined;
        await store.write(async (tx) => {
          kept = tx;
        });
        await expect(kept!.insert("tag", { label: "late" })).rejects.toThrow();
        expect(await count("tag")).toBe(0);
      });
    });

    describe("uniques", () => {
      it("a duplicate value → StoreConstraintError with the table and the field; nothing of the write is kept", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const err = await store
          .write(async (tx) => {
            await tx.insert("tag", { label: "not kept" });
            await tx.insert("author", author(2, { email: "a1@x.org" }));
          })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreConstraintError);
        expect(err).toMatchObject({ constraint: "unique", table: "author", fields: ["email"] });
        expect(await count("author")).toBe(1);
        expect(await count("tag")).toBe(0);
      });

      it("an update to a taken value is refused the same way", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1, { handle: "ada" }));
          await tx.insert("author", author(2));
        });
        await expect(store.write((tx) => tx.update("author", 2, { handle: "ada" }))).rejects.toMatchObject({
          table: "author",
          fields: ["handle"],
        });
        await expect(store.write((tx) => tx.update("author", 2, { email: "a1@x.org" }))).rejects.toBeInstanceOf(
          StoreConstraintError,
        );
        expect(await get("author", 2)).toMatchObject({ handle: null, email: "a2@x.org" });
        // Writing a row's own value again is no conflict.
        expect(await store.write((tx) => tx.update("author", 1, { handle: "ada", email: "a1@x.org" }))).toMatchObject({
          handle: "ada",
        });
      });

      it("a unique Email ignores case, and keeps the address as written; absent optional values never conflict", async () => {
        await store.write((tx) => tx.insert("author", author(1, { email: "Ada@X.org" })));
        await expect(store.write((tx) => tx.insert("author", author(2, { email: "ada@x.ORG" })))).rejects.toMatchObject(
          { fields: ["email"] },
        );
        expect((await get("author", 1))?.email).toBe("Ada@X.org");
        await store.write(async (tx) => {
          await tx.insert("author", author(3));
          await tx.insert("author", author(4));
        });
        expect(await count("author", { where: [{ column: "handle", op: "==", value: null }] })).toBe(3);
      });

      it("one link per pair of rows: a second one names both endpoint fields", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.insert("post", post(1));
          await tx.insert("tag", { label: "t" });
          await tx.insert("tagging", { post: 1, tag: 1 });
        });
        await expect(
          store.write((tx) => tx.insert("tagging", { post: 1, tag: 1, note: "again" })),
        ).rejects.toMatchObject({ table: "tagging", fields: ["post", "tag"] });
      });

      it("concurrent writes of one unique value: exactly one wins", async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) =>
            store.write((tx) => tx.insert("author", author(i, { email: "same@x.org" }))),
          ),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StoreConstraintError);
        expect(await count("author")).toBe(1);
      });
    });

    describe("refs and links", () => {
      it("referrers: every place that holds a row's id, counted per place; a self-reference and link endpoints do not count", async () => {
        await store.write(async (tx) => {
          for (let i = 1; i <= 4; i++) await tx.insert("author", author(i));
          await tx.insert("post", post(1));
          await tx.insert("post", post(1, { related: [1], meta: { words: 1, editor: 2 } }));
          await tx.insert("post", post(2, { related: [3, 2] }));
          await tx.insert("tag", { label: "t" });
          await tx.insert("tagging", { post: 1, tag: 1 });
          await tx.insert("shelf", {
            parts: [{ author: 3 }, { author: null }],
            credit: { person: 1 },
            rows: [[4], [2, 1]],
          });
          await tx.insert("shelf", { parts: [], credit: null, rows: [] });
        });
        const referrers = async (table: string, id: number) =>
          (await store.read((tx) => tx.referrers(table, id))).sort(byPlace);
        expect(await referrers("author", 1)).toEqual([
          { table: "post", field: "author", count: 2 },
          { table: "shelf", field: "credit.person", count: 1 },
          { table: "shelf", field: "rows", count: 1 },
        ]);
        expect(await referrers("author", 2)).toEqual([
          { table: "post", field: "author", count: 1 },
          { table: "post", field: "meta.editor", count: 1 },
          { table: "shelf", field: "rows", count: 1 },
        ]);
        expect(await referrers("author", 3)).toEqual([{ table: "shelf", field: "parts.author", count: 1 }]);
        expect(await referrers("author", 99)).toEqual([]);
        expect(await referrers("post", 1)).toEqual([{ table: "post", field: "related", count: 1 }]);
        // Post 3 lists itself among its related posts: that alone does not keep it.
        expect(await referrers("post", 3)).toEqual([]);
        // The tagging is a link: it goes with the post or the tag, so it does not hold them.
        expect(await referrers("tag", 1)).toEqual([]);
      });

      it("deleting either endpoint deletes its link rows in the same transaction; other links stay", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          for (let i = 0; i < 2; i++) await tx.insert("post", post(1));
          for (let i = 0; i < 2; i++) await tx.insert("tag", { label: `t${i}` });
          for (const [p, t] of [
            [1, 1],
            [1, 2],
            [2, 1],
            [2, 2],
          ])
            await tx.insert("tagging", { post: p, tag: t });
        });
        await store.write((tx) => tx.delete("post", 1));
        expect((await list("tagging")).map((l) => [l.post, l.tag])).toEqual([
          [2, 1],
          [2, 2],
        ]);
        await store.write((tx) => tx.delete("tag", 2));
        expect((await list("tagging")).map((l) => [l.post, l.tag])).toEqual([[2, 1]]);
        // Rolled back with its transaction: the link comes back with the row.
        await store
          .write(async (tx) => {
            await tx.delete("tag", 1);
            throw new Error("undo");
          })
          .catch(() => undefined);
        expect(await count("tagging")).toBe(1);
      });

      it("rows referring to a link row hold its endpoints: the link would go with them", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.insert("post", post(1));
          await tx.insert("tag", { label: "t" });
          await tx.insert("tagging", { post: 1, tag: 1 });
          await tx.insert("shelf", { parts: [], rows: [], pinned: 1 });
        });
        expect(await store.read((tx) => tx.referrers("post", 1))).toEqual([
          { table: "shelf", field: "pinned", count: 1 },
        ]);
        expect(await store.read((tx) => tx.referrers("tag", 1))).toEqual([
          { table: "shelf", field: "pinned", count: 1 },
        ]);
      });
    });

    describe("list, filters and count", () => {
      beforeEach(async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          const titles = ["Émile 100%", "émile_a", "plain", "100 percent", "ÉMILE", "Straße"];
          const subtitles = [null, "b", null, "a", "b", "c"];
          for (let i = 0; i < 6; i++) {
            await tx.insert(
              "post",
              post(1, {
                title: titles[i],
                order: i % 3,
                subtitle: subtitles[i],
                published: i % 2 === 0,
                status: i < 4 ? "Draft" : "Live",
                score: i === 2 ? null : i / 2,
              }),
            );
          }
        });
      });

      const where = (column: string, op: NonNullable<ListQuery["where"]>[number]["op"], value: unknown) => ({
        where: [{ column, op, value }],
      });

      it("every comparison, on text, numbers, bools, unions and id", async () => {
        expect(ids(await list("post", where("order", "==", 1)))).toEqual([2, 5]);
        expect(ids(await list("post", where("order", "!=", 1)))).toEqual([1, 3, 4, 6]);
        expect(ids(await list("post", where("order", "<", 1)))).toEqual([1, 4]);
        expect(ids(await list("post", where("order", "<=", 1)))).toEqual([1, 2, 4, 5]);
        expect(ids(await list("post", where("order", ">", 1)))).toEqual([3, 6]);
        expect(ids(await list("post", where("order", ">=", 1)))).toEqual([2, 3, 5, 6]);
        expect(ids(await list("post", where("score", ">=", 1.5)))).toEqual([4, 5, 6]);
        expect(ids(await list("post", where("published", "==", true)))).toEqual([1, 3, 5]);
        expect(ids(await list("post", where("published", "!=", true)))).toEqual([2, 4, 6]);
        expect(ids(await list("post", where("status", "==", "Live")))).toEqual([5, 6]);
        // Text compares by Unicode code point, whatever the database's locale: "S" < "p" < "É".
        expect(ids(await list("post", where("title", "<", "plain")))).toEqual([4, 6]);
        expect(ids(await list("post", where("title", ">", "plain")))).toEqual([1, 2, 5]);
        expect(ids(await list("post", { sort: { column: "title", descending: false } }))).toEqual([4, 6, 3, 5, 1, 2]);
        expect(ids(await list("post", where("title", "==", "plain")))).toEqual([3]);
        expect(ids(await list("post", where("id", "<", 3)))).toEqual([1, 2]);
        expect(ids(await list("post", where("id", ">=", 5)))).toEqual([5, 6]);
        expect(ids(await list("post", where("author", "==", 1)))).toHaveLength(6);
      });

      it("null: == null and != null test absence; != a value includes the rows without one; ordering comparisons skip them", async () => {
        expect(ids(await list("post", where("subtitle", "==", null)))).toEqual([1, 3]);
        expect(ids(await list("post", where("subtitle", "!=", null)))).toEqual([2, 4, 5, 6]);
        expect(ids(await list("post", where("subtitle", "!=", "b")))).toEqual([1, 3, 4, 6]);
        expect(ids(await list("post", where("subtitle", "<", "c")))).toEqual([2, 4, 5]);
        expect(ids(await list("post", where("score", "<", 1)))).toEqual([1, 2]);
      });

      it("in takes a list of values; contains matches a substring ignoring case (Unicode), with % and _ taken literally", async () => {
        expect(ids(await list("post", where("id", "in", [2, 4, 99])))).toEqual([2, 4]);
        expect(ids(await list("post", where("subtitle", "in", ["b", "c"])))).toEqual([2, 5, 6]);
        expect(ids(await list("post", where("status", "in", ["Live"])))).toEqual([5, 6]);
        expect(ids(await list("post", where("title", "contains", "émile")))).toEqual([1, 2, 5]);
        expect(ids(await list("post", where("title", "contains", "ÉMI")))).toEqual([1, 2, 5]);
        expect(ids(await list("post", where("title", "contains", "0%")))).toEqual([1]);
        expect(ids(await list("post", where("title", "contains", "_")))).toEqual([2]);
        expect(ids(await list("post", where("title", "contains", "%")))).toEqual([1]);
        expect(ids(await list("post", where("title", "contains", "STRASSE")))).toEqual([]);
        expect(ids(await list("post", where("title", "contains", "straße")))).toEqual([6]);
        expect(ids(await list("post", where("subtitle", "contains", "")))).toEqual([2, 4, 5, 6]);
      });

      it("conditions are ANDed; count counts what list would list, ignoring sort, after and limit", async () => {
        const query: ListQuery = {
          where: [
            { column: "status", op: "==", value: "Draft" },
            { column: "published", op: "==", value: false },
          ],
        };
        expect(ids(await list("post", query))).toEqual([2, 4]);
        expect(
          await count("post", {
            ...query,
            sort: { column: "title", descending: true },
            after: { id: 2, value: "x" },
            limit: 1,
          }),
        ).toBe(2);
        expect(await count("post")).toBe(6);
        expect(await count("tag")).toBe(0);
      });

      it("limit caps the rows; limit 0 lists none", async () => {
        expect(ids(await list("post", { limit: 2 }))).toEqual([1, 2]);
        expect(await list("post", { limit: 0 })).toEqual([]);
        expect(ids(await list("post", { limit: 100 }))).toHaveLength(6);
      });

      it("a where or sort on a field that is not a stored scalar → StoreQueryError; nothing changes", async () => {
        for (const column of ["nope", "meta", "tags", "related", 'x"; DROP TABLE post; --']) {
          await expect(list("post", where(column, "==", 1))).rejects.toBeInstanceOf(StoreQueryError);
          await expect(count("post", where(column, "==", 1))).rejects.toBeInstanceOf(StoreQueryError);
          await expect(list("post", { sort: { column, descending: false } })).rejects.toMatchObject({
            table: "post",
            column,
          });
        }
        await expect(list("post", where("id", "in", []))).rejects.toBeInstanceOf(StoreQueryError);
        await expect(list("post", where("title", "contains", 3))).rejects.toBeInstanceOf(StoreQueryError);
        expect(await count("post")).toBe(6);
      });
    });

    describe("sort and keyset cursors", () => {
      beforeEach(async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          const subtitles = [null, "b", null, "a", "b", null, "a"];
          const orders = [1, 0, 1, 0, 1, 0, 2];
          for (let i = 0; i < 7; i++) await tx.insert("post", post(1, { subtitle: subtitles[i], order: orders[i] }));
        });
      });

      /** Every row, page by page with `after` from each page's last row. */
      const walk = async (column: string, descending: boolean, where?: ListQuery["where"]) => {
        const seen: number[] = [];
        let after: ListQuery["after"];
        for (;;) {
          const page = await list("post", {
            sort: { column, descending },
            limit: 2,
            ...(after ? { after } : {}),
            ...(where ? { where } : {}),
          });
          if (page.length === 0) return seen;
          seen.push(...ids(page).map(Number));
          const last = page[page.length - 1]!;
          after = { id: last.id as number, value: last[column] };
        }
      };

      it("ascending by default; nulls first ascending and last descending; ties by id in the sort's direction", async () => {
        expect(ids(await list("post"))).toEqual([1, 2, 3, 4, 5, 6, 7]);
        expect(ids(await list("post", { sort: { column: "subtitle", descending: false } }))).toEqual([
          1, 3, 6, 4, 7, 2, 5,
        ]);
        expect(ids(await list("post", { sort: { column: "subtitle", descending: true } }))).toEqual([
          5, 2, 7, 4, 6, 3, 1,
        ]);
        expect(ids(await list("post", { sort: { column: "order", descending: true } }))).toEqual([7, 5, 3, 1, 6, 4, 2]);
        expect(ids(await list("post", { sort: { column: "id", descending: true } }))).toEqual([7, 6, 5, 4, 3, 2, 1]);
      });

      it("keyset pages cover every row exactly once, both ways, across nulls and ties", async () => {
        expect(await walk("subtitle", false)).toEqual([1, 3, 6, 4, 7, 2, 5]);
        expect(await walk("subtitle", true)).toEqual([5, 2, 7, 4, 6, 3, 1]);
        expect(await walk("order", false)).toEqual([2, 4, 6, 1, 3, 5, 7]);
        expect(await walk("order", true)).toEqual([7, 5, 3, 1, 6, 4, 2]);
        expect(await walk("id", true)).toEqual([7, 6, 5, 4, 3, 2, 1]);
        expect(await walk("subtitle", false, [{ column: "order", op: "!=", value: 2 }])).toEqual([1, 3, 6, 4, 2, 5]);
      });

      it("after a position: only the rows past it, whether or not a row is still there", async () => {
        expect(ids(await list("post", { after: { id: 4 }, limit: 2 }))).toEqual([5, 6]);
        expect(ids(await list("post", { sort: { column: "id", descending: true }, after: { id: 3 } }))).toEqual([2, 1]);
        expect(
          ids(await list("post", { sort: { column: "subtitle", descending: false }, after: { id: 3, value: null } })),
        ).toEqual([6, 4, 7, 2, 5]);
        expect(
          ids(await list("post", { sort: { column: "subtitle", descending: true }, after: { id: 7, value: "a" } })),
        ).toEqual([4, 6, 3, 1]);
        await store.write((tx) => tx.delete("post", 4));
        expect(
          ids(await list("post", { sort: { column: "subtitle", descending: false }, after: { id: 4, value: "a" } })),
        ).toEqual([7, 2, 5]);
      });

      it("rows added behind the cursor during a walk shift no later page", async () => {
        const seen: number[] = [];
        let after: ListQuery["after"];
        for (let n = 0; ; n++) {
          const page = await list("post", { limit: 3, ...(after ? { after } : {}) });
          if (page.length === 0) break;
          seen.push(...ids(page).map(Number));
          after = { id: page[page.length - 1]!.id as number };
          if (n < 2) await store.write((tx) => tx.insert("post", post(1)));
        }
        expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      });
    });

    describe("migrations", () => {
      const withNote = () => {
        const app = conformanceApp();
        const tag = app.types.find((t) => t.name === "Tag")!;
        tag.fields.push(opt("note", scalar("Text")), field("weight", scalar("Int"), literal(5)));
        app.types.push(type("Label", [field("text", scalar("Text"))]));
        return app;
      };
      const withoutLabel = () => {
        const app = conformanceApp();
        const tag = app.types.find((t) => t.name === "Tag")!;
        tag.fields = tag.fields.filter((f) => f.name !== "label");
        return app;
      };

      it("reopening with the same app changes nothing", async () => {
        await store.write((tx) => tx.insert("tag", { label: "t" }));
        expect((await reopen()).applied).toEqual([]);
        expect(await list("tag")).toEqual([{ id: 1, label: "t" }]);
      });

      it("additive changes are applied at open and keep the rows: new type, optional field, field with a default", async () => {
        await store.write((tx) => tx.insert("tag", { label: "t" }));
        const migration = await reopen(withNote());
        expect(migration.applied.length).toBeGreaterThanOrEqual(3);
        expect(migration.applied.join("\n")).toMatch(/Label/);
        expect(migration.applied.join("\n")).toMatch(/Tag\.note/);
        expect(migration.applied.join("\n")).toMatch(/Tag\.weight/);
        expect(await list("tag")).toEqual([{ id: 1, label: "t", note: null, weight: 5 }]);
        await store.write((tx) => tx.insert("label", { text: "new" }));
        expect(await list("label")).toEqual([{ id: 1, text: "new" }]);
        expect(await store.write((tx) => tx.insert("tag", { label: "u", note: "n", weight: 1 }))).toEqual({
          id: 2,
          label: "u",
          note: "n",
          weight: 1,
        });
      });

      it("a destructive change is refused with a reason naming it, and changes nothing; allowed, it is applied", async () => {
        await store.write((tx) => tx.insert("tag", { label: "keep me" }));
        const err = await refusedOpen(withoutLabel());
        expect(err).toBeInstanceOf(MigrationRefusedError);
        const refused = err as MigrationRefusedError;
        expect(refused.changes).toHaveLength(1);
        expect(refused.changes[0]).toMatch(/Tag\.label/);
        expect(refused.message).toContain("--allow-destructive-migration");
        expect(await list("tag")).toEqual([{ id: 1, label: "keep me" }]);
        const migration = await reopen(withoutLabel(), { allowDestructiveMigration: true });
        expect(migration.applied.join("\n")).toMatch(/Tag\.label/);
        expect(await list("tag")).toEqual([{ id: 1 }]);
      });

      it("a new @unique over duplicate values is refused even when destructive changes are allowed", async () => {
        await store.write(async (tx) => {
          await tx.insert("tag", { label: "same" });
          await tx.insert("tag", { label: "same" });
        });
        const unique = conformanceApp();
        unique.types.find((t) => t.name === "Tag")!.fields.find((f) => f.name === "label")!.isUnique = true;
        const err = await refusedOpen(unique, { allowDestructiveMigration: true });
        expect(err).toBeInstanceOf(MigrationRefusedError);
        expect((err as MigrationRefusedError).blocked.join("\n")).toMatch(/Tag\.label/);
        expect(await count("tag")).toBe(2);
      });

      it("a new or tightened @check over rows that break it is blocked, naming how many and their ids; a looser one, or none, migrates", async () => {
        await store.write(async (tx) => {
          for (const n of [5, -1, 0, -3, -7, -8, -9]) await tx.insert("counter", { n });
          await tx.insert("tag", { label: "" });
          await tx.insert("tag", { label: "x" });
        });
        const checked = (n?: FieldCheck, label?: FieldCheck) => {
          const app = conformanceApp();
          const fields = (type: string) => app.types.find((t) => t.name === type)!.fields;
          if (n) fields("Counter").find((f) => f.name === "n")!.check = n;
          if (label) fields("Tag").find((f) => f.name === "label")!.check = label;
          return app;
        };
        const blocked = async (app: Catalog) => {
          const err = await refusedOpen(app, { allowDestructiveMigration: true });
          expect(err).toBeInstanceOf(MigrationRefusedError);
          return (err as MigrationRefusedError).blocked.join("\n");
        };
        expect(await blocked(checked({ op: ">", value: 0 }))).toBe(
          "cannot add @check(> 0) on 'Counter.n': 6 rows break it (ids 2, 3, 4, 5, 6, …); change their values first",
        );
        expect(await blocked(checked(undefined, { op: "!=", value: "" }))).toBe(
          `cannot add @check(!= "") on 'Tag.label': 1 row breaks it (id 1); change its value first`,
        );
        expect(await count("counter")).toBe(7);
        let migration = await reopen(checked({ op: ">=", value: -9 }));
        expect(migration.applied).toEqual(["new @check(>= -9) on 'Counter.n' (every row passes it)"]);
        // Tightened: -9 and -8 now break it.
        expect(await blocked(checked({ op: ">=", value: -7 }))).toMatch(/2 rows break it \(ids 6, 7\)/);
        migration = await reopen(checked({ op: "<=", value: 5 }));
        expect(migration.applied.join("\n")).toContain("new @check(<= 5) on 'Counter.n' (every row passes it)");
        migration = await reopen(conformanceApp());
        expect(migration.applied).toEqual(["field 'Counter.n' no longer has @check(<= 5)"]);
        expect(await count("counter")).toBe(7);
      });

      it("a new @check inside a struct or a list's items is probed the same way, in the decoded values", async () => {
        await store.write(async (tx) => {
          await tx.insert("bin", { box: { size: 3 }, items: [{ qty: 1 }, { qty: 2 }] });
          await tx.insert("bin", { box: { size: -1 }, items: [{ qty: 4 }, { qty: 0 }] });
          await tx.insert("bin", { box: null, items: [{}] });
        });
        const checked = (size?: FieldCheck, qty?: FieldCheck) => {
          const app = conformanceApp();
          const fields = app.types.find((t) => t.name === "Bin")!.fields;
          // The struct's fields, or a list's items' (both options hold structs).
          const inner = (column: string, name: string) => {
            const t = fields.find((f) => f.name === column)!.type;
            const s = t.kind === "array" ? t.element : t;
            return (s.kind === "struct" ? s.fields : []).find((f) => f.name === name)!;
          };
          if (size) inner("box", "size").check = size;
          if (qty) inner("items", "qty").check = qty;
          return app;
        };
        const blocked = async (app: Catalog) => {
          const err = await refusedOpen(app, { allowDestructiveMigration: true });
          expect(err).toBeInstanceOf(MigrationRefusedError);
          return (err as MigrationRefusedError).blocked.join("\n");
        };
        expect(await blocked(checked({ op: ">=", value: 0 }))).toBe(
          "cannot add @check(>= 0) on 'Bin.box.size': 1 row breaks it (id 2); change its value first",
        );
        expect(await blocked(checked(undefined, { op: ">", value: 1 }))).toBe(
          "cannot add @check(> 1) on 'Bin.items[*].qty': 2 rows break it (ids 1, 2); change their values first",
        );
        let migration = await reopen(checked({ op: ">=", value: -1 }, { op: ">=", value: 0 }));
        expect(migration.applied).toEqual([
          "new @check(>= -1) on 'Bin.box.size' (every row passes it)",
          "new @check(>= 0) on 'Bin.items[*].qty' (every row passes it)",
        ]);
        migration = await reopen(conformanceApp());
        expect(migration.applied).toEqual([
          "field 'Bin.box.size' no longer has @check(>= -1)",
          "field 'Bin.items[*].qty' no longer has @check(>= 0)",
        ]);
        expect(await count("bin")).toBe(3);
      });
    });

    describe("change events and the change log (spec/live.md)", () => {
      /** The suite's app with Post exposing `subscribe`: its table gets a change log. */
      const liveApp = () => {
        const app = conformanceApp();
        app.types.find((t) => t.table === "post")!.rest = [{ path: "/api/posts", ops: ["subscribe"] }];
        return app;
      };
      const brief = (changes: readonly RowChange[]) => changes.map((c) => [c.table, c.op, c.id, c.seq !== undefined]);
      let heard: RowChange[][];
      beforeEach(async () => {
        await reopen(liveApp());
        heard = [];
        store.onCommit((changes) => heard.push([...changes]));
      });

      it("after the commit, one change per create, update and delete, with the committed row (null after a delete); a seq only for logged tables", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          expect(heard).toEqual([]); // nothing before the commit
        });
        await store.write(async (tx) => {
          const p = await tx.insert("post", post(1));
          await tx.update("post", p.id as number, { title: "U" });
          await tx.delete("post", p.id as number);
        });
        expect(heard.map(brief)).toEqual([
          [["author", "create", 1, false]],
          [
            ["post", "create", 1, true],
            ["post", "update", 1, true],
            ["post", "delete", 1, true],
          ],
        ]);
        expect(heard[0]![0]!.row).toEqual(await get("author", 1));
        expect(heard[1]![1]!.row).toMatchObject({ id: 1, title: "U" });
        expect(heard[1]![2]!.row).toBeNull();
        const seqs = heard[1]!.map((c) => c.seq!);
        expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
      });

      it("nothing for a write or savepoint that rolled back, an update of nothing, a delete of nothing", async () => {
        await expect(
          store.write(async (tx) => {
            await tx.insert("author", author(1));
            throw new Error("no");
          }),
        ).rejects.toThrow("no");
        await store.write(async (tx) => {
          await tx.insert("author", author(2));
          await tx
            .savepoint(async () => {
              await tx.insert("author", author(3));
              throw new Error("undo");
            })
            .catch(() => undefined);
          expect(await tx.update("author", 99, { name: "x" })).toBeUndefined();
          expect(await tx.delete("author", 99)).toBe(false);
        });
        expect(heard.map((c) => c.map((x) => [x.op, x.row?.name]))).toEqual([[["create", "A2"]]]);
      });

      it("concurrent writes: every change once, in commit order; a failing neighbour's changes are not among them", async () => {
        await Promise.allSettled(
          [1, 2, 3, 4].map((n) =>
            store.write(async (tx) => {
              await tx.insert("author", author(n));
              if (n === 2) throw new Error("fails");
            }),
          ),
        );
        expect(heard.flat().map((c) => c.row?.name)).toEqual(["A1", "A3", "A4"]);
      });

      it("a listener that throws fails no write and stops no other listener; the returned function removes one", async () => {
        store.onCommit(() => {
          throw new Error("listener bug");
        });
        const other: number[] = [];
        const stop = store.onCommit((c) => other.push(c.length));
        await store.write((tx) => tx.insert("author", author(1)));
        stop();
        await store.write((tx) => tx.insert("author", author(2)));
        expect([other, heard.length]).toEqual([[1], 2]);
      });

      it("deleting a link endpoint reports the links that went with it", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.insert("post", post(1));
          await tx.insert("tag", { label: "x" });
          await tx.insert("tagging", { post: 1, tag: 1 });
        });
        heard = [];
        await store.write((tx) => tx.delete("tag", 1));
        expect(heard.map(brief)).toEqual([
          [
            ["tagging", "delete", 1, false],
            ["tag", "delete", 1, false],
          ],
        ]);
      });

      it("the log holds what committed, in order, survives a reopen, and says gone for a position it never handed out", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        await store.write((tx) => tx.insert("post", post(1)));
        await expect(
          store.write(async (tx) => {
            await tx.insert("post", post(1));
            throw new Error("no");
          }),
        ).rejects.toThrow();
        await store.write((tx) => tx.update("post", 1, { title: "again" }));
        const published = heard.flat().filter((c) => c.table === "post");
        await reopen(liveApp());
        const read = await store.changesAfter("post", 0, 10);
        expect(read).toEqual({ gone: false, changes: published, more: false });
        const first = await store.changesAfter("post", 0, 1);
        expect(first.gone === false && [first.changes.length, first.more]).toEqual([1, true]);
        const newest = published[published.length - 1]!.seq!;
        expect(await store.changesAfter("post", newest, 10)).toEqual({ gone: false, changes: [], more: false });
        expect(await store.changesAfter("post", newest + 1, 10)).toEqual({ gone: true, newest });
      });
    });

    describe('the audit trail (spec/operations.md, "Audit trail")', () => {
      const recent = Date.now() - 24 * 3600 * 1000;
      const entry = (n: number, extra: Partial<AuditRecord> = {}): AuditRecord => ({
        // Within the default retention (30 days), a minute apart.
        at: new Date(recent + n * 60_000).toISOString(),
        principal: n % 2 === 0 ? "agent" : "owner",
        user: n % 2 === 0 ? "42" : null,
        role: n % 2 === 0 ? "editor" : null,
        via: n % 2 === 0 ? "token" : "owner",
        surface: "rest",
        operation: "author_create",
        type: "Author",
        rowId: n,
        outcome: "ok",
        ...extra,
      });

      it("an entry commits with its write, and rolls back with it", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1));
          await tx.appendAudit(entry(1));
        });
        const failed = store.write(async (tx) => {
          await tx.insert("author", author(2));
          await tx.appendAudit(entry(2));
          throw new Error("refused");
        });
        await expect(failed).rejects.toThrow("refused");
        const { entries, more } = await store.readAudit({ limit: 10 });
        expect(more).toBe(false);
        expect(entries).toEqual([{ ...entry(1), seq: entries[0]!.seq }]);
        await reopen();
        expect((await store.readAudit({ limit: 10 })).entries.map((e) => e.rowId)).toEqual([1]);
      });

      it("reads page by seq and filter by time and user", async () => {
        for (let n = 1; n <= 5; n++) await store.write((tx) => tx.appendAudit(entry(n)));
        const first = await store.readAudit({ limit: 2 });
        expect(first.entries.map((e) => e.rowId)).toEqual([1, 2]);
        expect(first.more).toBe(true);
        const next = await store.readAudit({ limit: 2, after: first.entries[1]!.seq });
        expect(next.entries.map((e) => e.rowId)).toEqual([3, 4]);
        expect((await store.readAudit({ limit: 10, since: entry(3).at })).entries.map((e) => e.rowId)).toEqual([
          3, 4, 5,
        ]);
        expect((await store.readAudit({ limit: 10, user: "42" })).entries.map((e) => e.rowId)).toEqual([2, 4]);
        await expect(store.read((tx) => tx.appendAudit(entry(9)))).rejects.toThrow();
      });

      it("keeps the newest entries within a row-count retention", async () => {
        const app = conformanceApp();
        app.config.auditRetention = { maxRows: 3 };
        await reopen(app);
        for (let n = 1; n <= 8; n++) await store.write((tx) => tx.appendAudit(entry(n)));
        const kept = (await store.readAudit({ limit: 100 })).entries.map((e) => e.rowId);
        expect(kept.length).toBeLessThanOrEqual(3 + 1);
        expect(kept.slice(-3)).toEqual([6, 7, 8]);
      });

      it("sweeps entries older than an age retention, at the first write after open", async () => {
        await store.write(async (tx) => {
          await tx.appendAudit(entry(1, { at: "2000-01-01T00:00:00.000Z" }));
          await tx.appendAudit(entry(2, { at: new Date().toISOString() }));
        });
        const app = conformanceApp();
        app.config.auditRetention = { maxAgeMs: 24 * 3600 * 1000 };
        await reopen(app);
        await store.write((tx) => tx.appendAudit(entry(3, { at: new Date().toISOString() })));
        expect((await store.readAudit({ limit: 100 })).entries.map((e) => e.rowId)).toEqual([2, 3]);
      });
    });

    describe("durability", () => {
      it("every resolved write is there after close and reopen, ids keep counting", async () => {
        await store.write(async (tx) => {
          await tx.insert("author", author(1, { joined: "2026-01-01T00:00:00Z", rating: 0.1 }));
          await tx.insert("post", post(1, { meta: { words: 2, lang: "de" }, tags: ["a"] }));
        });
        await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.write((tx) => tx.insert("tag", { label: `t${i}` }))),
        );
        await store.write((tx) => tx.delete("tag", 20));
        const before = { authors: await list("author"), posts: await list("post"), tags: await list("tag") };
        await reopen();
        expect({ authors: await list("author"), posts: await list("post"), tags: await list("tag") }).toEqual(before);
        expect((await store.write((tx) => tx.insert("tag", { label: "next" }))).id).toBe(21);
      });
    });

    describe("concurrency", () => {
      it("concurrent writes are serialized: read-modify-write loses no update", async () => {
        await store.write((tx) => tx.insert("counter", { n: 0 }));
        const n = 40;
        const seen = await Promise.all(
          Array.from({ length: n }, () =>
            store.write(async (tx) => {
              const c = (await tx.get("counter", 1))!;
              // Let other callbacks run in between, as a method doing I/O would.
              await new Promise((r) => setImmediate(r));
              return (await tx.update("counter", 1, { n: (c.n as number) + 1 }))!.n;
            }),
          ),
        );
        expect([...seen].sort((a, b) => (a as number) - (b as number))).toEqual(
          Array.from({ length: n }, (_, i) => i + 1),
        );
        expect(await get("counter", 1)).toEqual({ id: 1, n });
      });

      it("a read sees only committed data, and does not wait for a pending write", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let written!: () => void;
        const didWrite = new Promise<void>((r) => (written = r));
        const pending = store.write(async (tx) => {
          await tx.insert("author", author(2));
          await tx.update("author", 1, { name: "uncommitted" });
          written();
          await gate;
        });
        await didWrite;
        expect(await count("author")).toBe(1);
        expect(await get("author", 1)).toMatchObject({ name: "A1" });
        expect(await get("author", 2)).toBeUndefined();
        release();
        await pending;
        expect(await count("author")).toBe(2);
        expect(await get("author", 1)).toMatchObject({ name: "uncommitted" });
      });

      it("one read() sees one state even when a write commits between its queries", async () => {
        await store.write((tx) => tx.insert("author", author(1)));
        const seen = await store.read(async (tx) => {
          const first = await tx.count("author");
          await store.write((w) => w.insert("author", author(2)));
          return [first, await tx.count("author"), (await tx.list("author")).length, await tx.get("author", 2)];
        });
        expect(seen).toEqual([1, 1, 1, undefined]);
        expect(await count("author")).toBe(2);
      });
    });
  });
}
