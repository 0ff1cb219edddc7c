// The PostgreSQL store (node-postgres): one pg.Pool per wo instance, any number of instances
// on one database. The transaction discipline (spec/storage.md, "PostgreSQL"):
//   - Writers are serialized across every instance, as the Store interface promises and as
//     SQLite's single writer does: write() takes a database-wide transaction-scoped advisory
//     lock right after BEGIN, so a method that reads a balance and writes it back sees every
//     write committed before it and nobody writes beside it. READ COMMITTED is then as good as
//     SERIALIZABLE for writers, without serialization failures to retry (50 clients moving
//     money between 3 accounts starve under SERIALIZABLE's abort-and-retry) and without
//     deadlocks. Within one instance writers queue in memory first, so at most one pool
//     connection waits for the lock and the rest serve reads. A deadlock or serialization
//     failure (possible only against a non-wo writer or a migration) rolls everything back
//     and runs the callback again, so a call is applied whole or not at all.
//   - COMMIT returns after the WAL is flushed (synchronous_commit = on, set per connection), so
//     a resolved write is durable and visible to every later read on any instance.
//   - read() runs in a READ ONLY REPEATABLE READ transaction: all its queries see one snapshot,
//     and it never waits for a writer.
//   - uniques are unique indexes as well, so they hold even against writers that are not wo.
// Losing the server (refused, reset, shut down, a statement timeout) is StoreUnavailableError
// (REST 503); broken connections are dropped from the pool, so the store recovers by itself
// once the server is back.

import pg from "pg";
import { servesLiveStream, type Catalog } from "../../../model/app.js";
import { deriveShape } from "../../../model/storage-shape.js";
import {
  StoreCancelledError,
  StoreOpenError,
  StoreUnavailableError,
  type AuditEntry,
  type AuditQuery,
  type ChangeLogRead,
  type CommitListener,
  type McpSessionDirectory,
  type MigrationReport,
  type Store,
  type StoreTx,
  type WriteOptions,
} from "../../../model/store.js";
import { CommitListeners } from "../commit-listeners.js";
import { defaultRetention, type ChangeLogOptions } from "../change-log.js";
import { PgChangeLog } from "./change-log.js";
import { AuditSweep, defaultAuditRetention } from "../audit-trail.js";
import { ChangeRelay, changeChannel, changePayloads } from "./change-relay.js";
import { buildTableRegistry } from "../tables.js";
import { assertPostgresNames } from "./ddl.js";
import { mcpSessionTable, migratePostgres } from "./migrate.js";
import { PostgresTx, StatementNames, type PgTxContext } from "./tx.js";

export interface OpenPostgresStoreOptions {
  /** postgres://user[:password]@host[:port]/database[?…] */
  url: string;
  /** Used when the URL carries no password (`[database] password_env`). */
  password?: string;
  catalog: Catalog;
  allowDestructiveMigration?: boolean;
  /** `[database] pool_size`: connections this instance keeps at most. Default 10. */
  poolSize?: number;
  /** `[database] statement_timeout_ms`: a statement running longer is cancelled (503). Default 30 s. */
  statementTimeoutMs?: number;
  /** The durable change log (spec/live.md): which tables it records and how many changes it keeps. */
  changeLog?: ChangeLogOptions;
}

export const defaultPoolSize = 10;
export const defaultStatementTimeoutMs = 30_000;
/** How long to wait for a connection (from the server, or from a busy pool) before answering 503. */
const connectTimeoutMs = 10_000;
/** Attempts of one write() before a deadlock or serialization failure is given up on (as 503). */
const maxWriteAttempts = 12;

