// One bench's headline figures, for `npm run bench` (bench/run.mjs): each bench calls
// `summarize(name, rows)` once at the end with rows of [measure, goal, now, rounds]. When
// WO_BENCH_SUMMARY names a file (bench/run.mjs sets it), the rows are appended to it as one JSON
// line; a bench run on its own just prints its own output as before.

import { appendFileSync } from "node:fs";

/** Appends `{ bench, rows }` to $WO_BENCH_SUMMARY, when it is set. Cells are strings. */
export function summarize(bench, rows) {
  const file = process.env.WO_BENCH_SUMMARY;
  if (!file) return;
  const cells = rows.map((r) => r.map((c) => String(c)));
  appendFileSync(file, `${JSON.stringify({ bench, rows: cells })}\n`);
}

/** A markdown table: `| a | b |` lines with a rule under the header. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
