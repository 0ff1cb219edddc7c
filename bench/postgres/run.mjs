// PostgreSQL throughput bench. In one run, on one machine, against one small app (a `Note`
// type served over REST and MCP), with PostgreSQL started by tools/postgres/server.mjs:
//   - SQLite vs PostgreSQL, one `wo run` each: GET /api/notes/:id, durable POST /api/notes,
//     MCP tools/call note_get (2026-07-28, stateless);
//   - PostgreSQL with one instance vs two instances on one database (the load split evenly
//     over both, as a load balancer would): the same three cases.
// Prints req/s and p50/p99 per case and the ratios PostgreSQL / SQLite and two / one instance.
// Cases run one after another (not paired), so ratios near 1 are within the machine's noise.
// Then the anchors: a hand-written node:http + pg server (anchor-server.mjs) on the same
// table, loaded in pairs with wo for POST and GET (paired-load.mjs: medians of `--rounds`; POST
// also against an instance alone on a database of its own, which notifies nobody), and
// pgbench running the same INSERT with as many clients, plain and in wo's CRUD transaction shape.
// Then method calls: samples/ledger's `transfer` between random accounts (of 20), on one and on
// two instances; with `--old CHECKOUT` (another checkout, built) also on that build, and paired
// with it (new/old, medians of `--rounds`).
// Last, round trips to PostgreSQL per call (REST create, GET, method call), counted inside a
// separate `wo run` (count-round-trips.mjs) over 200 calls one after another; a create both
// beside the loaded instances (which listen, so it notifies) and alone on a database of its own.
//
// usage: node bench/postgres/run.mjs [--duration 5 --connections 10 --rounds 6 --old CHECKOUT]
// (needs `npm run build` and PostgreSQL's binaries, as the tests)
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { spawnSync } from "node:child_process";
import { startPostgres, postgresUnavailable, pgPassword } from "../../tools/postgres/server.mjs";
import { numberArg, oldCheckoutArg, pinCpus, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = numberArg;
const duration = arg("duration", 5);
const connections = arg("connections", 10);
const rounds = arg("rounds", 6);
const oldCheckout = oldCheckoutArg();
if (postgresUnavailable) throw new Error(postgresUnavailable);
const placement = pinCpus();

const V = "2026-07-28";
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const envelope = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const mcpGet = (id) => ({
  method: "POST",
  headers: { ...json, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "note_get" },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "note_get", arguments: { id }, _meta: envelope },
  }),
});

const work = mkdtempSync(join(tmpdir(), "wo-bench-pg-"));
/** Each instance gets its own copy of the app (its own build folder). */
function app(name) {
  const dir = join(work, name, "notes");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "app.wo"),
    `type Note {\n  id: Id\n  title: Text\n  body: Text\n  service rest "/api/notes" expose list, get, create\n  service mcp "/mcp" expose list, get, create\n}\n`,
  );
  return dir;
}
const serve = (dir, db, { wo = "bin/wo.js", env } = {}) =>
  startNode(wo, ["run", dir, "--quiet", "--listen", "127.0.0.1:0", "--db", db], /serving at (http:\/\/\S+)/, env);

/** A copy of samples/ledger per instance. */
function ledgerApp(name) {
  const dir = join(work, name, "ledger");
  cpSync("samples/ledger", dir, { recursive: true });
  return dir;
}
const accounts = 20;
/** 20 accounts with money enough for every transfer of the bench; their ids. */
async function seedLedger(url) {
  const ids = [];
  for (let i = 0; i < accounts; i++) {
    const res = await fetch(`${url}/api/accounts`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ owner: `o${i}` }),
    });
    const { id } = await res.json();
    await fetch(`${url}/api/accounts/${id}/deposit`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ amount: 1e12 }),
    });
    ids.push(id);
  }
  return ids;
}
/** A transfer of 1 cent between two random distinct accounts, drawn afresh for each request. */
const transferRequest = (ids) => ({
  method: "POST",
  headers: json,
  path: "/api/accounts/1/transfer",
  requests: [
    {
      setupRequest: (req) => {
        const from = Math.floor(Math.random() * ids.length);
        const to = (from + 1 + Math.floor(Math.random() * (ids.length - 1))) % ids.length;
        return {
          ...req,
          path: `/api/accounts/${ids[from]}/transfer`,
          body: JSON.stringify({ to: ids[to], amount: 1 }),
        };
      },
    },
  ],
});

