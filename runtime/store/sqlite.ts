// The embedded SQLite store (better-sqlite3). Owns the transaction discipline:
//   - one writer connection; write() calls are queued so the async callbacks of two
//     transactions never interleave on it, and a write resolves only after a durable COMMIT
//     (WAL + synchronous=FULL, connection.ts);
//   - read() runs on separate read-only connections (a small pool), each inside its own
//     snapshot, so reads see only committed data and never wait behind a writer.
// Queries live in sqlite-tx.ts, the schema in shape.ts/migrate.ts, the data-folder lock in
// lock.ts. openSqliteStore() is the one way in: lock, open, migrate, then serve.

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Catalog } from "../../compiler/catalog.js";
import { OperationError } from "../errors.js";
import { openConnection, type Connection } from "./connection.js";
import { acquireDataLock, type DataLock } from "./lock.js";
import { migrate, type MigrationReport } from "./migrate.js";
import { StoreOpenError } from "./open-errors.js";
import { deriveShape } from "./shape.js";
import { SqliteTx } from "./sqlite-tx.js";
import type { Store, StoreTx, WriteOptions } from "./store.js";
import { buildTableRegistry, type TableRegistry } from "./tables.js";

export interface OpenSqliteStoreOptions {
  /** The database file, e.g. `<dataDir>/app.sqlite`; missing folders are created. */
  file: string;
  catalog: Catalog;
  /** Apply changes that drop or narrow stored data (`--allow-destructive-migration`). */
  allowDestructiveMigration?: boolean;
  /**
   * Take the single-writer lock on the file's folder (default true). The store releases it
   * on close(); callers need not call acquireDataLock() themselves.
   */
  lock?: boolean;
}

/** Idle read connections kept open; busier moments open more and close them afterwards. */
const maxIdleReaders = 4;

export async function openSqliteStore(options: OpenSqliteStoreOptions): Promise<{ store: SqliteStore; migration: MigrationReport }> {
  const file = resolve(options.file);
  const shape = deriveShape(options.catalog);
  mkdirSync(dirname(file), { recursive: true });
  const lock = options.lock === false ? undefined : acquireDataLock(dirname(file));
  let writer: Connection | undefined;
  try {
    writer = openOrExplain(file);
    const migration = migrate(writer.db, file, shape, { allowDestructive: options.allowDestructiveMigration ?? false });
    const store = new SqliteStore(file, writer, buildTableRegistry(shape), lock);
    return { store, migration };
  } catch (err) {
    writer?.close();
    lock?.release();
    throw err;
  }
}

function openOrExplain(file: string): Connection {
  try {
    return openConnection(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "SQLITE_NOTADB") throw new StoreOpenError(`${file} is not a SQLite database; point the data folder somewhere else.`);
    if (code === "SQLITE_CANTOPEN" || code === "SQLITE_READONLY" || code === "SQLITE_PERM") {
      throw new StoreOpenError(`cannot open ${file} for writing (${(err as Error).message}).`);
    }
    throw err;
  }
}

export class SqliteStore implements Store {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly idleReaders: Connection[] = [];
  private isClosed = false;

  constructor(
    readonly file: string,
    private readonly writer: Connection,
    private readonly tables: TableRegistry,
    private readonly lock: DataLock | undefined,
  ) {}

  async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    if (this.isClosed) throw new Error("the store is closed");
    const conn = this.idleReaders.pop() ?? openConnection(this.file, { readonly: true });
    const tx = new SqliteTx(conn, this.tables, false);
    // A deferred BEGIN: the snapshot starts at the first read, so every query of this call
    // sees the same committed state, and a later commit is seen by the next read() call.
    conn.begin.run();
    try {
      return await fn(tx);
    } finally {
      tx.finish();
      conn.rollbackQuietly();
      if (this.isClosed || this.idleReaders.length >= maxIdleReaders) conn.close();
      else this.idleReaders.push(conn);
    }
  }

  write<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (this.isClosed) return Promise.reject(new Error("the store is closed"));
    const signal = options.signal;
    let hasStarted = false;
    const result = this.queue.then(() => {
      hasStarted = true;
      return this.runWrite(fn, signal);
    });
    // The queue only orders; a failed write must not fail the ones behind it.
    this.queue = result.catch(() => undefined);
    if (signal === undefined) return result;
    // Cancelled while still queued: answer now instead of after every write ahead of it;
    // runWrite sees the aborted signal when its turn comes and starts nothing.
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!hasStarted) reject(cancelled());
      };
      signal.addEventListener("abort", onAbort, { once: true });
      result.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private async runWrite<T>(fn: (tx: StoreTx) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) throw cancelled();
    const conn = this.writer;
    conn.beginImmediate.run();
    const tx = new SqliteTx(conn, this.tables, true);
    let value: T;
    try {
      value = await fn(tx);
    } catch (err) {
      tx.finish();
      conn.rollbackQuietly();
      throw err;
    }
    tx.finish();
    if (signal?.aborted) {
      conn.rollbackQuietly();
      throw cancelled();
    }
    try {
      conn.commit.run();
    } catch (err) {
      conn.rollbackQuietly();
      throw err;
    }
    return value;
  }

  /** Waits for queued writes, then closes every connection and releases the lock. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.queue;
    for (const c of this.idleReaders.splice(0)) c.close();
    // Closing the last connection checkpoints the WAL into the main file.
    this.writer.close();
    this.lock?.release();
  }
}

function cancelled(): OperationError {
  return new OperationError("cancelled", "The call was cancelled before its changes were committed; nothing was written.");
}