/** The URL as messages show it: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the [database] url";
  }
}

export async function openPostgresStore(
  options: OpenPostgresStoreOptions,
): Promise<{ store: PostgresStore; migration: MigrationReport }> {
  const shape = deriveShape(options.catalog);
  assertPostgresNames(shape);
  const where = redactUrl(options.url);
  const pool = createPool(options);
  try {
    const client = await pool.connect();
    let migration: MigrationReport;
    let foldCollation: string;
    try {
      migration = await migratePostgres(client, where, shape, {
        allowDestructive: options.allowDestructiveMigration ?? false,
      });
      foldCollation = await chooseFoldCollation(client);
    } finally {
      client.release();
    }
    const ctx: PgTxContext = {
      tables: buildTableRegistry(shape),
      statements: new StatementNames(),
      foldCollation,
      auditSweep: new AuditSweep(options.catalog.config.auditRetention ?? defaultAuditRetention),
    };
    if (options.changeLog && options.changeLog.tables.length > 0) ctx.log = new PgChangeLog(options.changeLog);
    const store = new PostgresStore(pool, ctx, where, {
      connectionString: connectionString(options),
      application_name: "wo",
      types,
    });
    await store.startRelay();
    return { store, migration };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw explainPostgresOpenFailure(err, where);
  }
}

/** Integers come back as numbers (ids and counts fit), JSON as parsed values, as on SQLite. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8) return (text: string) => Number(text);
    if (oid === pg.types.builtins.JSON) return parseJson;
    return pg.types.getTypeParser(oid, format as "text");
  },
} as pg.CustomTypesConfig;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Only a hand-edited database gets here; show the text rather than fail the read.
    return text;
  }
}

/** The URL with the password from password_env when it has none. */
function connectionString(options: OpenPostgresStoreOptions): string {
  const url = new URL(options.url);
  if (!url.password && options.password !== undefined) url.password = encodeURIComponent(options.password);
  return url.toString();
}

function createPool(options: OpenPostgresStoreOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: connectionString(options),
    max: options.poolSize ?? defaultPoolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: "wo",
    // Per connection, whatever the server's defaults: durable commits, bounded statements.
    options: `-c synchronous_commit=on -c statement_timeout=${options.statementTimeoutMs ?? defaultStatementTimeoutMs}`,
    types,
  });
  // An idle connection the server drops (restart, network) is reported here; the pool forgets
  // it and the next request connects afresh. Without a listener it would end the process.
  pool.on("error", () => undefined);
  return pool;
}

