// One better-sqlite3 connection with its prepared-statement cache. Statements are keyed by a
// short query-shape key (`get:article`, `list:article:title=;>id;limit`), so the hot path
// (GET by id) is one Map lookup and one `.get()`; the SQL text is built only on a miss.

import Database from "better-sqlite3";
import { StoreOpenError } from "../../model/store.js";

export type Statement = Database.Statement<unknown[], unknown>;

/**
 * SQL function name of the case fold behind `contains` (registered on every connection):
 * JavaScript's Unicode lower case, where SQLite's own lower() folds ASCII only.
 */
export const caseFold = "wo_lower";

export class Connection {
  private readonly statements = new Map<string, Statement>();
  readonly begin: Statement;
  readonly beginImmediate: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  /** Readers: the store commit count their open snapshot was taken at (sqlite.ts). */
  snapshotSeq: number | undefined;
  /** The store's shape version the cached statements were written for (sqlite.ts, migrate()). */
  shapeVersion = 0;

  constructor(readonly db: Database.Database) {
    this.begin = db.prepare("BEGIN");
    this.beginImmediate = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
  }

  statement(key: string, sql: () => string): Statement {
    let s = this.statements.get(key);
    if (s === undefined) {
      s = this.db.prepare(sql());
      this.statements.set(key, s);
    }
    return s;
  }

  /**
   * Drops the cached statements: after a migration their SQL names the old columns (an
   * INSERT would bind the new shape's values to the old column list).
   */
  forgetStatements(shapeVersion: number): void {
    this.statements.clear();
    this.shapeVersion = shapeVersion;
  }

  /** ROLLBACK that never throws: after some errors SQLite has already rolled back itself. */
  rollbackQuietly(): void {
    if (this.db.inTransaction) {
      try {
        this.rollback.run();
      } catch {
        // Nothing left to undo.
      }
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export interface ConnectionOptions {
  readonly?: boolean;
}

/**
 * `new Database(…)`, with the one failure a user's install causes turned into a StoreOpenError:
 * better-sqlite3's native module built for another Node.js version (a Node upgrade after
 * `npm ci`). Its own message names NODE_MODULE_VERSIONs; the user needs the command that fixes it.
 */
export function openSqliteFile(file: string, options?: Database.Options): Database.Database {
  try {
    return new Database(file, options);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ERR_DLOPEN_FAILED" && /NODE_MODULE_VERSION/.test(String((err as Error).message)))
      throw new StoreOpenError(
        `better-sqlite3, the embedded database, was installed for another Node.js version than this one (${process.version}); run \`npm rebuild better-sqlite3\` in the folder wo is installed in, with this Node.js.`,
      );
    throw err;
  }
}

/** Opens a connection with wo's pragmas. The writer sets WAL; readers inherit it. */
export function openConnection(file: string, options: ConnectionOptions = {}): Connection {
  const db = openSqliteFile(file, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
  });
  try {
    // Waits instead of failing when another connection holds the lock briefly (a checkpoint,
    // or an external reader such as the sqlite3 shell).
    db.pragma("busy_timeout = 5000");
    db.function(caseFold, { deterministic: true }, (value: unknown) =>
      typeof value === "string" ? value.toLowerCase() : value,
    );
    if (!options.readonly) {
      // WAL: readers never block the writer and see only committed transactions.
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (String(mode).toLowerCase() !== "wal") {
        throw new StoreOpenError(
          `${file}: SQLite cannot use its write-ahead log here (journal mode stays '${String(mode)}'); put the data folder on a local disk.`,
        );
      }
      // FULL: COMMIT returns only after the WAL is fsynced, so a resolved write() is on disk.
      // (NORMAL would be faster but can lose the last commits on power loss.)
      db.pragma("synchronous = FULL");
    }
    return new Connection(db);
  } catch (err) {
    db.close();
    throw err;
  }
}
