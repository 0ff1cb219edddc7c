// Live streams under load (spec/live.md): `wo run` of a one-type app whose type exposes
// `subscribe`, measured in one run:
//
//   1. write throughput over REST (N creates, C in flight) with no subscriber, then with S
//      REST live streams open (`GET /api/notes/live`, read as raw events over node:http by a
//      second process, subscribers.mjs, so their reading never stalls the writer's event loop),
//      in alternating rounds; the figure is the ratio of the medians (target ≥ 0.9);
//   2. commit-to-notification latency with S subscribers: one PATCH at a time; for each, the
//      time from sending the write to each subscriber's event, p50/p99 over every
//      (write, subscriber) pair. The commit happens inside that span, just before the event is
//      queued (events go out before the write's answer), so it bounds the commit-to-event time
//      from above; the write's own round trip is printed beside it.
//
//   npm run build && node bench/live/run.mjs [N=2000] [C=16] [S=100] [ROUNDS=3]
//
// Servers run on their own CPUs when there are two or more (bench/node-process.mjs). Prints
// figures; asserts nothing.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fork } from "node:child_process";
import { request, Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pinCpus, startNode, stopNode } from "../node-process.mjs";

const N = Number(process.argv[2] ?? 2000);
const C = Number(process.argv[3] ?? 16);
const S = Number(process.argv[4] ?? 100);
const ROUNDS = Number(process.argv[5] ?? 3);

const pinned = pinCpus();
const dir = mkdtempSync(join(tmpdir(), "wo-bench-live-"));
const app = join(dir, "live");
mkdirSync(app);
writeFileSync(join(app, "wo.toml"), 'name = "live"\n');
writeFileSync(
  join(app, "app.wo"),
  `type Note {
  id: Id
  title: Text
  rank: Int = 0
  service rest "/api/notes" expose list, get, create, update, subscribe
}
`,
);

const { child, url: base } = await startNode(
  "bin/wo.js",
  ["run", app, "--quiet", "--listen", "127.0.0.1:0"],
  /serving at (http:\/\/127\.0\.0\.1:\d+)/,
);
const writes = new Agent({ keepAlive: true, maxSockets: C });

function send(method, path, body) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      base + path,
      {
        method,
        agent: writes,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        let out = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (out += d));
        res.on("end", () =>
          res.statusCode < 300 ? resolve(out) : reject(new Error(`${method} ${path} ${res.statusCode} ${out}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** S live streams in a child process (bench/live/subscribers.mjs); resolves once all are open. */
async function subscribers() {
  const child = fork(join(import.meta.dirname, "subscribers.mjs"), [base, String(S)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = (question, key) =>
    new Promise((resolve) => {
      const onMessage = (msg) => {
        if (!(key in msg)) return;
        child.off("message", onMessage);
        resolve(msg[key]);
      };
      child.on("message", onMessage);
      if (question) child.send(question);
    });
  await ask(undefined, "ready");
  return {
    received: () => ask({ count: true }, "received"),
    latencies: () => ask({ latencies: true }, "latencies"),
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ stop: true });
      await exited;
    },
  };
}

/** The server's CPU time so far (user + system), in ms: /proc on Linux, else undefined. */
function serverCpuMs() {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime (fields 14 and 15 of the whole line) in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Server CPU ms per write of each round, by side: what the server itself pays for subscribers. */
const cpuPerWrite = { without: [], with: [] };

async function writeRound(side) {
  let next = 0;
  const cpuBefore = serverCpuMs();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        next++;
        await send("POST", "/api/notes", { title: "w" });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = serverCpuMs();
  if (side && cpuBefore !== undefined && cpuAfter !== undefined) cpuPerWrite[side].push((cpuAfter - cpuBefore) / N);
  return N / seconds;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

try {
  const without = [];
  const withSubs = [];
  let received = 0;
  // One round unmeasured, so neither side pays for the server's warm-up (JIT, page cache).
  await writeRound();
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first, so a drift over the run hits both alike.
    if (round % 2 === 0) without.push(await writeRound("without"));
    const subs = await subscribers();
    withSubs.push(await writeRound("with"));
    // Let the last events arrive before the streams close (they are counted, not timed).
    const until = Date.now() + 5_000;
    let got = 0;
    while ((got = await subs.received()) < N * S && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    received += got;
    await subs.stop();
    if (round % 2 === 1) without.push(await writeRound("without"));
  }

  // Latency: S subscribers, one write at a time, the send time carried in the row.
  const subs = await subscribers();
  const roundTrips = [];
  const first = JSON.parse(await send("POST", "/api/notes", { title: "target" })).id;
  const writesForLatency = Math.min(500, N);
  for (let i = 0; i < writesForLatency; i++) {
    const t0 = performance.now();
    await send("PATCH", `/api/notes/${first}`, { title: `lat ${performance.timeOrigin + t0}` });
    roundTrips.push(performance.now() - t0);
  }
  let latencies = [];
  const deadline = Date.now() + 10_000;
  while ((latencies = await subs.latencies()).length < writesForLatency * S && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await subs.stop();
  latencies.sort((a, b) => a - b);
  roundTrips.sort((a, b) => a - b);

  console.log(
    `bench/live: ${pinned}; ${N} creates per round, ${C} in flight, ${ROUNDS} rounds, ${S} subscribers (in a second process)`,
  );
  console.log(
    `  writes/s, no subscriber:      ${without.map((x) => x.toFixed(0)).join(", ")} (median ${median(without).toFixed(0)})`,
  );
  console.log(
    `  writes/s, ${S} subscribers:    ${withSubs.map((x) => x.toFixed(0)).join(", ")} (median ${median(withSubs).toFixed(0)}); events received ${received} of ${N * ROUNDS * S}`,
  );
  console.log(`  throughput ratio (with/without): ${(median(withSubs) / median(without)).toFixed(2)} (target ≥ 0.9)`);
  if (cpuPerWrite.with.length > 0) {
    // On a two-core machine the subscribers share the load generator's core, so the ratio above
    // also measures the clients; the server's CPU per write is what it pays itself.
    const [w0, w1] = [median(cpuPerWrite.without), median(cpuPerWrite.with)];
    console.log(
      `  server CPU per write: ${(w0 * 1000).toFixed(0)} µs without, ${(w1 * 1000).toFixed(0)} µs with ${S} subscribers (server-bound ratio ${(w0 / w1).toFixed(2)})`,
    );
  }
  console.log(
    `  write → notification, ${S} subscribers: p50 ${pct(latencies, 50)?.toFixed(2)} ms, p99 ${pct(latencies, 99)?.toFixed(2)} ms over ${latencies.length} of ${writesForLatency * S} (write round trip p50 ${pct(roundTrips, 50).toFixed(2)} ms, p99 ${pct(roundTrips, 99).toFixed(2)} ms)`,
  );
} finally {
  writes.destroy();
  await stopNode(child);
  rmSync(dir, { recursive: true, force: true });
}
