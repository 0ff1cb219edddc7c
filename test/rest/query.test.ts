// The list query surface over REST (spec/rest.md "List: filters, sorting and pagination"):
// every operator on the field types that take it, sorting both ways with cursors that never
// skip or repeat a row while rows are inserted, `count`, and a precise 400 for every mistake.
// `wo run` of test/fixtures/apps/stock on a real socket.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { send, sendJson, serveApp, type Served } from "./support/harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let app: Served;
let base: string;
let keepers: number[];

const seed = (k1: number, k2: number) => [
  { name: "Apple pie", qty: 5, price: 250, weight: 1.5, at: "2026-01-01T00:00:00.000Z", keeper: k1, count: 1 },
  {
    name: "apple_juice",
    note: "fresh",
    qty: 10,
    price: 120,
    done: true,
    size: "Large",
    at: "2026-02-01T00:00:00.000Z",
    count: 2,
  },
  {
    name: "Banana 50%",
    note: "ripe",
    qty: 0,
    price: 80,
    weight: 0.2,
    at: "2026-03-01T00:00:00.000Z",
    keeper: k2,
    count: 3,
  },
  { name: "ÄPFEL", qty: 10, price: 300, done: true, size: "Large", at: "2026-04-01T00:00:00.000Z", keeper: k1 },
  { name: "gte.5", note: "odd, really", qty: -3, weight: 2.5, at: "2026-05-01T00:00:00.000Z", count: 5 },
];

