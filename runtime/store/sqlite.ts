// The embedded SQLite store (better-sqlite3). Owns the transaction discipline:
//   - one writer connection; write() calls are queued so the async callbacks of two
//     transactions never interleave on it, and a write resolves only after a durable COMMIT
//     (WAL + synchronous=FULL, connection.ts), shared by the writes queued together
//     (group commit, write-queue.ts);
//   - read() runs on separate read-only connections (a small pool), each inside its own
//     snapshot, so reads see only committed data and never wait behind a writer.
// Queries live in sqlite-tx.ts, the schema in ddl.ts/migrate.ts (from the store-neutral
// model/storage-shape.ts and model/shape-diff.ts), the data-folder lock in lock.ts, the change
// log in change-log.ts. openSqliteStore() is the one way in: lock, check the file, open,
// migrate, serve.

import type Database from "better-sqlite3";
import { accessSync, constants, existsSync, mkdirSync, statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { loggedTables, type Catalog } from "../../model/app.js";
import { ChangeLog, defaultRetention, type ChangeLogOptions } from "./change-log.js";
import { AuditSweep, createAuditSql, defaultAuditRetention } from "./audit-trail.js";
import { createJobsSql, jobQueue } from "./job-outbox.js";
import { openConnection, openSqliteFile, type Connection } from "./connection.js";
import { acquireDataLock, type DataLock } from "./lock.js";
import { migrate, planSqliteMigration } from "./migrate.js";
import { createNamedTokenTableSql, sqliteNamedTokens } from "./named-tokens.js";
import { databaseDamaged, databaseReadOnly, explainOpenFailure } from "./open-errors.js";
import { deriveShape } from "../../model/storage-shape.js";
import { assertSqliteNames } from "./ddl.js";
import { SqliteTx } from "./sqlite-tx.js";
import {
  StoreBusyError,
  StoreFullError,
  type AuditEntry,
  type AuditQuery,
  type ChangeLogRead,
  type CommitListener,
  type JobQueue,
  type MigrationPlan,
  type MigrationReport,
  type NamedTokenDirectory,
  type Store,
  type StoreTx,
  type WriteOptions,
} from "../../model/store.js";
import { CommitListeners } from "./commit-listeners.js";
import { buildTableRegistry, type TableRegistry } from "./tables.js";
import { WriteQueue } from "./write-queue.js";

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
  /**
   * `[database] max_bytes`: the size the database may grow to. Past it, writes fail with
   * StoreFullError, as on a full disk. Unlimited when absent.
   */
  maxBytes?: number;
  /**
   * The durable change log (spec/live.md): which tables it records and how many changes it
   * keeps. None (or no tables): nothing is logged and writes pay nothing for it.
   */
  changeLog?: ChangeLogOptions;
}

/** Idle read connections kept open; busier moments open more and close them afterwards. */
const maxIdleReaders = 4;

export async function openSqliteStore(
  options: OpenSqliteStoreOptions,
): Promise<{ store: SqliteStore; migration: MigrationReport }> {
  const file = resolve(options.file);
  const shape = deriveShape(options.catalog);
  assertSqliteNames(shape);
  let lock: DataLock | undefined;
  let writer: Connection | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    lock = options.lock === false ? undefined : acquireDataLock(dirname(file));
    assertWritable(file);
    writer = openConnection(file);
    checkIntegrity(writer, file);
    const migration = await migrate(writer.db, file, shape, {
      allowDestructive: options.allowDestructiveMigration ?? false,
    });
    if (options.maxBytes !== undefined) limitSize(writer, options.maxBytes);
    writer.db.exec(createNamedTokenTableSql);
    const changeLog =
      options.changeLog && options.changeLog.tables.length > 0 ? new ChangeLog(writer, options.changeLog) : undefined;
    for (const sql of createAuditSql("sqlite")) writer.db.exec(sql);
    for (const sql of createJobsSql("sqlite")) writer.db.exec(sql);
    const auditSweep = new AuditSweep(options.catalog.config.auditRetention ?? defaultAuditRetention);
    const store = new SqliteStore(
      file,
      writer,
      buildTableRegistry(shape),
      lock,
      auditSweep,
      options.maxBytes,
      changeLog,
    );
    return { store, migration };
  } catch (err) {
    writer?.close();
    lock?.release();
    throw explainOpenFailure(err, file);
  }
}

/**
 * What opening the store would do to its database (`wo migrate --plan`), without doing it:
 * under the data folder's lock (so not while `wo run` serves), in a transaction rolled back. A
 * database that does not exist yet is planned on an empty one in memory, and not created.
 */
