// Row conditions (runtime/store/conditions.ts) on both stores: a list's `filter` (a policy's
// RowCondition) compiled into SQL returns exactly the rows the in-memory evaluator admits, for
// random rows and random conditions (fast-check), with count, sort, cursors and limit taking
// the filter too; plus the cases a session value brings (text against an Id column).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RowCondition, RowOperand } from "../../model/policy.js";
import type { Row, Store } from "../../model/store.js";
import { catalogTables, evaluateCondition } from "../../runtime/store/conditions.js";
import { openPostgresStore } from "../../runtime/store/postgres/store.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { catalog, opt, ref, scalar, tempDir, type } from "./fixture.js";

const app = catalog(
  type("Author", [
    opt("name", scalar("Text")),
    opt("n", scalar("Int")),
    opt("active", scalar("Bool")),
    opt("at", scalar("Timestamp")),
  ]),
  type("Post", [
    opt("title", scalar("Text")),
    opt("score", scalar("Int")),
    opt("published", scalar("Bool")),
    opt("owner", scalar("Int")),
    opt("rating", scalar("Float")),
    opt("author", ref("Author")),
    opt("parent", ref("Post")),
  ]),
);
const tables = catalogTables(app);

const texts = [null, "", "a", "A", "ab", "b", "ä", "Ä", "%", "_", "z"];
const ints = [null, -1, 0, 1, 2, 3];
const bools = [null, true, false];
const stamps = [null, "2026-01-01T10:00:00.000Z", "2026-06-01T00:00:00.000Z"];

const paths = {
  number: [
    ["id"],
    ["score"],
    ["owner"],
    ["author"],
    ["parent"],
    ["rating"],
    ["author", "n"],
    ["author", "id"],
    ["parent", "score"],
    ["parent", "author", "n"],
  ],
  text: [["title"], ["author", "name"], ["parent", "title"]],
  bool: [["published"], ["author", "active"], ["parent", "published"]],
  stamp: [["author", "at"]],
} as const;
// Values a condition may hold: besides the columns' own, what `$session.user` can be (text).
const operands = {
  number: [...ints, "2", "abc", "01", 1.5, " 3"],
  text: texts,
  bool: bools,
  stamp: [...stamps, "2026-01-01T12:00:00+02:00", "not a time"],
};
type Kind = keyof typeof paths;
const kinds = Object.keys(paths) as Kind[];

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const fieldOperand = (k: Kind) =>
  pick<readonly string[]>(paths[k]).map((p): RowOperand => ({ kind: "field", path: [...p] }));
const valueOperand = (k: Kind) => pick<unknown>(operands[k]).map((v): RowOperand => ({ kind: "value", value: v }));
const op = pick(["==", "!=", "<", "<=", ">", ">="] as const);

const leaf: fc.Arbitrary<RowCondition> = pick(kinds).chain((k) =>
  fc.oneof(
    fc.record({ kind: fc.constant("compare" as const), op, left: fieldOperand(k), right: valueOperand(k) }),
    fc.record({ kind: fc.constant("compare" as const), op, left: valueOperand(k), right: fieldOperand(k) }),
    fc.record({ kind: fc.constant("compare" as const), op, left: fieldOperand(k), right: fieldOperand(k) }),
    fc.record({ kind: fc.constant("compare" as const), op, left: valueOperand(k), right: valueOperand(k) }),
    pick(paths.bool).map((p): RowCondition => ({ kind: "truthy", path: [...p] })),
    fc.constantFrom<RowCondition>({ kind: "true" }, { kind: "false" }),
  ),
);
const condition: fc.Arbitrary<RowCondition> = fc.letrec<{ c: RowCondition }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ kind: pick(["and", "or"] as const), items: fc.array(tie("c"), { minLength: 0, maxLength: 3 }) }),
    fc.record({ kind: fc.constant("not" as const), item: tie("c") }),
  ),
})).c;

const authorRow = fc.record({ name: pick(texts), n: pick(ints), active: pick(bools), at: pick(stamps) });
const postRow = fc.record({
  title: pick(texts),
  score: pick(ints),
  published: pick(bools),
  owner: pick(ints),
  rating: pick([null, 0, 1.5, -2, 3]),
  // Ids 1..6 and one that names no row.
  author: pick([null, 1, 2, 3, 9]),
  parent: pick([null, 1, 2, 3, 4, 5, 6, 9]),
});

