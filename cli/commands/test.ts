// `wo test [dir]`: run every `test "name" { … }` block of the app (any .wo file, e.g.
// tests/*.wo), each against a fresh store (a temporary SQLite file), in the style of node's
// test runner: `✔ name (12ms)`, `✖ name (3ms)` with the failure indented below it,
// `﹣ name # SKIP reason`, then `N passed, N failed[, N skipped]`. Exit 1 on any failure.
//
// A test fails when it aborts (a failed `assert` says `file:line` and, for a comparison, both
// values). A test wo cannot run (its body has an error, e.g. `as session`) is skipped with the
// reason, never counted as passed.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { testOperation } from "../../model/build-contract.js";
import { BuildLoadError, loadBuild } from "../../runtime/load-build.js";
import { createOperationRuntime } from "../../runtime/operations/runtime.js";
import { auditedEntryPoint } from "../../runtime/operations/bind.js";
import { openStore } from "../../runtime/store/open.js";
import type { ParsedArgs } from "./args.js";
import { buildIfStale } from "./run.js";

export async function runTestCommand(args: ParsedArgs): Promise<number> {
  const built = await buildIfStale(args.first ?? ".");
  for (const d of built.diagnostics.filter((d) => d.severity === "error"))
    process.stderr.write(`${formatWithSources(d, built.sources)}\n`);
  if (!built.ok) {
    process.stderr.write(`wo test: ${built.error ?? "the app has errors; fix them and run again"}.\n`);
    return 1;
  }
  let build;
  try {
    build = await loadBuild(built.outDir);
  } catch (err) {
    if (!(err instanceof BuildLoadError)) throw err;
    process.stderr.write(`wo test: ${err.message}\n`);
    return 1;
  }

  const counts = { passed: 0, failed: 0, skipped: 0 };
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const [index, test] of (build.catalog.tests ?? []).entries()) {
    if (test.skipped !== undefined) {
      counts.skipped++;
      out(`﹣ ${test.name} # SKIP ${test.skipped}`);
      continue;
    }
    const failure = await runOne(build, index);
    const ms = `(${failure.ms}ms)`;
    if (failure.message === undefined) {
      counts.passed++;
      out(`✔ ${test.name} ${ms}`);
    } else {
      counts.failed++;
      out(`✖ ${test.name} ${ms}`);
      out(`  ${failure.message}`);
    }
  }
  out(`${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`);
  return counts.failed > 0 ? 1 : 0;
}

/** One test on a store of its own; the message is undefined when it passed. */
async function runOne(
  build: Awaited<ReturnType<typeof loadBuild>>,
  index: number,
): Promise<{ ms: number; message?: string }> {
  const dir = mkdtempSync(join(tmpdir(), "wo-test-"));
  const started = performance.now();
  try {
    // A fresh SQLite file per test, whatever wo.toml's [database] says.
    const { store } = await openStore({
      appDir: dir,
      db: join(dir, "test.sqlite"),
      config: { dataDir: dir },
      catalog: build.catalog,
    });
    try {
      const log = (line: string) => void process.stderr.write(`wo: ${line}\n`);
      const rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log });
      const name = testOperation(index);
      // As the owner ($session.user and .role are null), like every call of the test's surface.
      await auditedEntryPoint(name, build.operations.createOperations(rt)[name]!, rt, log)({}, { surface: "test" });
      return { ms: Math.round(performance.now() - started) };
    } catch (err) {
      return { ms: Math.round(performance.now() - started), message: (err as Error).message };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
