// Method throughput: `wo run samples/ledger` (a temp copy), two funded accounts, then N
// `transfer` calls over REST with C in flight. Each call is one durable write transaction
// (assert, two updates, two inserts). Prints calls/s and latency percentiles; asserts nothing.
//
//   npm run build && node bench/methods/run.mjs [N=2000] [C=16]

import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot as root, startNode, stopNode } from "../node-process.mjs";
import { summarize } from "../summary.mjs";

const N = Number(process.argv[2] ?? 2000);
const C = Number(process.argv[3] ?? 16);
const dir = mkdtempSync(join(tmpdir(), "wo-bench-methods-"));
const app = join(dir, "ledger");
cpSync(join(root, "samples/ledger"), app, { recursive: true });

const { child, url: base } = await startNode(
  "bin/wo.js",
  ["run", app, "--quiet", "--listen", "127.0.0.1:0"],
  /serving at (http:\/\/127\.0\.0\.1:\d+)/,
);
const post = (path, body) =>
  fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

try {
  for (const owner of ["a", "b"]) await post("/api/accounts", { owner });
  await post("/api/accounts/1/deposit", { amount: 1e9 });
  await post("/api/accounts/2/deposit", { amount: 1e9 });
  const latencies = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        const i = next++;
        const t0 = performance.now();
        const r = await post(`/api/accounts/${1 + (i % 2)}/transfer`, { to: 2 - (i % 2), amount: 1 + (i % 100) });
        latencies.push(performance.now() - t0);
        if (r.status !== 200) failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2);
  console.log(
    `transfer: ${N} calls, ${C} in flight: ${(N / seconds).toFixed(0)} calls/s, p50 ${pct(50)} ms, p99 ${pct(99)} ms, failed ${failed}`,
  );
  summarize("methods", [[`ledger transfer, ${C} in flight (SQLite)`, "", `${(N / seconds).toFixed(0)} calls/s`, 1]]);
} finally {
  await stopNode(child);
  rmSync(dir, { recursive: true, force: true });
}
