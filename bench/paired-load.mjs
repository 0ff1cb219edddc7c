// Throughput ratios measured in pairs: two servers loaded at the same time while they share the
// servers' CPU (bench/node-process.mjs pins them), so whatever the machine does during a round
// it does to both. Measured one after the other instead, a ratio near 1 drifted by ±20% from
// round to round on a shared VM, and a fast server could be held back by the load generator
// itself (autocannon tops out near 45k req/s on one core), which flattered the slower case.
//
// A pair can be served in more than one arrangement (the same two cases on two identical
// server processes, each taking each role in turn): rounds cycle through them, and alternate
// which load starts first, so neither a process nor a start order is favoured.
import autocannon from "autocannon";

async function load(opts, duration, connections) {
  const r = await autocannon({ connections, duration, pipelining: 1, ...opts });
  if (r.non2xx > 0 || r.errors > 0 || r.requests.total === 0)
    throw new Error(`${opts.method ?? "GET"} ${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.total;
}

/**
 * b's throughput over a's, once per round. `arrangements` is a list of [a, b] pairs of
 * autocannon options that serve the same two cases.
 */
export async function pairedRatios(arrangements, { rounds, duration, connections }) {
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    const [a, b] = arrangements[round % arrangements.length];
    const bFirst = Math.floor(round / arrangements.length) % 2 === 1;
    const [na, nb] = bFirst
      ? await Promise.all([load(b, duration, connections), load(a, duration, connections)]).then(([x, y]) => [y, x])
      : await Promise.all([load(a, duration, connections), load(b, duration, connections)]);
    ratios.push(nb / na);
  }
  return ratios;
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
