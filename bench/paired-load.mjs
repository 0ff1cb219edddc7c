// Throughput ratios measured in pairs: two servers loaded at the same time while they share the
// servers' CPU (bench/node-process.mjs pins them), so whatever the machine does during a round
// it does to both. Measured one after the other instead, a ratio near 1 drifted by ±20% from
// round to round on a shared VM, and a fast server could be held back by the load generator
// itself (autocannon tops out near 45k req/s on one core), which flattered the slower case.
//
// A pair can be served in more than one arrangement (the same two cases on two identical
// server processes, each taking each role in turn): rounds cycle through them, and alternate
// which load starts first, so neither a process nor a start order is favoured.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

async function load(opts, duration, connections) {
  const { pid, ...autocannonOpts } = opts;
  const r = await autocannon({ connections, duration, pipelining: 1, ...autocannonOpts });
  if (r.non2xx > 0 || r.errors > 0 || r.requests.total === 0)
    throw new Error(`${opts.method ?? "GET"} ${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.total;
}

/**
 * b's throughput over a's, once per round. `arrangements` is a list of [a, b] pairs of
 * autocannon options that serve the same two cases.
 */
export async function pairedRatios(arrangements, options) {
  return (await pairedRounds(arrangements, options)).map((r) => r.ratio);
}

/**
 * The rounds of pairedRatios, each with b's throughput over a's (`ratio`) and, when both sides
 * name their server's process (`pid`, Linux), each server's CPU time per request in µs
 * (`cpu`: [a, b]) and b's over a's (`cpuRatio`). Both servers are loaded at the same time, so a
 * busy spell of the machine falls on both sides of a round's CPU ratio as it does on its
 * throughput ratio.
 */
export async function pairedRounds(arrangements, { rounds, duration, connections }) {
  const out = [];
  for (let round = 0; round < rounds; round++) {
    const [a, b] = arrangements[round % arrangements.length];
    const bFirst = Math.floor(round / arrangements.length) % 2 === 1;
    const withCpu = a.pid !== undefined && b.pid !== undefined;
    const before = withCpu ? [cpuMicros(a.pid), cpuMicros(b.pid)] : undefined;
    const [na, nb] = bFirst
      ? await Promise.all([load(b, duration, connections), load(a, duration, connections)]).then(([x, y]) => [y, x])
      : await Promise.all([load(a, duration, connections), load(b, duration, connections)]);
    const r = { ratio: nb / na };
    if (before) {
      r.cpu = [(cpuMicros(a.pid) - before[0]) / na, (cpuMicros(b.pid) - before[1]) / nb];
      r.cpuRatio = r.cpu[1] / r.cpu[0];
    }
    out.push(r);
  }
  return out;
}

/** CPU time (user + system, all threads) process `pid` has used so far, in µs: Linux /proc, in clock ticks of 10 ms. */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export function median(values) {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
}

/**
 * The ratio that pairedRatios' rounds stand for: the median of each arrangement's rounds,
 * then their geometric mean, so an arrangement that favours one side is cancelled by the one
 * that favours the other instead of deciding which half the median falls in.
 */
export function pairedRatio(ratios, arrangementCount) {
  const medians = Array.from({ length: arrangementCount }, (_, k) =>
    median(ratios.filter((_, round) => round % arrangementCount === k)),
  );
  return Math.exp(medians.reduce((sum, m) => sum + Math.log(m), 0) / medians.length);
}
