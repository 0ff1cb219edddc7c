// `npm run bench [-- --only rest,mcp]`: every bench, one after the other (they load the machine
// in turn, never at once), each one's own output kept in a log, then one table of the headline
// figures every bench reported through bench/summary.mjs: bench | measure | goal | now | rounds.
// A bench that fails is named in the table; the others still run.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { table } from "./summary.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Cheapest first, so a run cut short still has figures.
const benches = [
  "compile",
  "rest",
  "mcp",
  "identity",
  "methods",
  "live",
  "postgres",
  "policies",
  "telemetry",
  "rate-limits",
];
const onlyArg = process.argv.indexOf("--only");
const only = onlyArg >= 0 ? process.argv[onlyArg + 1]?.split(",") : undefined;
const chosen = benches.filter((b) => existsSync(join(root, "bench", b, "run.mjs")) && (!only || only.includes(b)));

const work = mkdtempSync(join(tmpdir(), "wo-bench-"));
const summaryFile = join(work, "summary.jsonl");
writeFileSync(summaryFile, "");
const failed = [];
try {
  for (const name of chosen) {
    const log = join(root, "bench", ".out", `${name}.log`);
    mkdirSync(dirname(log), { recursive: true });
    process.stderr.write(`bench: ${name} … (output in ${log})\n`);
    const started = performance.now();
    const r = spawnSync(process.execPath, [join(root, "bench", name, "run.mjs")], {
      cwd: root,
      env: { ...process.env, WO_BENCH_SUMMARY: summaryFile },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(log, `${r.stdout ?? ""}${r.stderr ?? ""}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    if (r.status !== 0) failed.push(name);
    process.stderr.write(`bench: ${name} ${r.status === 0 ? "done" : `FAILED (exit ${r.status})`} in ${seconds} s\n`);
  }
  const rows = [];
  for (const text of readFileSync(summaryFile, "utf8").split("\n").filter(Boolean)) {
    const { bench, rows: reported } = JSON.parse(text);
    for (const r of reported) rows.push([bench, ...r]);
  }
  for (const name of failed) rows.push([name, "(the bench failed: see its log)", "", "", ""]);
  console.log(
    `\nwo benches, Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)} at the end\n`,
  );
  console.log(table(["bench", "measure", "goal", "now", "rounds"], rows));
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed.length > 0 ? 1 : 0;