/** ICU's root collation lowers all of Unicode as JavaScript does; without ICU, the database's own. */
async function chooseFoldCollation(client: pg.ClientBase): Promise<string> {
  const r = await client.query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`);
  return r.rowCount ? "und-x-icu" : "default";
}

/** The advisory lock key every wo writer holds while it writes ("wo" in ASCII, then "write"). */
export const writeLockKey = 0x776f_7772_6974n;

/** Runs async jobs one at a time, in call order. */
class Queue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class PostgresStore implements Store {
  private isClosed = false;
  private readonly writers = new Queue();

  constructor(
    private readonly pool: pg.Pool,
    private ctx: PgTxContext,
    /** The database as messages name it (no password). */
    readonly where: string,
    relayConfig: pg.ClientConfig,
  ) {
    this.relay = new ChangeRelay(
      relayConfig,
      (changes) => this.listeners.publish(changes),
      (table, id) => this.read(async (tx) => (await tx.get(table, id)) ?? null),
    );
  }

  private readonly relay: ChangeRelay;

  /** Starts hearing the other instances' changes (change-relay.ts). */
  startRelay(): Promise<void> {
    return this.relay.start();
  }

  async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", false, fn, undefined);
  }

  async write<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        // One round trip: BEGIN and the lock as one simple query.
        return await this.writers.run(() =>
          this.transaction(
            `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${writeLockKey})`,
            true,
            fn,
            options.signal,
          ),
        );
      } catch (err) {
        if (!isSerializationFailure(err)) throw err;
        if (attempt >= maxWriteAttempts)
          throw new StoreUnavailableError(
            `the write conflicted with concurrent writes ${attempt} times in a row (${(err as Error).message})`,
          );
        // A random pause that grows: two retrying writers should not collide again in step.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /**
   * `wo run --watch`: migrates to `catalog` while serving, by the rules of the migration at
   * open, in this instance's writer queue (writes queued before commit on the old shape, those
   * after see the new one). Other instances keep their own shape until they restart or migrate.
   */
  async migrate(catalog: Catalog, options: { allowDestructive: boolean }): Promise<MigrationReport> {
    const shape = deriveShape(catalog);
    assertPostgresNames(shape);
    return this.writers.run(async () => {
      const client = await this.connect();
      let broken: Error | undefined;
      try {
        const report = await migratePostgres(client, this.where, shape, options);
        this.ctx = {
          ...this.ctx,
          tables: buildTableRegistry(shape),
          statements: new StatementNames(++this.generation),
        };
        // The new build may expose `subscribe` on other types: the log follows (spec/live.md).
        const logged = {
          tables: catalog.types.filter(servesLiveStream).map((t) => t.table),
          retention: catalog.config.liveRetention ?? defaultRetention,
        };
        this.ctx.auditSweep.follow(catalog.config.auditRetention ?? defaultAuditRetention);
        if (this.ctx.log) this.ctx.log.follow(logged);
        else if (logged.tables.length > 0) this.ctx.log = new PgChangeLog(logged);
        return report;
      } catch (err) {
        if (!isConnectionFailure(err)) throw err;
        broken = err as Error;
        throw this.unavailable(err);
      } finally {
        client.release(broken);
      }
    });
  }

  private generation = 0;
  private readonly listeners = new CommitListeners();

  onCommit(listener: CommitListener): () => void {
    return this.listeners.add(listener);
  }

  async changesAfter(table: string, after: number, limit: number): Promise<ChangeLogRead> {
    const log = this.ctx.log;
    if (!log?.logs(table)) throw new Error(`table '${table}' has no change log`);
    return this.read(async (tx) => (tx as PostgresTx).readChangeLog(log, table, after, limit));
  }

  readAudit(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }> {
    return this.read((tx) => (tx as PostgresTx).readAudit(query));
  }

  /** MCP sessions in the database: a client keeps its session on whichever instance it lands. */
  readonly mcpSessions: McpSessionDirectory = {
    record: async (id, protocolVersion) => {
      await this.query(`INSERT INTO "${mcpSessionTable}" ("id", "protocol_version") VALUES ($1, $2)`, [
        id,
        protocolVersion,
      ]);
    },
    // One statement, a read unless the mark is older than a sixtieth of the idle time: a
    // session's requests write at most once a minute (for the default hour).
    lookup: async (id, idleMs) =>
      (
        await this.query(
          `WITH "used" AS (UPDATE "${mcpSessionTable}" SET "last_used" = now() WHERE "id" = $1 AND "last_used" < now() - $2::bigint * interval '1 millisecond')
           SELECT "protocol_version" AS v FROM "${mcpSessionTable}" WHERE "id" = $1`,
          [id, Math.floor(idleMs / 60)],
        )
      ).rows[0]?.v as string | undefined,
    end: async (id) => ((await this.query(`DELETE FROM "${mcpSessionTable}" WHERE "id" = $1`, [id])).rowCount ?? 0) > 0,
    forgetIdle: async (idleMs, serving) => {
      if (serving.length > 0)
        await this.query(`UPDATE "${mcpSessionTable}" SET "last_used" = now() WHERE "id" = ANY($1::text[])`, [serving]);
      const ended = await this.query(
        `DELETE FROM "${mcpSessionTable}" WHERE "last_used" < now() - $1::bigint * interval '1 millisecond'`,
        [Math.floor(idleMs)],
      );
      return ended.rowCount ?? 0;
    },
  };

  /** A connection from the pool; a server that cannot be reached is StoreUnavailableError. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  /** One statement on its own (autocommit, durable like any commit); a lost server is StoreUnavailableError. */
  private async query(text: string, values: unknown[]): Promise<pg.QueryResult> {
    if (this.isClosed) throw new Error("the store is closed");
    try {
      return await this.pool.query(text, values);
    } catch (err) {
      throw isConnectionFailure(err) ? this.unavailable(err) : err;
    }
  }

  /** Is the database reachable? For /healthz: undefined when it is, else why not. */
  async problem(): Promise<string | undefined> {
    try {
      await this.pool.query("SELECT 1");
      return undefined;
    } catch (err) {
      return describeConnectionFailure(err);
    }
  }

  private async transaction<T>(
    begin: string,
    isWritable: boolean,
    fn: (tx: StoreTx) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    if (this.isClosed) throw new Error("the store is closed");
    if (signal?.aborted) throw new StoreCancelledError();
    const client = await this.connect();
    let broken: Error | undefined;
    const tx = new PostgresTx(client, this.ctx, isWritable);
    try {
      await client.query(begin);
      const result = await fn(tx);
      tx.finish();
      if (signal?.aborted) throw new StoreCancelledError();
      if (isWritable) await this.ctx.log?.pruneIfDue(client);
      // Sent by the COMMIT (and only if it commits), in commit order, to the other instances.
      for (const payload of tx.changes.length > 0 ? changePayloads(this.relay.instanceId, tx.changes) : []) {
        await client.query({
          name: "wo_notify_changes",
          text: `SELECT pg_notify('${changeChannel}', $1)`,
          values: [payload],
        });
      }
      await client.query("COMMIT");
      // After the COMMIT, before the write resolves: a listener sees a change before its writer's answer.
      if (tx.changes.length > 0) this.listeners.publish(tx.changes);
      return result;
    } catch (err) {
      tx.finish();
      if (isConnectionFailure(err)) {
        broken = err as Error;
        throw this.unavailable(err);
      }
      await client.query("ROLLBACK").catch((e: unknown) => {
        broken = e as Error;
      });
      throw err;
    } finally {
      // A connection that failed is destroyed, not reused: the pool connects afresh later.
      client.release(broken);
    }
  }

  private unavailable(err: unknown): StoreUnavailableError {
    return new StoreUnavailableError(`the database ${this.where} is unavailable: ${describeConnectionFailure(err)}`);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.relay.close();
    await this.pool.end();
  }
}

/** 40001 serialization_failure, 40P01 deadlock_detected: the transaction may simply run again. */
function isSerializationFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === "40001" || code === "40P01";
}

/** Server gone, connection lost, server shutting down or starting, a statement cut off by the timeout. */
function isConnectionFailure(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const code = String((err as { code?: unknown })?.code ?? "");
  const message = (err as Error)?.message ?? "";
  return (
    [
      "ECONNREFUSED",
      "ECONNRESET",
      "ETIMEDOUT",
      "EPIPE",
      "EHOSTUNREACH",
      "ENETUNREACH",
      "ENOTFOUND",
      "EAI_AGAIN",
    ].includes(code) ||
    code.startsWith("08") ||
    code.startsWith("57P") ||
    code === "57014" ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(
      message,
    )
  );
}

function describeConnectionFailure(err: unknown): string {
  const code = String((err as { code?: unknown })?.code ?? "");
  const message = (err as Error)?.message ?? String(err);
  if (code === "ECONNREFUSED") return "the server refuses connections (is it running, on this host and port?)";
  if (code === "57014") return "a statement ran longer than [database] statement_timeout_ms";
  if (code === "57P01" || code === "57P02") return "the server is shutting down";
  if (code === "57P03") return "the server is starting up or not accepting connections";
  return code ? `${message} (${code})` : message;
}

/** Why `wo run` could not open the database, in words; anything else is returned unchanged. */
export function explainPostgresOpenFailure(err: unknown, where: string): unknown {
  if (err instanceof StoreOpenError) return err;
  const code = String((err as { code?: unknown })?.code ?? "");
  const message = (err as Error)?.message ?? String(err);
  if (code === "28P01" || code === "28000") {
    return new StoreOpenError(
      `Cannot log in to ${where}: the server refused the user name or password (${message}). Check the URL's user and the password (in the URL or in the variable [database] password_env names).`,
    );
  }
  if (code === "3D000")
    return new StoreOpenError(
      `Cannot open ${where}: ${message}. Create it first (\`createdb\`), or fix the name in the URL.`,
    );
  if (/password must be a string|SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string/i.test(message)) {
    return new StoreOpenError(
      `Cannot log in to ${where}: the server asks for a password and none was given. Put it in the URL or in the environment variable [database] password_env names.`,
    );
  }
  if (isConnectionFailure(err))
    return new StoreOpenError(`Cannot reach the PostgreSQL server at ${where}: ${describeConnectionFailure(err)}.`);
  return err;
}
