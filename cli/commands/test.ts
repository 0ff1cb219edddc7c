// `wo test [dir]`: run every `test "name" { … }` block of the app (any .wo file, e.g.
// tests/*.wo; for a workspace root, the root's tests against its shared folders, then each
// app's own: spec/language.md "Workspaces"), each against a fresh store (a temporary SQLite file), in the style of node's
// test runner: `✔ name (12ms)`, `✖ name (3ms)` with the failure indented below it,
// `﹣ name # SKIP reason`, then `N passed, N failed[, N skipped]`. Exit 1 on any failure.
//
// Each test runs on the same runtime instance `wo run` assembles (runtime/instance.ts), as the
// owner. A test fails when it aborts (a failed `assert` says `file:line` and, for a comparison, both
// values). A test wo cannot run (its body has an error, e.g. `as session`) is skipped with the
// reason, never counted as passed.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workspaceAppsOf } from "../../compiler/check/layout.js";
import { testOperation } from "../../model/build-contract.js";
import { ownerPrincipal } from "../../model/principal.js";
import { createRuntimeInstance } from "../../runtime/instance.js";
import type { LoadedBuild } from "../../runtime/load-build.js";
import { openStore } from "../../runtime/store/open.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

export async function runTestCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const build = await loadAppBuild(dir, "test", { workspace: "allow" });
  if (build === 1) return 1;
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const out = (line: string) => process.stdout.write(`${line}\n`);
  await runTests(build, counts, out);
  // A workspace root: its tests ran against the shared program; then each app's own, if any.
  for (const app of workspaceAppsOf(dir) ?? []) {
    const appDir = join(dir, app).split("\\").join("/");
    const appBuild = await loadAppBuild(appDir, "test");
    if (appBuild === 1) {
      counts.failed++;
      out(`✖ ${appDir}: not built (its errors are above)`);
    } else if ((appBuild.catalog.tests ?? []).length > 0) {
      out(`${appDir}:`);
      await runTests(appBuild, counts, out);
    }
  }
  out(`${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`);
  return counts.failed > 0 ? 1 : 0;
}

/** Every test of `build`, each on a store of its own, counted into `counts`. */
async function runTests(
  build: LoadedBuild,
  counts: { passed: number; failed: number; skipped: number },
  out: (line: string) => void,
): Promise<void> {
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
}

/** One test on a store of its own; the message is undefined when it passed. */
async function runOne(build: LoadedBuild, index: number): Promise<{ ms: number; message?: string }> {
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
      const instance = await createRuntimeInstance({ build, store, log });
      try {
        await instance.binding.operations[testOperation(index)]!({}, { principal: ownerPrincipal, surface: "test" });
      } finally {
        instance.close();
      }
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
