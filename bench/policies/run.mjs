// What a read policy costs (spec/policies.md, "Reads"). Two parts:
//
// 1. REST list throughput with a row policy against the same list without one, paired
//    (bench/paired-load.mjs): two `wo run`s of one app that differ only in
//    `policy read for role editor when author == $session.user` (and its index), each with the
//    same rows, both called as a named token with role editor and user 7, `GET /api/posts`
//    (a page of 50 rows on both sides). Goal ≥ 0.8.
// 2. The filter on a 100,000-row SQLite table: the policy's condition compiled by
//    runtime/store/conditions.ts, EXPLAIN QUERY PLAN of the list query showing the index on
//    `author`, and a list's time with and without the filter.
//
// usage: npm run build && node bench/policies/run.mjs [--rounds 8 --duration 2 --connections 10 --rows 100000]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { numberArg, pinCpus, repoRoot, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = numberArg;
const rounds = arg("rounds", 8);
const duration = arg("duration", 2);
const connections = arg("connections", 10);
const bigRows = arg("rows", 100_000);
const placement = pinCpus();

const { openSqliteStore } = await import(join(repoRoot, "dist/runtime/store/sqlite.js"));
const { compileCondition, sqliteDialect, catalogTables, queryCondition } = await import(
  join(repoRoot, "dist/runtime/store/conditions.js")
);
const { rowCondition } = await import(join(repoRoot, "dist/runtime/operations/row-policy.js"));

const ownerToken = "bench-policies-owner-token-0123456789abcdef";
const work = mkdtempSync(join(tmpdir(), "wo-bench-policies-"));
const wo = (args, env = {}) =>
  execFileSync(process.execPath, [join(repoRoot, "bin/wo.js"), ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });

function app(name, withPolicy) {
  const dir = join(work, name, "desk");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "wo.toml"), 'name = "desk"\n\n[server]\ntoken_env = "WO_BENCH_OWNER"\n');
  const policy = withPolicy ? "  policy read for role editor when author == $session.user\n" : "";
  writeFileSync(
    join(dir, "app.wo"),
    `@table(index: [author])
type Post {
  title: Text
  author: Int
  published: Bool = false
${policy}
  service rest "/api/posts" expose list, get, create
}
`,
  );
  return dir;
}

// The servers take the owner's token from their environment (wo.toml token_env).
process.env.WO_BENCH_OWNER = ownerToken;
const started = [];
try {
  // --- 1. paired REST list ------------------------------------------------------------
  const dirs = [app("open", false), app("policy", true)];
  const tokens = dirs.map((dir) =>
    wo(["token", "add", "editor", dir, "--role", "editor", "--user", "7"]).trimEnd().split("\n").at(-1),
  );
  const servers = [];
  for (const dir of dirs) {
    const s = await startNode(
      "bin/wo.js",
      ["run", dir, "--quiet", "--listen", "127.0.0.1:0"],
      /serving at (http:\/\/\S+)/,
    );
    started.push(s.child);
    servers.push(s);
  }
  // 1,000 rows on each, a quarter by author 7: the policy side's page is still 50 rows.
  for (const s of servers) {
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          fetch(`${s.url}/api/posts`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${ownerToken}` },
            body: JSON.stringify({ title: `post ${i + k}`, author: (i + k) % 4 === 0 ? 7 : 8 + ((i + k) % 3) }),
          }).then(async (r) => {
            if (r.status !== 201) throw new Error(`seeding ${s.url}: ${r.status} ${await r.text()}`);
          }),
        ),
      );
    }
  }
  const page = (s, token) => ({ url: `${s.url}/api/posts?limit=50`, headers: { authorization: `Bearer ${token}` } });
  for (const [s, token] of servers.map((s, i) => [s, tokens[i]])) {
    const body = await (await fetch(page(s, token).url, { headers: page(s, token).headers })).json();
    if (body.items?.length !== 50) throw new Error(`${s.url}: a page of ${body.items?.length} rows, not 50`);
  }
  console.log(`policies bench: ${rounds} paired rounds × ${duration} s, ${connections} connections each; ${placement}`);
  console.log(`  ${"case".padEnd(36)} goal    policy / none (median)   rounds`);
  const ratios = await pairedRatios([[page(servers[0], tokens[0]), page(servers[1], tokens[1])]], {
    rounds,
    duration,
    connections,
  });
  console.log(
    `  ${"REST GET /api/posts?limit=50".padEnd(36)} ≥ 0.8   ${median(ratios).toFixed(3).padStart(5)}                    ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
  );
  const figures = [["REST list with a row policy / without, paired", "≥ 0.8", `${median(ratios).toFixed(2)}×`, rounds]];
  for (const child of started.splice(0)) await stopNode(child);

  // --- 2. 100,000 rows: the plan and the time -----------------------------------------
  const policyDir = dirs[1];
  wo(["build", policyDir]);
  const catalog = JSON.parse(readFileSync(join(policyDir, ".wo/build/app.json"), "utf8"));
  const file = join(work, "big", "app.sqlite");
  const { store } = await openSqliteStore({ file, catalog });
  await store.write(async (tx) => {
    for (let i = 0; i < bigRows; i++)
      await tx.insert("post", { title: `post ${i}`, author: i % 1000, published: i % 2 === 0 });
  });
  const type = catalog.types.find((t) => t.name === "Post");
  const editor = { name: "editor", user: "7", role: "editor", via: "token" };
  const filter = rowCondition(type, "read", editor, catalog.bypassPolicies ?? []);
  const tables = catalogTables(catalog);
  const params = [];
  const where = compileCondition(
    queryCondition("post", { filter }),
    tables.get("post"),
    tables,
    sqliteDialect("wo_lower"),
    (v) => {
      params.push(v);
      return "?";
    },
  );
  const sql = `SELECT "id", "title" FROM "post" WHERE ${where} ORDER BY "id" LIMIT 51`;
  const db = new Database(file, { readonly: true });
  db.function("wo_lower", (v) => (typeof v === "string" ? v.toLowerCase() : v));
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params);
  db.close();
  console.log(
    `\n  ${bigRows.toLocaleString("en")} rows; the editor's read condition compiles to: WHERE ${where}  [${params}]`,
  );
  for (const step of plan) console.log(`  plan: ${step.detail}`);
  if (!plan.some((s) => /USING (COVERING )?INDEX/.test(s.detail)))
    throw new Error("the policy's filter does not use the index");
  const time = async (query) => {
    const times = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await store.read((tx) => tx.list("post", query));
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const filtered = await time({ filter, limit: 51 });
  const plain = await time({ limit: 51 });
  console.log(
    `  list of 51 rows: ${filtered.toFixed(3)} ms with the policy, ${plain.toFixed(3)} ms without (median of 50)`,
  );
  figures.push([
    `${bigRows.toLocaleString("en")} rows: list of 51 with the policy (index) / without`,
    "uses the index",
    `${filtered.toFixed(3)} / ${plain.toFixed(3)} ms`,
    50,
  ]);
  summarize("policies", figures);
  await store.close();
} finally {
  for (const child of started) await stopNode(child);
  rmSync(work, { recursive: true, force: true });
}
