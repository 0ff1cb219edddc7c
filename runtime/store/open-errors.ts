// Why the SQLite store could not be opened: the operating system's and SQLite's failures put
// in words for the person running `wo run`, as StoreOpenErrors (model/store.ts).

import { dirname } from "node:path";
import { StoreOpenError } from "../../model/store.js";

/**
 * What a failure of the operating system or of SQLite while opening, checking or migrating
 * `file` means for the person running wo: which file, what is wrong with it, how to fix it.
 * Failures it has no words for are returned unchanged (they are bugs).
 */
export function explainOpenFailure(err: unknown, file: string): unknown {
  if (err instanceof StoreOpenError) return err;
  const code = String((err as { code?: unknown })?.code ?? "");
  const detail = (err as Error)?.message ?? String(err);
  const dir = dirname(file);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return folderNotWritable(dir, code);
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return databaseDamaged(file, detail);
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code.startsWith("SQLITE_PERM") ||
    code.startsWith("SQLITE_AUTH")
  ) {
    return new StoreOpenError(
      `Cannot open the database ${file} for reading and writing (SQLite: ${detail}). The user running wo must be able to write the file and to create files next to it: e.g. \`chmod u+w ${file}\` and \`chmod u+w ${dir}\`.`,
    );
  }
  if (code.startsWith("SQLITE_FULL")) {
    return new StoreOpenError(
      `The database ${file} could not be opened: the disk is full (SQLite: ${detail}). Free some space and start again.`,
    );
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new StoreOpenError(
      `Reading or writing the database ${file} failed (SQLite: ${detail}, ${code}). Check the disk it is on.`,
    );
  }
  return err;
}

/** wo cannot create the data folder, or files in it. */
export function folderNotWritable(dir: string, code: string): StoreOpenError {
  return new StoreOpenError(
    `The data folder ${dir} cannot be written (${code}): wo keeps its lock file there, and SQLite creates the database's -wal and -shm files next to it. Make it writable by the user running wo (e.g. \`chmod u+w ${dir}\`), or choose another folder with --db.`,
  );
}

/** The file is not a SQLite database, or SQLite finds it damaged (`detail` says how). */
export function databaseDamaged(file: string, detail: string): StoreOpenError {
  return new StoreOpenError(
    `The database ${file} is not a SQLite database or is damaged (SQLite: ${detail}). Restore it from a backup, or move it away together with its -wal and -shm files to start with an empty database.`,
  );
}

/** A database file (or its -wal or -shm) exists but this process may not write it. */
export function databaseReadOnly(file: string, code: string): StoreOpenError {
  return new StoreOpenError(
    `The database file ${file} is read-only for the user running wo (${code}), so every write would fail. Make it writable (e.g. \`chmod u+w ${file}\`, or give it to that user with chown), or choose another folder with --db.`,
  );
}

/** Another live process holds the data folder (lock.ts). */
export class DataLockError extends StoreOpenError {
  constructor(
    message: string,
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(message);
  }
}
