// What observing a server costs: REST GET by id on a `wo run` with metrics and a sampled
// tracer on against the same GET on one with both off, paired (bench/paired-load.mjs). The
// traced servers export OTLP/HTTP to a sink this bench serves on 127.0.0.1 (it reads and drops
// each batch, as a collector would accept it). Cases: metrics only (`[admin] listen`), and
// metrics with traces (`[telemetry] otlp_endpoint`) sampled at 0.01 (a common production
// head-sampling rate) and at `--ratio` (0.1). Prints the median ratio observed / off per case
// (goal ≥ 0.97: at most 3% of the throughput) and the spans received.
//
// Throughput pairs are only as steady as the machine: on a shared one they drift by more than
// the 3% they are to show. So the bench also measures what the server spends: CPU time per
// request (user + system, from /proc/<pid>/stat, Linux), each server loaded alone in turn with
// a fixed number of requests, rounds alternating; the medians, and the cost observed / off
// (per round, then the median). /proc's figure covers all the server's threads, the span
// export worker's too.
//
// usage: npm run build && node bench/telemetry/run.mjs [--rounds 8 --duration 2 --connections 10 --ratio 0.1 --requests 40000 --throughput 1]
// (--throughput 0: CPU per request only)
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { numberArg, pinCpus, repoRoot, serveApp, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = numberArg;
const rounds = arg("rounds", 8);
const duration = arg("duration", 2);
const connections = arg("connections", 10);
const ratio = arg("ratio", 0.1);
const requests = arg("requests", 40000);
const throughput = arg("throughput", 1) !== 0;

/** CPU time a process has used so far, in µs (clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** µs of the server's CPU per request, for `requests` GETs. */
async function cpuPerRequest(server) {
  const before = cpuMicros(server.child.pid);
  const r = await autocannon({ url: `${server.url}/api/greetings/1`, connections, amount: requests });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${server.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return (cpuMicros(server.child.pid) - before) / r.requests.total;
}
const placement = pinCpus();

// The OTLP sink: counts the spans of each JSON batch and answers as a collector does.
let spansReceived = 0;
const sink = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spansReceived += ss.spans.length;
    } catch {
      // Not JSON: counted as nothing.
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise((r) => sink.listen(0, "127.0.0.1", r));
const otlp = `http://127.0.0.1:${sink.address().port}`;

const work = mkdtempSync(join(tmpdir(), "wo-bench-telemetry-"));
function app(name, toml) {
  const dir = join(work, name, "hello");
  cpSync(join(repoRoot, "samples/hello"), dir, { recursive: true, filter: (p) => !p.includes("/.wo") });
  writeFileSync(join(dir, "wo.toml"), `name = "hello"\n${toml}`);
  return dir;
}
const serve = (dir) => serveApp(dir);

const started = [];
try {
  const adminToml = '[admin]\nlisten = "127.0.0.1:0"\n';
  const tracedToml = (r) => `${adminToml}[telemetry]\notlp_endpoint = "${otlp}"\nsample_ratio = ${r}\n`;
  // [title, wo.toml]; the first is the baseline the others are compared with.
  const configs = [
    ["off", ""],
    ["metrics on", adminToml],
    ["metrics + traces sampled at 0.01", tracedToml(0.01)],
    [`metrics + traces sampled at ${ratio}`, tracedToml(ratio)],
  ];
  const servers = [];
  for (const [i, [, toml]] of configs.entries()) {
    const s = await serve(app(`case${i}`, toml));
    started.push(s.child);
    servers.push(s);
  }
  for (const s of servers) {
    const r = await fetch(`${s.url}/api/greetings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hello" }),
    });
    if (r.status !== 201) throw new Error(`seeding ${s.url}: ${r.status} ${await r.text()}`);
  }
  const get = (s) => ({ url: `${s.url}/api/greetings/1` });
  const [off] = servers;
  const width = 36;
  console.log(
    `telemetry bench: ${rounds} paired rounds × ${duration} s, ${connections} connections each; ${placement}`,
  );
  const figures = [];
  if (throughput) {
    console.log(`  REST GET /api/greetings/1${" ".repeat(width - 25)}goal     observed / off (median)   rounds`);
    for (const [k, [title]] of configs.entries()) {
      if (k === 0) continue;
      const ratios = await pairedRatios([[get(off), get(servers[k])]], { rounds, duration, connections });
      figures.push([`REST GET, ${title} / off, paired`, "≥ 0.97", `${median(ratios).toFixed(2)}×`, rounds]);
      console.log(
        `  ${title.padEnd(width)}≥ 0.97   ${median(ratios).toFixed(3).padStart(5)}                     ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
      );
    }
  }
  if (existsSync(`/proc/${off.child.pid}/stat`)) {
    const cpu = servers.map(() => []);
    for (const s of servers) await cpuPerRequest(s); // warm-up: the JIT, the caches
    for (let round = 0; round < rounds; round++) {
      const order = servers.map((_, k) => k);
      if (round % 2 === 1) order.reverse();
      for (const k of order) cpu[k].push(await cpuPerRequest(servers[k]));
    }
    const medians = cpu.map(median);
    const offCpu = medians[0];
    // A round measures every server one right after the other, so a case's cost is taken round
    // by round against off's figure of the same round (the median of those): a busy spell of
    // the machine then raises both sides of a ratio instead of one case's median.
    const costs = cpu.map((values) => median(values.map((v, round) => v / cpu[0][round])) - 1);
    console.log(
      `  server CPU per request (${requests} GETs × ${rounds} rounds, median; cost: median of the rounds' ratios to off; every round):`,
    );
    for (const [k, [title]] of configs.entries()) {
      const cost = k === 0 ? "" : `cost ${(100 * costs[k]).toFixed(1).padStart(5)}%   (goal ≤ 3%)`;
      console.log(
        `    ${title.padEnd(width)}${medians[k].toFixed(1).padStart(6)} µs   ${cost}   ${cpu[k].map((v) => v.toFixed(1)).join(" ")}`,
      );
      if (k > 0)
        figures.push([
          `server CPU per REST GET, ${title}`,
          "≤ +3%",
          `${costs[k] >= 0 ? "+" : ""}${(100 * costs[k]).toFixed(1)}% (${offCpu.toFixed(1)} → ${medians[k].toFixed(1)} µs)`,
          rounds,
        ]);
    }
  }
  summarize("telemetry", figures);
} finally {
  for (const child of started) await stopNode(child);
  // The traced server flushed its spans when it stopped.
  console.log(`  spans received by the OTLP sink: ${spansReceived}`);
  sink.close();
  rmSync(work, { recursive: true, force: true });
}