beforeAll(async () => {
  app = await serveApp("test/fixtures/apps/stock");
  base = app.url;
  keepers = [];
  for (const name of ["Kim", "Lee"]) keepers.push((await sendJson(base, "POST", "/api/keepers", { name })).json.id);
  for (const item of seed(keepers[0]!, keepers[1]!)) {
    const r = await sendJson(base, "POST", "/api/items", item);
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  await app?.dispose();
});

async function ids(query: string): Promise<number[]> {
  const r = await send(base, "GET", `/api/items?${query}`);
  expect(r.status, r.text).toBe(200);
  return r.json.items.map((row: { id: number }) => row.id);
}

describe("filters", () => {
  it.each([
    // Plain equality means what it always did, even for text that looks like an operator.
    ["name=gte.5", [5]],
    ["done=true", [2, 4]],
    ["qty[eq]=10", [2, 4]],
    ["qty[ne]=10", [1, 3, 5]],
    ["qty[lt]=5", [3, 5]],
    ["qty[lte]=5", [1, 3, 5]],
    ["qty[gt]=5", [2, 4]],
    ["qty[gte]=5", [1, 2, 4]],
    ["qty[gte]=0&qty[lt]=10", [1, 3]],
    ["weight[gt]=1", [1, 5]],
    ["price[in]=250,300", [1, 4]],
    ["size[in]=Large", [2, 4]],
    ["size[ne]=Large", [1, 3, 5]],
    ["id[in]=1,5,99", [1, 5]],
    ["note[in]=odd%5C,%20really,ripe", [3, 5]],
    ["name[lt]=B", [1]],
    ["name[contains]=apple", [1, 2]],
    ["name[contains]=äpf", [4]],
    ["name[contains]=%25", [3]],
    ["name[contains]=_", [2]],
    ["note[null]=true", [1, 4]],
    ["note[null]=false", [2, 3, 5]],
    ["note[ne]=fresh", [1, 3, 4, 5]],
    ["weight[null]=true&done=true", [2, 4]],
    ["done[ne]=true", [1, 3, 5]],
    ["count[eq]=3", [3]],
    ["count[gte]=2", [2, 3, 5]],
    // Timestamp bounds are instants: +01:00 at 01:00 is midnight UTC.
    ["at[gte]=2026-03-01T01:00:00%2B01:00", [3, 4, 5]],
    ["at[lt]=2026-02-01T00:00:00Z", [1]],
  ])("%s", async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it("refs filter by id, with in and null", async () => {
    const [k1, k2] = keepers as [number, number];
    expect(await ids(`keeper=${k1}`)).toEqual([1, 4]);
    expect(await ids(`keeper[in]=${k2},${k1}`)).toEqual([1, 3, 4]);
    expect(await ids("keeper[null]=true")).toEqual([2, 5]);
  });
});

describe("sorting", () => {
  it.each([
    ["sort=qty", [5, 3, 1, 2, 4]],
    ["sort=-qty", [4, 2, 1, 3, 5]],
    // Nulls first ascending, last descending; ties by id in the sort's direction.
    ["sort=weight", [2, 4, 3, 1, 5]],
    ["sort=-weight", [5, 1, 3, 4, 2]],
    // Code-point order: capitals before lower case, Ä after z.
    ["sort=name", [1, 3, 2, 5, 4]],
    ["sort=-at", [5, 4, 3, 2, 1]],
    ["sort=size", [2, 4, 1, 3, 5]],
    ["sort=-id", [5, 4, 3, 2, 1]],
    ["sort=-qty&qty[gte]=5", [4, 2, 1]],
  ])("%s", async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it.each(["-qty", "qty", "weight", "-weight", "name"])(
    "pages under sort=%s while rows are inserted meanwhile: no row skipped or repeated",
    async (sort) => {
      const before = await ids(`sort=${sort}&limit=1000`);
      const seen: number[] = [];
      const inserted: number[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        // Each page is read while a row that sorts anywhere in the order is being created.
        const [page, created] = await Promise.all([
          send(base, "GET", `/api/items?sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ""}`),
          sendJson(base, "POST", "/api/items", {
            name: `new ${sort} ${round}`,
            qty: [100, -100, 7][round % 3],
            ...(round % 2 === 0 ? { weight: round - 1 } : {}),
            at: "2026-06-01T00:00:00.000Z",
          }),
        ]);
        round++;
        expect(page.status, page.text).toBe(200);
        expect(created.status, created.text).toBe(201);
        inserted.push(created.json.id);
        seen.push(...page.json.items.map((row: { id: number }) => row.id));
        cursor = page.json.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen).toContain(id);
      // What was seen is in the order a fresh read gives now.
      const now = await ids(`sort=${sort}&limit=1000`);
      expect(seen).toEqual(now.filter((id) => seen.includes(id)));
      // Clean up so the other cases see the seed alone.
      for (const id of inserted) expect((await send(base, "DELETE", `/api/items/${id}`)).status).toBe(204);
    },
  );
});

describe("count", () => {
  it("count=true adds the total over all pages; without it there is none", async () => {
    const r = await send(base, "GET", "/api/items?qty[gte]=5&count=true&limit=1");
    expect(r.json.items).toHaveLength(1);
    expect(r.json.total).toBe(3);
    expect(r.json.nextCursor).toBeTypeOf("string");
    const next = await send(base, "GET", `/api/items?qty[gte]=5&count=true&limit=1&cursor=${r.json.nextCursor}`);
    expect(next.json.total).toBe(3);
    expect((await send(base, "GET", "/api/items?count=false")).json.total).toBeUndefined();
    expect((await send(base, "GET", "/api/items")).json).not.toHaveProperty("total");
  });
});

describe("mistakes are a 400 naming the parameter", () => {
  it.each([
    ["qty=many", "/qty", /'qty' must be an integer, not 'many'/],
    ["qty[gte]=many", "/where/qty/gte", /'qty\[gte\]' must be an integer, not 'many'/],
    ["weight[lt]=heavy", "/where/weight/lt", /must be a number/],
    ["size[lt]=Large", "/where/size/lt", /size takes eq, ne, in\b/],
    ["qty[contains]=1", "/where/qty/contains", /qty takes eq, ne, lt, lte, gt, gte, in\./],
    ["name[null]=true", "/where/name/null", /does not apply to name/],
    ["note[null]=maybe", "/where/note/null", /must be true or false/],
    ["qty[between]=1", "/where/qty/between", /'between' does not apply/],
    ["nope[eq]=1", "/where/nope", /'nope' is not a field Item can be filtered by/],
    ["tags[eq]=x", "/where/tags", /is not a field Item can be filtered by/],
    ["price[in]=1,x", "/where/price/in", /comma-separated list of integers/],
    ["size[in]=Medium", "/where/size/in/0", /must be one of "Small", "Large"/],
    ["at[gt]=yesterday", "/where/at/gt", /date-time/],
    ["sort=bogus", "/sort", /must be one of/],
    ["sort=tags", "/sort", /must be one of/],
    ["count=yes", "/count", /count must be true or false/],
    ["count=3", "/count", /count must be true or false/],
    ["qty[gte]=1&qty[gte]=2", "/qty[gte]", /given more than once/],
    [`id[in]=${Array.from({ length: 101 }, (_, i) => i + 1).join(",")}`, "/where/id/in", /.+/],
  ])("%s", async (query, path, detail) => {
    const r = await send(base, "GET", `/api/items?${query}`);
    expect(r.status, r.text).toBe(400);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.json.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(r.json.detail).toMatch(detail);
    expect(r.json.detail).not.toMatch(/valid an?\b/);
  });

  it("a cursor is refused under another sort, and a forged one under any", async () => {
    const page = await send(base, "GET", "/api/items?sort=-qty&limit=2");
    const cursor = page.json.nextCursor as string;
    const other = await send(base, "GET", `/api/items?sort=qty&limit=2&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.json.detail).toBe("The cursor belongs to a listing sorted by '-qty', not 'qty'.");
    expect(other.json.errors[0].path).toBe("/cursor");
    const idCursor = (await send(base, "GET", "/api/items?limit=2")).json.nextCursor;
    expect((await send(base, "GET", `/api/items?sort=-qty&cursor=${idCursor}`)).status).toBe(400);
    for (const forged of [["-qty", "many", 3], ["-qty", 5], ["-qty", 5, -1], "{}"]) {
      const text = Buffer.from(typeof forged === "string" ? forged : JSON.stringify(forged)).toString("base64url");
      const r = await send(base, "GET", `/api/items?sort=-qty&cursor=${text}`);
      expect(r.status, JSON.stringify(forged)).toBe(400);
      expect(r.json.detail).toBe("The cursor is not one this server issued.");
    }
  });
});