export async function planSqliteStoreMigration(options: OpenSqliteStoreOptions): Promise<MigrationPlan> {
  const file = resolve(options.file);
  const shape = deriveShape(options.catalog);
  assertSqliteNames(shape);
  const exists = existsSync(file);
  let lock: DataLock | undefined;
  let db: Database.Database | undefined;
  try {
    lock = exists ? acquireDataLock(dirname(file)) : undefined;
    db = exists ? openConnection(file).db : openSqliteFile(":memory:");
    return await planSqliteMigration(db, file, shape, {
      allowDestructive: options.allowDestructiveMigration ?? false,
    });
  } catch (err) {
    throw explainOpenFailure(err, file);
  } finally {
    db?.close();
    lock?.release();
  }
}

/**
 * SQLite opens a database it may not write read-only, silently: the server would start and
 * then fail every write. The same for a -wal or -shm file left behind by another user.
 */
function assertWritable(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      accessSync(f, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (code !== "ENOENT") throw databaseReadOnly(f, code);
    }
  }
}

/**
 * A truncated or damaged file can open fine and fail only when a request reaches the damaged
 * pages. `quick_check` reads every page once (≈ 0.1 s for 120 MB on the dev box, page cache
 * warm) and finds that at start, while the message can still name the file and the fix.
 */
function checkIntegrity(conn: Connection, file: string): void {
  const problems = (conn.db.pragma("quick_check(3)") as { quick_check: string }[]).map((r) => r.quick_check);
  if (problems.length === 1 && problems[0] === "ok") return;
  throw databaseDamaged(file, problems.join("; "));
}

/**
 * `max_page_count` is a setting of the connection, not stored in the file: set on the writer,
 * the only connection that grows the database, at every open. Below the current size SQLite
 * keeps the current size: the database is full at once.
 */
