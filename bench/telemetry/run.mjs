// What observing a server costs: REST GET by id on a `wo run` with metrics and a sampled
// tracer on against the same GET on one with both off. Cases: metrics only (`[admin] listen`),
// and metrics with traces (`[telemetry] otlp_endpoint`) sampled at 0.01 (a common production
// head-sampling rate) and at `--ratio` (0.1). The traced servers export OTLP/HTTP to a sink
// in a process of its own (otlp-sink.mjs), which reads and drops each batch as a collector
// would accept it.
//
// The bench states its own noise floor: an A/A control, a second server with telemetry off,
// is measured against the first exactly as each case is. A case's cost means something only
// where it stands clear of the control's spread.
//
// Two measures, both against off:
// - paired rounds (bench/paired-load.mjs): the case's server and off loaded at the same time,
//   sharing the servers' CPU; per round the throughput ratio and the ratio of the two servers'
//   CPU time per request (from /proc/<pid>/stat, all threads: the span export worker's too).
//   Whatever the machine does during a round it does to both.
// - CPU per request alone: each server loaded alone in turn with a fixed number of requests,
//   rounds alternating the order; a case's cost is the median of its rounds' ratios to off's
//   figure of the same round.
//
// usage: npm run build && node bench/telemetry/run.mjs [--rounds 8 --duration 2 --connections 10 --ratio 0.1 --requests 40000 --throughput 1]
// (--throughput 0: CPU per request alone only)
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { numberArg, pinCpus, repoRoot, serveApp, startNode, stopNode } from "../node-process.mjs";
import { cpuMicros, median, pairedRounds } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = numberArg;
const rounds = arg("rounds", 8);
const duration = arg("duration", 2);
const connections = arg("connections", 10);
const ratio = arg("ratio", 0.1);
const requests = arg("requests", 40000);
const throughput = arg("throughput", 1) !== 0;

/** µs of the server's CPU per request, for `requests` GETs. */
async function cpuPerRequest(server) {
  const before = cpuMicros(server.child.pid);
  const r = await autocannon({ url: `${server.url}/api/greetings/1`, connections, amount: requests });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${server.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return (cpuMicros(server.child.pid) - before) / r.requests.total;
}

/** "0.97 (0.93–1.01)": the median of per-round ratios and their range. */
const spread = (ratios, digits = 3) =>
  `${median(ratios).toFixed(digits)} (${Math.min(...ratios).toFixed(digits)}–${Math.max(...ratios).toFixed(digits)})`;
/** A cost in percent from a ratio: "+4.1%". */
const percent = (r) => `${r >= 1 ? "+" : ""}${(100 * (r - 1)).toFixed(1)}%`;

const placement = pinCpus();
const sink = await startNode("bench/telemetry/otlp-sink.mjs", [], /OTLP sink at (http:\/\/\S+)/);
let sinkReport = "";
sink.child.stdout.on("data", (d) => {
  sinkReport += d;
});

const work = mkdtempSync(join(tmpdir(), "wo-bench-telemetry-"));
function app(name, toml) {
  const dir = join(work, name, "hello");
  cpSync(join(repoRoot, "samples/hello"), dir, { recursive: true, filter: (p) => !p.includes("/.wo") });
  writeFileSync(join(dir, "wo.toml"), `name = "hello"\n${toml}`);
  return dir;
}

const started = [];
try {
  const adminToml = '[admin]\nlisten = "127.0.0.1:0"\n';
  const tracedToml = (r) => `${adminToml}[telemetry]\notlp_endpoint = "${sink.url}"\nsample_ratio = ${r}\n`;
  // [title, wo.toml]; the first is the baseline the others are compared with, the second the
  // A/A control: the same configuration as the first.
  const configs = [
    ["off", ""],
    ["off again (A/A control)", ""],
    ["metrics on", adminToml],
    ["metrics + traces sampled at 0.01", tracedToml(0.01)],
    [`metrics + traces sampled at ${ratio}`, tracedToml(ratio)],
  ];
  const servers = [];
  for (const [i, [, toml]] of configs.entries()) {
    const s = await serveApp(app(`case${i}`, toml));
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
  const get = (s) => ({ url: `${s.url}/api/greetings/1`, pid: s.child.pid });
  const [off] = servers;
  const width = 36;
  const control = 1;
  console.log(
    `telemetry bench: ${rounds} rounds per measure; ${connections} connections; ${placement}; load average ${(
      await import("node:os")
    )
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const figures = [];
  if (throughput) {
    console.log(
      `  paired rounds of ${duration} s against off: median of the rounds (their range); the A/A control line is the noise floor`,
    );
    console.log(`    ${"".padEnd(width)}throughput / off        CPU per GET / off (µs: off → case)`);
    for (const [k, [title]] of configs.entries()) {
      if (k === 0) continue;
      const pairs = await pairedRounds([[get(off), get(servers[k])]], { rounds, duration, connections });
      const ratios = pairs.map((p) => p.ratio);
      const cpuRatios = pairs.map((p) => p.cpuRatio);
      const offCpu = median(pairs.map((p) => p.cpu[0]));
      const caseCpu = median(pairs.map((p) => p.cpu[1]));
      console.log(
        `    ${title.padEnd(width)}${spread(ratios)}    ${spread(cpuRatios)}  (${offCpu.toFixed(1)} → ${caseCpu.toFixed(1)})`,
      );
      figures.push([
        `REST GET, ${title} / off, paired`,
        k === control ? "noise floor" : "≥ 0.97",
        `${median(ratios).toFixed(2)}×`,
        rounds,
      ]);
      figures.push([
        `server CPU per REST GET, ${title}, paired`,
        k === control ? "noise floor" : "≤ +3%",
        `${percent(median(cpuRatios))} (${offCpu.toFixed(1)} → ${caseCpu.toFixed(1)} µs)`,
        rounds,
      ]);
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
    // A round measures every server one right after the other, so a case's cost is taken round
    // by round against off's figure of the same round (then the median of those): a busy spell
    // of the machine then raises both sides of a ratio instead of one case's median.
    console.log(
      `  server CPU per request, each loaded alone (${requests} GETs × ${rounds} rounds): median µs, then / off: median of the rounds' ratios (their range)`,
    );
    for (const [k, [title]] of configs.entries()) {
      const ratios = cpu[k].map((v, round) => v / cpu[0][round]);
      const cost = k === 0 ? "" : spread(ratios);
      console.log(
        `    ${title.padEnd(width)}${median(cpu[k]).toFixed(1).padStart(6)} µs   ${cost.padEnd(22)}   ${cpu[k].map((v) => v.toFixed(1)).join(" ")}`,
      );
      if (k > 0)
        figures.push([
          `server CPU per REST GET, ${title}, alone`,
          k === control ? "noise floor" : "≤ +3%",
          `${percent(median(ratios))} (${median(cpu[0]).toFixed(1)} → ${median(cpu[k]).toFixed(1)} µs)`,
          rounds,
        ]);
    }
  }
  summarize("telemetry", figures);
} finally {
  // The traced servers flush their spans when they stop.
  for (const child of started) await stopNode(child);
  await stopNode(sink.child);
  if (!sink.child.stdout.readableEnded) await new Promise((r) => sink.child.stdout.once("end", r));
  console.log(`  OTLP sink: ${sinkReport.trim()}`);
  rmSync(work, { recursive: true, force: true });
}
