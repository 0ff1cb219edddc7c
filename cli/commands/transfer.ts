// `wo export [dir] [--db …] > app.jsonl` and `wo import [dir] [--db …] < app.jsonl`
// (spec/operations.md, "Export and import"): the app's build (built if stale, as for wo run),
// its store, and runtime/transfer/ doing the work.
//
// Export opens the store read-only (runtime/store/reader.ts): no data-folder lock and no
// migration, so it runs while `wo run` serves. Import opens the store as a writer, as wo run
// does (the lock: refused while wo run serves a SQLite folder).

import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createInputAjv } from "../../compiler/input-ajv.js";
import type { Validator } from "../../model/build-contract.js";
import { StoreOpenError } from "../../model/store.js";
import { BuildLoadError, type LoadedBuild } from "../../runtime/load-build.js";
import { createOperationRuntime } from "../../runtime/operations/runtime.js";
import { openStore } from "../../runtime/store/open.js";
import { openStoreReader, type StoreReader } from "../../runtime/store/reader.js";
import { writeExport } from "../../runtime/transfer/export.js";
import { ImportError, importRows } from "../../runtime/transfer/import.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

export async function runExportCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const build = await loadAppBuild(dir, "export");
  if (typeof build === "number") return build;
  const db = args.value("--db");
  const selection = { appDir: resolve(dir), ...(db !== undefined ? { db } : {}), config: build.catalog.config };
  let reader: StoreReader;
  try {
    reader = await openStoreReader({ ...selection, catalog: build.catalog });
  } catch (err) {
    if (err instanceof StoreOpenError) return fail("export", err.message);
    throw err;
  }
  try {
    const counts = await reader.read((tx) => writeExport(build.catalog, tx, process.stdout));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    process.stderr.write(`wo export: ${total} ${total === 1 ? "row" : "rows"}${summary(counts)}\n`);
    return 0;
  } finally {
    await reader.close();
  }
}

export async function runImportCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const build = await loadAppBuild(dir, "import");
  if (typeof build === "number") return build;
  const db = args.value("--db");
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
    if (err instanceof StoreOpenError) return fail("import", err.message);
    throw err;
  }
  try {
    const rowValidators = await compileRowValidators(build);
    const log = (line: string) => void process.stderr.write(`wo: ${line}\n`);
    const rt = createOperationRuntime({
      catalog: build.catalog,
      store,
      validators: { ...build.validators, ...rowValidators },
      log,
    });
    // The iterator is made now, before the first await: readline drops the lines (and the end)
    // it emits while no iterator listens, and the input could be read whole meanwhile.
    const reader = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    const iterator = reader[Symbol.asyncIterator]();
    const lines = { [Symbol.asyncIterator]: () => iterator };
    const counts = await importRows({ catalog: build.catalog, store, rt, rowValidator: rowValidatorName, lines });
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`imported ${total} ${total === 1 ? "row" : "rows"}${summary(counts)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ImportError) return fail("import", `${err.message}; nothing was imported.`);
    throw err;
  } finally {
    await store.close();
  }
}

/** `: Author 3, Post 117`: the types that had rows. */
function summary(counts: Map<string, number>): string {
  const parts = [...counts].filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
  return parts.length > 0 ? `: ${parts.join(", ")}` : "";
}

const rowValidatorName = (table: string) => `wo-import:${table}`;

/**
 * A validator per table for a whole stored row, from the build's row schemas (schemas.json),
 * compiled with the ajv the build compiles its input validators with; unknown keys refused.
 */
async function compileRowValidators(build: LoadedBuild): Promise<Record<string, Validator>> {
  const file = join(build.dir, "schemas.json");
  const schemas = JSON.parse(await readFile(file, "utf8")) as { rows: Record<string, Record<string, unknown>> };
  const ajv = createInputAjv({ standalone: false });
  const out: Record<string, Validator> = {};
  for (const t of build.catalog.types) {
    const schema = schemas.rows[t.snake];
    if (!schema) throw new BuildLoadError(`${file} has no row schema of ${t.name}; run \`wo build\` again.`);
    out[rowValidatorName(t.table)] = ajv.compile({ ...schema, additionalProperties: false }) as Validator;
  }
  return out;
}

/** The app's build (built first when stale), or the exit code after saying why not. */
function fail(command: string, message: string): number {
  process.stderr.write(`wo ${command}: ${message}\n`);
  return 1;
}
