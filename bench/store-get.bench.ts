// GET-by-id cost of the store layer alone: store.read(tx.get) against a hand-written
// better-sqlite3 prepared statement on the same file and row. Run:
//   npx vitest bench --run bench/store-get.bench.ts
// The HTTP-level comparison (wo's GET vs a hand-written hono handler) is bench/rest.
import Database from "better-sqlite3";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bench, describe } from "vitest";
import { openSqliteStore } from "../runtime/store/sqlite.js";
import { blog } from "../test/store/fixture.js";

const file = join(mkdtempSync(join(tmpdir(), "wo-bench-")), "app.sqlite");
const { store } = await openSqliteStore({ file, catalog: blog() });
await store.write(async (tx) => {
  await tx.insert("author", { name: "A", email: "a@x" });
  for (let i = 0; i < 1000; i++) {
    await tx.insert("post", { title: `P${i}`, author: 1, published: i % 2 === 0, status: "Draft", meta: { words: i }, tags: ["a", "b"], order: i });
  }
});
const raw = new Database(file, { readonly: true });
const rawGet = raw.prepare(`SELECT * FROM post WHERE id = ?`);
let i = 0;

describe("GET post by id", () => {
  bench("hand-written: prepared SELECT, JSON.parse of struct/array columns", () => {
    const row = rawGet.get((i++ % 1000) + 1) as Record<string, unknown>;
    row.meta = JSON.parse(row.meta as string);
    row.tags = JSON.parse(row.tags as string);
    row.published = row.published === 1;
  });
  bench("wo store: store.read(tx => tx.get(...))", async () => {
    await store.read((tx) => tx.get("post", (i++ % 1000) + 1));
  });
});

// Durable inserts: one at a time (one fsync each) vs ten in flight (group commit shares it).
describe("durable insert", () => {
  let n = 0;
  const insert = () => store.write((tx) => tx.insert("author", { name: "B", email: `b${n++}@x` }));
  bench("1 in flight (ops = inserts)", async () => {
    await insert();
  });
  bench("10 in flight (ops = groups of 10 inserts)", async () => {
    await Promise.all(Array.from({ length: 10 }, insert));
  });
});
