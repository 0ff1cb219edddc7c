// Compile bench: the synthetic app of 1,000 types × 10 fields in 100 files (synthetic.mjs,
// shared with build.mjs), checked with checkApp() from dist/ (run `npm run build` first, or
// `npm run bench:compile`).
// Prints the check time (best and median of several runs after a warm-up) and peak RSS.
// Targets (issue 2): under 1 s and under 200 MB.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkApp } from "../../dist/compiler/index.js";
import { FIELDS, FILES, TYPES, writeSyntheticApp } from "./synthetic.mjs";

const RUNS = 5;

const dir = mkdtempSync(join(tmpdir(), "wo-bench-compile-"));
try {
  writeSyntheticApp(dir);

  const warm = await checkApp(dir);
  const errors = warm.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !warm.catalog) {
    console.error(`bench app does not check clean: ${errors.length} errors, first: ${errors[0]?.message}`);
    process.exit(1);
  }

  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const start = process.hrtime.bigint();
    await checkApp(dir);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(`compile bench: ${TYPES} types × ${FIELDS} fields in ${FILES} files`);
  console.log(
    `  checkApp: best ${times[0].toFixed(0)} ms, median ${times[Math.floor(RUNS / 2)].toFixed(0)} ms (target < 1000 ms)`,
  );
  console.log(`  peak RSS: ${peakMb.toFixed(0)} MB (target < 200 MB)`);
  console.log(`  catalog: ${warm.catalog.types.length} types, ${warm.summary.tools} tools`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