function limitSize(writer: Connection, maxBytes: number): void {
  const pageSize = Number(writer.db.pragma("page_size", { simple: true }));
  writer.db.pragma(`max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
}

export class SqliteStore implements Store {
  private readonly writes: WriteQueue;
  private readonly idleReaders: Connection[] = [];
  private isClosed = false;
  /** Bumped by migrate(): connections drop statements cached for an older shape. */
  private shapeVersion = 0;
  private readonly listeners = new CommitListeners();
  /** Named-token lookups: outside any snapshot, so a `wo token revoke` elsewhere counts at once. */
  private tokenReader: Connection | undefined;

  readonly namedTokens: NamedTokenDirectory = sqliteNamedTokens({
    reader: () => {
      if (this.isClosed) throw new Error("the store is closed");
      this.tokenReader ??= openConnection(this.file, { readonly: true });
      return this.tokenReader.db;
    },
    write: (fn) => this.write(async () => fn(this.writer.db)),
  });

  /** The job outbox: every statement on the writer, in a write of its own (the queue's). */
  readonly jobs: JobQueue = jobQueue(
    "sqlite",
    () => "?",
    async (text, values) => {
      const statement = this.writer.statement(`jobs:${text}`, () => text);
      if (statement.reader) return statement.all(...values) as Record<string, unknown>[];
      statement.run(...values);
      return [];
    },
    (fn) => this.write(() => fn()),
  );

  constructor(
    readonly file: string,
    private readonly writer: Connection,
    private tables: TableRegistry,
    private readonly lock: DataLock | undefined,
    private readonly auditSweep: AuditSweep,
    private readonly maxBytes?: number,
    private changeLog?: ChangeLog,
  ) {
    this.writes = new WriteQueue(
      writer,
      () => new SqliteTx(writer, this.tables, true, this.changeLog, this.auditSweep),
      (changes) => {
        // An idle reader must not keep an outdated snapshot open: it would hold back WAL
        // checkpoints while writes go on and no reads come.
        for (const r of this.idleReaders) endSnapshot(r);
        if (changes.length > 0) this.listeners.publish(changes);
      },
      () => this.changeLog?.pruneIfDue(writer),
    );
  }

  onCommit(listener: CommitListener): () => void {
    return this.listeners.add(listener);
  }

  async changesAfter(table: string, after: number, limit: number): Promise<ChangeLogRead> {
    const log = this.changeLog;
    if (!log?.logs(table)) throw new Error(`table '${table}' has no change log`);
    return this.read(async (tx) => (tx as SqliteTx).readChangeLog(log, table, after, limit));
  }

  readAudit(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }> {
    return this.read(async (tx) => (tx as SqliteTx).readAudit(query));
  }

  async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    if (this.isClosed) throw new Error("the store is closed");
    const conn = this.idleReaders.pop() ?? openConnection(this.file, { readonly: true });
    if (conn.shapeVersion !== this.shapeVersion) conn.forgetStatements(this.shapeVersion);
    // Every read() runs inside a snapshot, so all its queries see one committed state. A
    // snapshot is reused by later read() calls until this store commits again: BEGIN and
    // ROLLBACK cost more than the GET by id they would wrap. A commit always makes the next
    // read() take a fresh snapshot, so an acknowledged write is visible to every read after it.
    if (conn.snapshotSeq !== this.writes.commitSeq) {
      conn.rollbackQuietly();
      conn.begin.run();
      conn.snapshotSeq = this.writes.commitSeq;
    }
    const tx = new SqliteTx(conn, this.tables, false);
    try {
      return await fn(tx);
    } finally {
      tx.finish();
      if (this.isClosed || this.idleReaders.length >= maxIdleReaders) {
        conn.close();
      } else {
        if (conn.snapshotSeq !== this.writes.commitSeq) endSnapshot(conn);
        this.idleReaders.push(conn);
      }
    }
  }

  write<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (this.isClosed) return Promise.reject(new Error("the store is closed"));
    return this.writes.submit(fn, options.signal).catch((err: unknown) => {
      throw this.explainWriteFailure(err);
    });
  }

  /**
   * SQLite's failures as store errors (also when they are the cause of a write rolled back
   * with them): SQLITE_FULL → StoreFullError, SQLITE_BUSY → StoreBusyError.
   */
  private explainWriteFailure(err: unknown): unknown {
    const code = sqliteCode(err);
    if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return busy(this.file);
    if (code !== "SQLITE_FULL") return err;
    // SQLite says "database or disk is full" either way; the numbers tell the operator which.
    let free: string;
    try {
      const disk = statfsSync(dirname(this.file));
      free = `${disk.bavail * disk.bsize} bytes free on its disk`;
    } catch {
      free = "the free space on its disk is unknown";
    }
    if (this.maxBytes === undefined) return new StoreFullError(`the database ${this.file} cannot grow: ${free}`);
    const size =
      Number(this.writer.db.pragma("page_count", { simple: true })) *
      Number(this.writer.db.pragma("page_size", { simple: true }));
    return new StoreFullError(
      `the database ${this.file} cannot grow: it holds ${size} bytes of its [database] max_bytes = ${this.maxBytes}; ${free}`,
    );
  }

  /**
   * Migrates the open database to `catalog`'s shape (`wo run --watch` after an edit): the same
   * diff and rules as at open (migrate.ts), run on the writer between two batches of writes, so
   * writes queued before it commit on the old shape and those after it see the new one. The
   * data folder stays locked throughout. A refused change throws MigrationRefusedError and
   * changes nothing; the store keeps serving the old shape.
   */
  migrate(catalog: Catalog, options: { allowDestructive: boolean }): Promise<MigrationReport> {
    if (this.isClosed) return Promise.reject(new Error("the store is closed"));
    const shape = deriveShape(catalog);
    return this.writes.exclusive(async (conn) => {
      const report = await migrate(conn.db, this.file, shape, options);
      this.tables = buildTableRegistry(shape);
      // The new build may expose `subscribe` on other types: the log follows (spec/live.md).
      const logged = loggedTables(catalog);
      const retention = catalog.config.liveRetention ?? defaultRetention;
      this.auditSweep.follow(catalog.config.auditRetention ?? defaultAuditRetention);
      if (this.changeLog) this.changeLog.follow(conn, { tables: logged, retention });
      else if (logged.length > 0) this.changeLog = new ChangeLog(conn, { tables: logged, retention });
      conn.forgetStatements(++this.shapeVersion);
      return report;
    });
  }

  /** Committed transactions and the write() calls they carried (group commit shares one). */
  get writeStats(): { commits: number; writes: number } {
    return { ...this.writes.stats };
  }

  /** Waits for queued writes, then closes every connection and releases the lock. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.writes.whenIdle();
    for (const c of this.idleReaders.splice(0)) c.close();
    this.tokenReader?.close();
    // Closing the last connection checkpoints the WAL into the main file.
    this.writer.close();
    this.lock?.release();
  }
}

function sqliteCode(err: unknown): unknown {
  return (err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
}

/** busy_timeout (connection.ts) ran out: someone outside this store holds the database's lock. */
function busy(file: string): StoreBusyError {
  return new StoreBusyError(
    `the database ${file} stayed locked by another process (a backup, the sqlite3 shell) for longer than the store waits`,
  );
}

function endSnapshot(conn: Connection): void {
  conn.rollbackQuietly();
  conn.snapshotSeq = undefined;
}
