// `wo exec [dir] [--db PATH]`: run the program's `main { … }` block once against the app's
// store, in one write transaction, with `print(…)` writing to stdout.
//
// Same build and store as `wo run` (build if stale; the data folder's single-writer lock, so a
// running `wo run` makes this refuse with the lock's message). An `abort` or runtime error in
// `main` rolls everything back and exits 1 with the message.

import { resolve } from "node:path";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { mainOperation } from "../../model/build-contract.js";
import { BuildLoadError, loadBuild } from "../../runtime/load-build.js";
import { createOperationRuntime } from "../../runtime/operations/runtime.js";
import { auditedEntryPoint } from "../../runtime/operations/bind.js";
import { openStore } from "../../runtime/store/open.js";
import { StoreOpenError } from "../../model/store.js";
import type { ParsedArgs } from "./args.js";
import { buildIfStale } from "./run.js";

export async function runExecCommand(args: ParsedArgs): Promise<number> {
  const db = args.value("--db");
  const dir = args.first ?? ".";

  const built = await buildIfStale(dir);
  for (const d of built.diagnostics.filter((d) => d.severity === "error"))
    process.stderr.write(`${formatWithSources(d, built.sources)}\n`);
  if (!built.ok) return fail(`${built.error ?? "the app has errors; fix them and run again"}.`, 1);

  let build;
  try {
    build = await loadBuild(built.outDir);
  } catch (err) {
    if (err instanceof BuildLoadError) return fail(err.message, 1);
    throw err;
  }
  if (!build.catalog.main) {
    return fail("the app has no 'main' block that runs (wo check says why when there is one).", 1);
  }
  let store;
  try {
    store = (
      await openStore({
        appDir: resolve(dir),
        ...(db !== undefined ? { db } : {}),
        config: build.catalog.config,
        catalog: build.catalog,
      })
    ).store;
  } catch (err) {
    if (err instanceof StoreOpenError) return fail(err.message, 1);
    throw err;
  }
  try {
    const log = (line: string) => void process.stderr.write(`wo: ${line}\n`);
    const rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log });
    // As the owner, recorded in the audit trail like a write (spec/operations.md, "Audit trail").
    const run = auditedEntryPoint(mainOperation, build.operations.createOperations(rt)[mainOperation]!, rt, log);
    await run({}, { surface: "exec" });
    return 0;
  } catch (err) {
    return fail(`main aborted: ${(err as Error).message}`, 1);
  } finally {
    await store.close();
  }
}

function fail(message: string, code: number): number {
  process.stderr.write(`wo exec: ${message}\n`);
  return code;
}