/**
 * Round trips to PostgreSQL per call of `request` (a fetch), in a `wo run` that counts them
 * (count-round-trips.mjs): 200 calls one after another, after 20 to warm up.
 */
async function roundTripsPerCall(server, countFile, request) {
  const counted = async () => {
    rmSync(countFile, { force: true });
    server.child.kill("SIGUSR2");
    for (let i = 0; i < 200 && !existsSync(countFile); i++) await sleep(10);
    return Number(readFileSync(countFile, "utf8"));
  };
  for (let i = 0; i < 20; i++) await request();
  const before = await counted();
  const calls = 200;
  for (let i = 0; i < calls; i++) {
    const res = await request();
    if (!res.ok) throw new Error(`round-trip count: ${res.status} ${await res.text()}`);
  }
  return ((await counted()) - before) / calls;
}
const counting = (file) => ({
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${new URL("./count-round-trips.mjs", import.meta.url).href}`,
  WO_BENCH_ROUND_TRIPS: file,
});

/** Load spread evenly over `urls` (one autocannon per instance, together); summed req/s, the worst latencies. */
async function load(urls, request) {
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: url + request.path,
        connections: Math.max(1, Math.round(connections / urls.length)),
        duration,
        pipelining: 1,
        method: request.method ?? "GET",
        headers: request.headers,
        body: request.body,
        requests: request.requests,
      }),
    ),
  );
  for (const r of results)
    if (r.non2xx > 0 || r.errors > 0 || r["2xx"] === 0)
      throw new Error(`${request.method ?? "GET"} ${request.path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  };
}

/** pgbench's transactions per second for one SQL script, `connections` clients, `duration` s. */
function pgbenchTps(url, sql) {
  const u = new URL(url);
  const file = join(work, `pgbench-${Math.random().toString(36).slice(2)}.sql`);
  writeFileSync(file, `${sql}\n`);
  const args = ["-n", "-h", u.hostname, "-p", u.port, "-U", decodeURIComponent(u.username)];
  args.push("-c", String(connections), "-j", "2", "-T", String(duration), "-f", file, u.pathname.slice(1));
  const r = spawnSync("pgbench", args, { encoding: "utf8", env: { ...process.env, PGPASSWORD: pgPassword } });
  const tps = /tps = ([\d.]+)/.exec(r.stdout ?? "");
  if (!tps) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return Number(tps[1]);
}

async function seed(url) {
  let id;
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/api/notes`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ title: `Note ${i}`, body: "Some text." }),
    });
    id = (await res.json()).id;
  }
  return id;
}

const cases = (id) => [
  ["REST GET /api/notes/:id", { path: `/api/notes/${id}` }],
  [
    "REST POST /api/notes",
    { path: "/api/notes", method: "POST", headers: json, body: JSON.stringify({ title: "bench", body: "durable" }) },
  ],
  ["MCP tools/call note_get", { path: "/mcp", ...mcpGet(id) }],
];

const pg = await startPostgres();
const started = [];
try {
  const sqlite = await serve(app("sqlite"), join(work, "sqlite-data"));
  started.push(sqlite.child);
  const pgUrl = await pg.createDatabase();
  const a = await serve(app("pg-a"), pgUrl);
  started.push(a.child);
  const b = await serve(app("pg-b"), pgUrl);
  started.push(b.child);
  const sqliteId = await seed(sqlite.url);
  const pgId = await seed(a.url);

  const rows = [];
  for (const [title, request] of cases(sqliteId))
    rows.push({ title, setup: "SQLite, 1 instance", ...(await load([sqlite.url], request)) });
  for (const [title, request] of cases(pgId)) {
    rows.push({ title, setup: "PostgreSQL, 1 instance", ...(await load([a.url], request)) });
    rows.push({ title, setup: "PostgreSQL, 2 instances", ...(await load([a.url, b.url], request)) });
  }

  console.log(`PostgreSQL bench: ${duration} s per case, ${connections} connections in all; ${placement}`);
  for (const r of rows)
    console.log(
      `  ${r.title.padEnd(26)} ${r.setup.padEnd(24)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms`,
    );
  console.log("ratios");
  for (const [title] of cases(0)) {
    const of = (setup) => rows.find((r) => r.title === title && r.setup === setup).rps;
    const one = of("PostgreSQL, 1 instance");
    console.log(
      `  ${title.padEnd(26)} PostgreSQL/SQLite ${(one / of("SQLite, 1 instance")).toFixed(2)}   2 instances/1 ${(of("PostgreSQL, 2 instances") / one).toFixed(2)}`,
    );
  }

  // The anchors (spec/storage.md, "Bench"): a hand-written node:http + pg server on the same
  // table with the same pool size, loaded in pairs with wo (both at once, each its share of the
  // connections), and pgbench running the same INSERT straight at the database.
  const table = JSON.parse(readFileSync(join(work, "pg-a", "notes", ".wo", "build", "app.json"), "utf8")).types[0]
    .table;
  const anchor = await startNode(
    "bench/postgres/anchor-server.mjs",
    [pgUrl, table, "/api/notes", "10"],
    /serving at (http:\/\/\S+)/,
  );
  started.push(anchor.child);
  const [, post] = cases(pgId)[1];
  const transfers = [];
  const [, get] = cases(pgId)[0];
  const opts = (url, request) => ({
    url: url + request.path,
    method: request.method ?? "GET",
    headers: request.headers,
    body: request.body,
  });
  const paired = { rounds, duration: Math.min(duration, 3), connections };
  const postRatios = await pairedRatios([[opts(anchor.url, post), opts(a.url, post)]], paired);
  const getRatios = await pairedRatios([[opts(anchor.url, get), opts(a.url, get)]], paired);
  // Above, instance b listens, so a's creates notify it; alone on a database of its own an
  // instance notifies nobody and a create is one statement (spec/storage.md, "Sole inserts").
  const lone = await serve(app("pg-lone"), await pg.createDatabase());
  started.push(lone.child);
  await seed(lone.url);
  const lonePostRatios = await pairedRatios([[opts(anchor.url, post), opts(lone.url, post)]], paired);
  const bench = (script) => pgbenchTps(pgUrl, script);
  const insertSql = `INSERT INTO "${table}" ("title", "body") VALUES ('bench', 'durable');`;
  const plainTps = bench(insertSql);
  const woShapeTps = bench(`BEGIN;\n${insertSql}\nCOMMIT;`);
  const woPost = rows.find((r) => r.title === "REST POST /api/notes" && r.setup === "PostgreSQL, 1 instance").rps;
  console.log(
    `against the anchors (paired rounds: ${rounds} × ${paired.duration} s, ${connections} connections each side)`,
  );
  console.log(`  ${"measure".padEnd(52)} goal    now   (rounds)`);
  console.log(
    `  wo POST / hand-written pg server POST           ≥ 1.0   ${median(postRatios).toFixed(2)}   (${postRatios.map((r) => r.toFixed(2)).join(" ")})`,
  );
  console.log(
    `  wo POST (alone on its database) / the same       ≥ 1.0   ${median(lonePostRatios).toFixed(2)}   (${lonePostRatios.map((r) => r.toFixed(2)).join(" ")})`,
  );
  console.log(
    `  wo GET / hand-written pg server GET             ≥ 0.8   ${median(getRatios).toFixed(2)}   (${getRatios.map((r) => r.toFixed(2)).join(" ")})`,
  );
  console.log(
    `  wo POST / pgbench plain INSERT (${connections} clients)      ≥ 0.5   ${(woPost / plainTps).toFixed(2)}   (wo ${woPost.toFixed(0)} req/s, pgbench ${plainTps.toFixed(0)} tps)`,
  );
  console.log(`  ${"pgbench BEGIN; INSERT; COMMIT (wo's CRUD shape)".padEnd(52)}         ${woShapeTps.toFixed(0)} tps`);

  // Method calls: each build on a database of its own, 1 then 2 instances, one after another.
  const builds = [
    ["this build", "bin/wo.js"],
    ...(oldCheckout ? [["--old build", join(oldCheckout, "bin/wo.js")]] : []),
  ];
  const ledgers = [];
  for (const [name, wo] of builds) {
    const db = await pg.createDatabase();
    const one = await serve(ledgerApp(`${name}-a`), db, { wo });
    started.push(one.child);
    const two = await serve(ledgerApp(`${name}-b`), db, { wo });
    started.push(two.child);
    const ids = await seedLedger(one.url);
    ledgers.push({ name, one, ids });
    for (const [setup, urls] of [
      ["1 instance", [one.url]],
      ["2 instances", [one.url, two.url]],
    ])
      transfers.push({ name, setup, ...(await load(urls, transferRequest(ids))) });
  }
  console.log(
    `method calls: POST /api/accounts/:id/transfer (samples/ledger), ${accounts} accounts, random pairs, ${connections} connections in all`,
  );
  for (const t of transfers)
    console.log(
      `  ${t.name.padEnd(12)} ${t.setup.padEnd(12)} ${t.rps.toFixed(0).padStart(7)} calls/s  p50 ${t.p50} ms  p99 ${t.p99} ms`,
    );
  if (ledgers.length === 2) {
    const [fresh, old] = ledgers;
    const at = (l) => ({ url: `${l.one.url}/api/accounts/1/transfer`, ...transferRequest(l.ids) });
    const ratios = await pairedRatios([[at(old), at(fresh)]], paired);
    console.log(
      `  this build / --old build, paired, 1 instance each: ${median(ratios).toFixed(2)}   (${ratios.map((r) => r.toFixed(2)).join(" ")})`,
    );
  }

  const trips = [];
  // Round trips per call, counted inside a `wo run` of each build (not one of the loaded ones).
  console.log("round trips to PostgreSQL per call (200 calls one after another)");
  for (const [name, wo] of builds) {
    const countFile = join(work, `round-trips-${name.replace(/\W/g, "")}`);
    const notes = await serve(app(`count-${name}`), pgUrl, { wo, env: counting(countFile) });
    started.push(notes.child);
    const ledgerDb = await pg.createDatabase();
    const ledger = await serve(ledgerApp(`count-${name}`), ledgerDb, { wo, env: counting(`${countFile}-ledger`) });
    started.push(ledger.child);
    const ids = await seedLedger(ledger.url);
    const create = await roundTripsPerCall(notes, countFile, () =>
      fetch(`${notes.url}/api/notes`, { method: "POST", headers: json, body: post.body }),
    );
    // Alone on its database, no other instance listens: a create is one statement (spec/storage.md, "Sole inserts").
    const lone = await serve(app(`count-lone-${name}`), await pg.createDatabase(), {
      wo,
      env: counting(`${countFile}-lone`),
    });
    started.push(lone.child);
    const createAlone = await roundTripsPerCall(lone, `${countFile}-lone`, () =>
      fetch(`${lone.url}/api/notes`, { method: "POST", headers: json, body: post.body }),
    );
    const read = await roundTripsPerCall(notes, countFile, () => fetch(`${notes.url}/api/notes/${pgId}`));
    const transfer = await roundTripsPerCall(ledger, `${countFile}-ledger`, () =>
      fetch(`${ledger.url}/api/accounts/${ids[0]}/transfer`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ to: ids[1], amount: 1 }),
      }),
    );
    console.log(
      `  ${name.padEnd(12)} REST create ${create.toFixed(2)} (beside 2 instances), ${createAlone.toFixed(2)} (alone)   REST GET ${read.toFixed(2)}   method call (transfer) ${transfer.toFixed(2)}`,
    );
    if (name === "this build") trips.push(create, createAlone, read, transfer);
  }
  summarize("postgres", [
    ["wo POST / hand-written pg server POST, paired", "≥ 1.0", `${median(postRatios).toFixed(2)}×`, rounds],
    [
      "wo POST (alone on its database) / hand-written pg server POST, paired",
      "≥ 1.0",
      `${median(lonePostRatios).toFixed(2)}×`,
      rounds,
    ],
    ["wo GET / hand-written pg server GET, paired", "≥ 0.8", `${median(getRatios).toFixed(2)}×`, rounds],
    [`wo POST / pgbench plain INSERT (${connections} clients)`, "≥ 0.5", `${(woPost / plainTps).toFixed(2)}×`, 1],
    ...transfers
      .filter((t) => t.name === "this build")
      .map((t) => [`method call (ledger transfer), ${t.setup}`, "", `${t.rps.toFixed(0)} calls/s`, 1]),
    [
      "round trips per REST create (beside other instances / alone) / GET / method call",
      "",
      trips.map((n) => n.toFixed(2)).join(" / "),
      200,
    ],
  ]);
} finally {
  for (const child of started) await stopNode(child);
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
