// `wo backup <file> [dir] [--db …]` and `wo restore <file> [dir] [--db …]` (spec/operations.md,
// "Backup and restore"): where the app's SQLite database is (as for wo run), and
// runtime/store/backup.ts doing the work. On PostgreSQL wo does not run pg_dump itself: its
// version must match the server's, and the password would have to be handed to it; the
// message says what to run instead.

import { resolve } from "node:path";
import { StoreOpenError } from "../../model/store.js";
import { backupSqlite, restoreSqlite } from "../../runtime/store/backup.js";
import { storeLocation, type StoreLocation } from "../../runtime/store/open.js";
import { redactUrl } from "../../runtime/store/postgres/redact-url.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

export async function runBackupCommand(args: ParsedArgs): Promise<number> {
  const located = await locate(args, "backup");
  if (typeof located === "number") return located;
  const { location, file } = located;
  if (location.kind === "postgres") {
    return fail(
      "backup",
      `the database is PostgreSQL (${redactUrl(location.url)}); back it up with PostgreSQL's own tools, e.g. \`pg_dump --format=custom --file ${file} <database>\` (and pg_restore), with the pg_dump of the server's version.`,
    );
  }
  try {
    const report = await backupSqlite(location.file, file);
    process.stdout.write(`backed up ${location.file} to ${report.file} (${report.bytes} bytes)\n`);
    return 0;
  } catch (err) {
    if (err instanceof StoreOpenError) return fail("backup", err.message);
    throw err;
  }
}

export async function runRestoreCommand(args: ParsedArgs): Promise<number> {
  const located = await locate(args, "restore");
  if (typeof located === "number") return located;
  const { location, file } = located;
  if (location.kind === "postgres")
    return fail(
      "restore",
      `the database is PostgreSQL (${redactUrl(location.url)}); restore a pg_dump with pg_restore.`,
    );
  try {
    const { keptAs } = restoreSqlite(file, location.file);
    const kept = keptAs ? `; the database it replaced is kept as ${keptAs}` : "";
    process.stdout.write(`restored ${resolve(file)} into ${location.file}${kept}\n`);
    return 0;
  } catch (err) {
    if (err instanceof StoreOpenError) return fail("restore", err.message);
    throw err;
  }
}

/** The backup file and the app's database (from its build's wo.toml, or --db). */
async function locate(args: ParsedArgs, command: string): Promise<{ location: StoreLocation; file: string } | number> {
  const file = args.positionals[0]!;
  const dir = args.positionals[1] ?? ".";
  const build = await loadAppBuild(dir, command);
  if (build === 1) return 1;
  const config = build.catalog.config;
  const db = args.value("--db");
  try {
    return { location: storeLocation({ appDir: resolve(dir), ...(db !== undefined ? { db } : {}), config }), file };
  } catch (err) {
    if (err instanceof StoreOpenError) return fail(command, err.message);
    throw err;
  }
}

function fail(command: string, message: string): number {
  process.stderr.write(`wo ${command}: ${message}\n`);
  return 1;
}
