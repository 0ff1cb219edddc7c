// REST throughput bench. In one run, on one machine, against a copy of samples/blog:
//   - start-up: `wo run` of the already-built app, spawn → first answered GET /healthz;
//   - wo: GET /api/posts/:id, GET /api/posts?status=…&limit=20, durable POST /api/comments;
//   - baseline: the same GET by id from a minimal hand-written hono + better-sqlite3 server
//     (bench/rest/baseline.mjs) reading the same row of the same file, loaded at the same time
//     as wo's GET in eight rounds of 2 s (bench/paired-load.mjs; the median round is reported);
//   - RSS of the wo process after the load.
// Prints req/s and p50/p99 latency per case and the ratio wo GET / baseline GET (target ≥ 0.8).
//
// usage: npm run bench:rest [-- --duration 5 --connections 10]   (needs `npm run build`)
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { pinCpus, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg("duration", 5);
const placement = pinCpus();
const connections = arg("connections", 10);
const bin = join(root, "bin/wo.js");

/** Spawn → first 200 from /healthz, polling every 5 ms; the port is fixed so no output parsing is needed. */
async function startupMillis(app, db, port) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, "run", app, "--quiet", "--listen", `127.0.0.1:${port}`, "--db", db], {
    cwd: root,
    stdio: "ignore",
  });
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error("wo run exited during the start-up measurement");
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - t0;
  await stopNode(child);
  return ms;
}

async function load(title, opts) {
  const result = await autocannon({ connections, duration, ...opts });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad };
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

const work = mkdtempSync(join(tmpdir(), "wo-bench-rest-"));
const app = join(work, "blog");
const db = join(work, "data");
cpSync(join(root, "samples/blog"), app, { recursive: true, filter: (src) => !src.includes("/.wo") });
const built = spawnSync(process.execPath, [bin, "build", app], { cwd: root, encoding: "utf8" });
if (built.status !== 0) throw new Error(`wo build failed:\n${built.stderr}`);

const port = 20000 + Math.floor(Math.random() * 20000);
const startups = [];
for (let i = 0; i < 3; i++) startups.push(await startupMillis(app, db, port));

const wo = await startNode(
  "bin/wo.js",
  ["run", app, "--quiet", "--listen", "127.0.0.1:0", "--db", db],
  /serving at (http:\/\/\S+)/,
);
const json = { "content-type": "application/json" };
const post = (path, body) =>
  fetch(wo.url + path, { method: "POST", headers: json, body: JSON.stringify(body) }).then((r) => r.json());
const author = await post("/api/authors", { name: "Bench", email: "bench@example.com" });
const statuses = ["Draft", "Published", "Archived"];
for (let i = 0; i < 300; i++) {
  await post("/api/posts", {
    title: `Post ${i}`,
    slug: `post-${i}`,
    body: "Some *markdown*.",
    status: statuses[i % 3],
    author: author.id,
  });
}

const baseline = await startNode(
  "bench/rest/baseline.mjs",
  [join(db, "app.sqlite"), "posts"],
  /serving at (http:\/\/\S+)/,
);

// Warm-up: JIT, statement caches, connection pools.
await autocannon({ url: `${wo.url}/api/posts/1`, connections, duration: 2 });
await autocannon({ url: `${baseline.url}/api/posts/1`, connections, duration: 2 });

// The two GETs in pairs loaded at the same time on the shared server CPU, eight rounds of 2 s
// (bench/paired-load.mjs): one after the other, a ratio near 1 drifted by ±20% per round on a
// shared VM, and the load generator's own ceiling held back the faster server.
const pairRounds = 8;
const perRound = await pairedRatios([[{ url: `${baseline.url}/api/posts/1` }, { url: `${wo.url}/api/posts/1` }]], {
  rounds: pairRounds,
  duration: 2,
  connections,
});
const woGet = await load("wo      GET  /api/posts/:id", { url: `${wo.url}/api/posts/1` });
const results = [woGet];
results.push(
  await load("wo      GET  /api/posts?status=Published&limit=20", {
    url: `${wo.url}/api/posts?status=Published&limit=20`,
  }),
);
results.push(
  await load("wo      POST /api/comments (durable)", {
    url: `${wo.url}/api/comments`,
    method: "POST",
    headers: json,
    body: JSON.stringify({ post: 1, author_name: "Reader", body: "Nice post." }),
  }),
);
const rss = rssMiB(wo.child.pid);
results.push(await load("baseline GET /api/posts/:id (hono + better-sqlite3)", { url: `${baseline.url}/api/posts/1` }));
await stopNode(baseline.child);
await stopNode(wo.child);
rmSync(work, { recursive: true, force: true });

const startupMedian = median(startups);
console.log(
  `\nbench:rest  samples/blog, ${connections} connections, ${duration} s per case (GET by id pairs: 2 s), node ${process.version}, ${placement}\n`,
);
console.log(
  `${"case".padEnd(52)} ${"req/s".padStart(9)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"non-2xx/err".padStart(11)}`,
);
for (const r of results) {
  console.log(
    `${r.title.padEnd(52)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.bad).padStart(11)}`,
  );
}
const ratio = median(perRound);
console.log(
  `\nwo GET by id / baseline, loaded together (median of ${pairRounds} rounds): ${ratio.toFixed(2)}x (target >= 0.80)   (rounds: ${perRound.map((x) => x.toFixed(2)).join(", ")})`,
);
console.log(
  `start-up of wo run samples/blog (built) to first answered request: ${startups.map((t) => t.toFixed(0)).join(", ")} ms; median ${startupMedian.toFixed(0)} ms (target < 1000)`,
);
console.log(`wo RSS after the load: ${rss.toFixed(1)} MiB`);
summarize("rest", [
  ["REST GET by id / hand-written hono + better-sqlite3, paired", "≥ 0.95", `${ratio.toFixed(2)}×`, pairRounds],
  ["start-up of wo run samples/blog to first answer", "< 1000 ms", `${startupMedian.toFixed(0)} ms`, startups.length],
  ["REST POST (durable) alone", "", `${results[2].rps.toFixed(0)} req/s`, 1],
]);
