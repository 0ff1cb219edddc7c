// Build bench: full `buildApp` of the synthetic 1,000-type app (bench/compile/synthetic.mjs)
// and a no-op rebuild (up to date), from dist/ (run `npm run build` first).
// Each figure is measured in a fresh process, as `wo build` runs, so module loading counts.
// Targets (issue 3): full build < 10 s, no-op rebuild < 0.5 s.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIELDS, FILES, TYPES, writeSyntheticApp } from "./synthetic.mjs";

const RUNS = 3;
const self = fileURLToPath(import.meta.url);

if (process.argv[2] === "--one") {
  // Child: one build, printing its wall time (from process start) and what it did.
  const [, , , dir, force] = process.argv;
  const { buildApp } = await import("../../dist/compiler/build.js");
  const r = await buildApp(dir, { force: force === "force" });
  if (!r.ok) {
    console.error(r.error ?? r.diagnostics.find((d) => d.severity === "error")?.message);
    process.exit(1);
  }
  const ms = performance.now(); // since process start: includes loading wo
  const cpu = process.cpuUsage();
  const cpuMs = (cpu.user + cpu.system) / 1000; // what the build costs regardless of other load
  console.log(
    JSON.stringify({
      ms,
      cpuMs,
      skipped: r.skipped,
      tools: r.summary?.tools,
      rssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
  process.exit(0);
}

function run(dir, force) {
  return JSON.parse(execFileSync(process.execPath, [self, "--one", dir, force ? "force" : ""], { encoding: "utf8" }));
}

const dir = mkdtempSync(join(tmpdir(), "wo-bench-build-"));
try {
  writeSyntheticApp(dir);
  run(dir, true); // warm the file system cache
  const full = [];
  const noop = [];
  let last;
  for (let i = 0; i < RUNS; i++) full.push((last = run(dir, true)));
  for (let i = 0; i < RUNS; i++) noop.push(run(dir, false));
  if (noop.some((r) => !r.skipped)) throw new Error("a no-op rebuild did not skip");
  const out = join(dir, ".wo", "build");
  const sizes = readdirSync(out).map((f) => [f, statSync(join(out, f)).size]);
  const med = (xs, k = "ms") => xs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`build bench: ${TYPES} types × ${FIELDS} fields in ${FILES} files, ${last.tools} tools`);
  console.log(
    `  full build (fresh process): median ${med(full).toFixed(0)} ms, best ${Math.min(...full.map((r) => r.ms)).toFixed(0)} ms (target < 10000 ms), CPU median ${med(full, "cpuMs").toFixed(0)} ms, peak RSS ${Math.max(...full.map((r) => r.rssMb)).toFixed(0)} MB`,
  );
  console.log(
    `  no-op rebuild (fresh process): median ${med(noop).toFixed(0)} ms, best ${Math.min(...noop.map((r) => r.ms)).toFixed(0)} ms (target < 500 ms), CPU median ${med(noop, "cpuMs").toFixed(0)} ms`,
  );
  console.log(
    `  load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} cores`,
  );
  console.log(`  output: ${sizes.map(([f, s]) => `${f} ${(s / 1024).toFixed(0)} KiB`).join(", ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
