// `wo migrate [dir] [--plan | --apply] [--db PATH|URL] [--allow-destructive-migration] [--json]`:
// the migration the next `wo run` would make to the app's store, to read before it runs.
//
// --plan (the default) builds the app if stale, then runs the migration in a transaction that
// it rolls back (runtime/store/open.ts planStoreMigration): each change in words, marked by
// severity, the statements in the chosen database's SQL with the rows each touched, and
// whether `wo run` would apply it or refuse it. Exit 0 when it would apply (or there is
// nothing to do), 1 when it would refuse. --apply migrates the store as `wo run` does at
// start, without serving, and reports what it changed. Both take the data folder's lock on
// SQLite, so neither runs beside a `wo run` of the same data (the lock's message says so).

import { resolve } from "node:path";
import { openStore, planStoreMigration, storeLocation } from "../../runtime/store/open.js";
import { StoreOpenError, type MigrationPlan } from "../../model/store.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

const marks = { additive: "+", destructive: "!", blocked: "×" } as const;
const why = {
  additive: "",
  destructive: " (destructive: applied only with --allow-destructive-migration)",
  blocked: " (blocked: the stored data does not allow it)",
} as const;

export async function runMigrateCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const db = args.value("--db");
  const allowDestructiveMigration = args.has("--allow-destructive-migration");
  const json = args.has("--json");
  if (args.has("--plan") && args.has("--apply")) return fail("give --plan or --apply, not both.");

  const build = await loadAppBuild(dir, "migrate");
  if (build === 1) return 1;
  const options = {
    appDir: resolve(dir),
    ...(db !== undefined ? { db } : {}),
    config: build.catalog.config,
    catalog: build.catalog,
    allowDestructiveMigration,
  };
  try {
    if (args.has("--apply")) {
      const { store, migration, description } = await openStore(options);
      await store.close();
      if (json) process.stdout.write(`${JSON.stringify({ where: description, applied: migration.applied })}\n`);
      else if (migration.applied.length === 0)
        process.stdout.write(`wo migrate: ${description} already had this shape; nothing changed.\n`);
      else {
        process.stdout.write(`wo migrate: applied to ${description}:\n`);
        for (const change of migration.applied) process.stdout.write(`  ${change}\n`);
      }
      return 0;
    }
    const plan = await planStoreMigration(options);
    const dialect = storeLocation(options).kind === "postgres" ? "PostgreSQL" : "SQLite";
    process.stdout.write(json ? `${JSON.stringify(plan)}\n` : planText(plan, dialect));
    return plan.refusal === undefined ? 0 : 1;
  } catch (err) {
    // A refused --apply, a folder in use, a database out of reach: the message says which.
    if (err instanceof StoreOpenError) return fail(err.message);
    throw err;
  }
}

/** The plan as a person reads it. */
export function planText(plan: MigrationPlan, dialect: string): string {
  if (plan.changes.length === 0) return `wo migrate: ${plan.where} already has this shape; wo run changes nothing.\n`;
  const lines = [`wo migrate: the next wo run would change ${plan.where}:`];
  for (const c of plan.changes) lines.push(`  ${marks[c.severity]} ${c.text}${why[c.severity]}`);
  if (plan.statements.length > 0) {
    lines.push(`${dialect} it would run, in one transaction:`);
    for (const s of plan.statements)
      lines.push(`  ${s.sql};${s.rows !== undefined ? `  -- ${s.rows} row${s.rows === 1 ? "" : "s"}` : ""}`);
  }
  lines.push(
    plan.refusal === undefined
      ? "wo run would apply this (wo migrate --apply applies it now, without serving)."
      : `wo run would refuse this and change nothing:\n${plan.refusal}`,
  );
  return `${lines.join("\n")}\n`;
}

function fail(message: string): number {
  process.stderr.write(`wo migrate: ${message}\n`);
  return 1;
}
