// "Did you mean …?" suggestions for misspelt names: expose entries, type references, field
// names (in expressions, insert/set, backlinks, @table indexes), names in method bodies —
// and the CLI's commands and flags.
//
// Owns: picking the closest candidate by edit distance. Leaves the wording to codes.ts.

/** The closest candidate within a small edit distance, or undefined. Ties keep list order. */
export function closestMatch(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** " Did you mean 'x'?" or "" — the `hint` parameter of messages that take one. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = closestMatch(name, candidates);
  return match === undefined ? "" : ` Did you mean '${match}'?`;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