/** Replaces every row; returns what the store then holds, by table. */
async function fill(store: Store, authors: Row[], posts: Row[]): Promise<Map<string, Map<number, Row>>> {
  await store.write(async (tx) => {
    for (const r of await tx.list("post")) await tx.delete("post", r.id as number);
    for (const r of await tx.list("author")) await tx.delete("author", r.id as number);
    for (let i = 0; i < authors.length; i++) await tx.insertWithId("author", i + 1, authors[i]!);
    for (let i = 0; i < posts.length; i++) await tx.insertWithId("post", i + 1, posts[i]!);
  });
  return store.read(async (tx) => {
    const byTable = new Map<string, Map<number, Row>>();
    for (const table of ["author", "post"])
      byTable.set(table, new Map((await tx.list(table)).map((r) => [r.id as number, r])));
    return byTable;
  });
}

function admitted(c: RowCondition, rows: Map<string, Map<number, Row>>): Row[] {
  const t = tables.get("post")!;
  const resolve = (table: string, id: number) => rows.get(table)!.get(id);
  return [...rows.get("post")!.values()].filter((r) => evaluateCondition(c, r, t, tables, resolve));
}

function conditionSuite(name: string, open: () => Promise<{ store: Store; close(): Promise<void> }>) {
  describe(`row conditions on ${name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it("list, count and a sorted paged walk under a random filter return what the in-memory evaluator admits", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(authorRow, { maxLength: 3 }),
          fc.array(postRow, { minLength: 1, maxLength: 7 }),
          condition,
          fc.boolean(),
          async (authors, posts, filter, descending) => {
            const rows = await fill(store, authors, posts);
            const expected = admitted(filter, rows);
            const ids = expected.map((r) => r.id);
            const listed = await store.read((tx) => tx.list("post", { filter }));
            expect(listed.map((r) => r.id)).toEqual(ids);
            expect(await store.read((tx) => tx.count("post", { filter }))).toBe(ids.length);
            // `where` and `filter` together.
            const where = [{ column: "score", op: ">=" as const, value: 1 }];
            const both = await store.read((tx) => tx.list("post", { where, filter }));
            expect(both.map((r) => r.id)).toEqual(
              expected.filter((r) => (r.score as number | null) !== null && (r.score as number) >= 1).map((r) => r.id),
            );
            // Sorted by score (nulls first ascending, ties by id), two rows a page.
            const sign = descending ? -1 : 1;
            const sorted = [...expected].sort((a, b) => {
              const [x, y] = [a.score as number | null, b.score as number | null];
              if (x !== y) return sign * (x === null ? -1 : y === null ? 1 : x - y);
              return sign * ((a.id as number) - (b.id as number));
            });
            const walked: unknown[] = [];
            let after: { id: number; value: unknown } | undefined;
            for (let pages = 0; pages < 10; pages++) {
              const page = await store.read((tx) =>
                tx.list("post", {
                  filter,
                  sort: { column: "score", descending },
                  limit: 2,
                  ...(after ? { after } : {}),
                }),
              );
              walked.push(...page.map((r) => r.id));
              if (page.length < 2) break;
              const last = page[page.length - 1]!;
              after = { id: last.id as number, value: last.score };
            }
            expect(walked).toEqual(sorted.map((r) => r.id));
          },
        ),
        { numRuns: 120 },
      );
    }, 240_000);

    it("`$session.user` text against an Id and a ref: the number it spells; a text that spells none matches no row and throws nothing", async () => {
      await fill(store, [{ name: "a" }, { name: "b" }], [{ author: 1 }, { author: 2 }, { author: null }]);
      const is = (path: string[], value: unknown, op: "==" | "!=" = "=="): RowCondition => ({
        kind: "compare",
        op,
        left: { kind: "field", path },
        right: { kind: "value", value },
      });
      const ids = async (filter: RowCondition) =>
        (await store.read((tx) => tx.list("post", { filter }))).map((r) => r.id);
      expect(await ids(is(["author"], "2"))).toEqual([2]);
      expect(await ids(is(["id"], "1"))).toEqual([1]);
      expect(await ids(is(["author"], "alice"))).toEqual([]);
      expect(await ids(is(["author"], "99999999999999999999"))).toEqual([]);
      expect(await ids(is(["author"], "alice", "!="))).toEqual([1, 2, 3]);
      expect(await ids(is(["author", "name"], "b"))).toEqual([2]);
      expect(await store.read((tx) => tx.count("post", { filter: is(["id"], "x") }))).toBe(0);
    });
  });
}

conditionSuite("SQLite", async () => {
  const tmp = tempDir();
  const { store } = await openSqliteStore({ file: tmp.file, catalog: app });
  return {
    store,
    close: async () => {
      await store.close();
      tmp.cleanup();
    },
  };
});

let server: PostgresServer | undefined;
conditionSuite("PostgreSQL", async () => {
  server = await startPostgres();
  const { store } = await openPostgresStore({ url: await server.createDatabase(), catalog: app });
  return {
    store,
    close: async () => {
      await store.close();
      await server?.stop();
    },
  };
});
