// `wo backup` and `wo restore` for the SQLite store (spec/operations.md, "Backup and restore").
//
// Backup: SQLite's online backup API (better-sqlite3's db.backup) on a connection of its own,
// read-only and without the data-folder lock, so it runs while `wo run` serves. The pages are
// copied in one step: one step is one read transaction, so the copy is one committed state
// holding every write acknowledged before it began (several smaller steps would restart from
// the beginning whenever the server commits in between). The copy is written beside the
// destination and renamed over it once checked, so a failed backup never leaves half a file.
//
// Restore: refused unless the data-folder lock is free (no `wo run`, `wo exec`, `wo import` on
// it); the file is checked to be a wo database first; the database it replaces is kept beside
// it (`app.sqlite.before-restore`, with its -wal), never deleted.

import { copyFileSync, existsSync, fsyncSync, openSync, closeSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { openSqliteFile } from "./connection.js";
import { parseStoredShape } from "../../model/shape-diff.js";
import { metaTable } from "../../model/storage-shape.js";
import { StoreOpenError } from "../../model/store.js";
import { quoteId } from "./ddl.js";
import { acquireDataLock } from "./lock.js";

export interface BackupReport {
  file: string;
  pages: number;
  bytes: number;
}

/** Copies the database `source` to `destination` (replacing it) while others may write to it. */
export async function backupSqlite(source: string, destination: string): Promise<BackupReport> {
  const from = resolve(source);
  const to = resolve(destination);
  if (!existsSync(from)) throw new StoreOpenError(`There is no database at ${from} to back up.`);
  if (to === from) throw new StoreOpenError(`The backup must go to another file than the database ${from}.`);
  if (!existsSync(dirname(to))) throw new StoreOpenError(`The folder ${dirname(to)} does not exist.`);
  const partial = join(dirname(to), `.${basename(to)}.partial-${process.pid}`);
  rmSync(partial, { force: true });
  const db = openSqliteFile(from, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // After the first (empty) step, every remaining page in one step: one snapshot.
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    // The copy keeps the source's WAL mode in its header; a backup is one file on its own.
    const copy = openSqliteFile(partial);
    try {
      copy.pragma("journal_mode = DELETE");
    } finally {
      copy.close();
    }
    checkWoDatabase(partial, to);
    syncFile(partial);
    renameSync(partial, to);
    syncFile(dirname(to));
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    return { file: to, pages: progress.totalPages, bytes: progress.totalPages * pageSize };
  } catch (err) {
    rmSync(partial, { force: true });
    if (err instanceof StoreOpenError) throw err;
    throw new StoreOpenError(`Could not back up ${from} to ${to}: ${(err as Error).message}.`);
  } finally {
    db.close();
  }
}

/**
 * Replaces the database `target` (in its data folder) with the backup `backup`. Refused while
 * another wo process holds the folder. Resolves with where the replaced database was kept.
 */
export function restoreSqlite(backup: string, target: string): { keptAs?: string } {
  const from = resolve(backup);
  const to = resolve(target);
  if (!existsSync(from)) throw new StoreOpenError(`There is no file ${from} to restore.`);
  checkWoDatabase(from, from);
  const lock = acquireDataLock(dirname(to));
  try {
    const incoming = join(dirname(to), `.${basename(to)}.restoring-${process.pid}`);
    copyFileSync(from, incoming);
    syncFile(incoming);
    let keptAs: string | undefined;
    if (existsSync(to)) {
      keptAs = `${to}.before-restore`;
      for (const suffix of ["-wal", "-shm"]) rmSync(`${keptAs}${suffix}`, { force: true });
      renameSync(to, keptAs);
      // The old database's log belongs to it: kept with it (SQLite finds it by name).
      for (const suffix of ["-wal", "-shm"])
        if (existsSync(`${to}${suffix}`)) renameSync(`${to}${suffix}`, `${keptAs}${suffix}`);
    }
    renameSync(incoming, to);
    syncFile(dirname(to));
    return keptAs !== undefined ? { keptAs } : {};
  } finally {
    lock.release();
  }
}

/** Throws StoreOpenError unless `file` is a whole SQLite database that wo wrote. */
export function checkWoDatabase(file: string, name: string): void {
  let db: Database.Database | undefined;
  try {
    db = openSqliteFile(file, { readonly: true, fileMustExist: true });
    const check = (db.pragma("quick_check(1)") as { quick_check: string }[])[0]?.quick_check;
    if (check !== "ok") throw new StoreOpenError(`${name} is damaged (${check}); it is not restored.`);
    const hasMeta = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(metaTable);
    if (!hasMeta) throw new StoreOpenError(`${name} is a SQLite database, but not one of wo (no ${metaTable} table).`);
    const row = db.prepare(`SELECT "value" FROM ${quoteId(metaTable)} WHERE "key" = 'shape'`).get() as
      | { value: string }
      | undefined;
    parseStoredShape(row?.value, name);
  } catch (err) {
    if (err instanceof StoreOpenError) throw err;
    throw new StoreOpenError(`${name} is not a SQLite database wo can read (${(err as Error).message}).`);
  } finally {
    db?.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
