// The PostgreSQL store (node-postgres): one pg.Pool per wo instance, any number of instances
// on one database. The transaction discipline (spec/storage.md, "PostgreSQL"):
//   - CRUD and relation writes (WriteOptions.concurrent) run side by side, on every instance,
//     as ordinary READ COMMITTED transactions: each locks the row it changes (`FOR UPDATE`)
//     and the rows its refs name (`FOR KEY SHARE`, so they cannot be deleted before it
//     commits), and unique indexes settle racing values. Concurrent commits share WAL flushes.
//   - Methods that read by id only (WriteOptions.byKey) run side by side as well, holding what
//     they read (`FOR NO KEY UPDATE`) until they commit; the rows the compiler knows they read
//     are locked first, in (table, id) order, so opposite transfers queue instead of
//     deadlocking. They hold the advisory lock below in shared mode, which keeps them apart
//     from the writers that run alone; one that reads by a condition after all runs again alone.
//   - Every other write (methods reading by a condition, `on startup`, tests: they read rows,
//     then write what they computed) takes a database-wide transaction-scoped advisory lock
//     right after BEGIN, so such writers run one at a time across every instance (50 clients
//     moving money between 3 accounts starve under SERIALIZABLE's abort-and-retry). What such
//     a writer reads it holds (`FOR NO KEY UPDATE`) until it commits, so a concurrent CRUD
//     write to a row it read waits for it, and vice versa. Within
//     one instance these writers queue in memory first, so at most one pool connection waits
//     for the lock. A deadlock or serialization failure (a CRUD write against a method in rare
//     lock orders, a non-wo writer, a migration) rolls everything back and runs the callback
//     again, so a call is applied whole or not at all.
//   - The change log's seq is counted in one `_wo_meta` row that each logging write updates,
//     so writes to logged tables commit in seq order even when they run side by side.
//   - COMMIT returns after the WAL is flushed (synchronous_commit = on, set per connection), so
//     a resolved write is durable and visible to every later read on any instance.
//   - read() runs in a READ ONLY REPEATABLE READ transaction: all its queries see one snapshot,
//     and it never waits for a writer.
//   - uniques are unique indexes as well, so they hold even against writers that are not wo.
// Losing the server (refused, reset, shut down, a statement timeout) is StoreUnavailableError
// (REST 503); broken connections are dropped from the pool, so the store recovers by itself
// once the server is back.

import pg from "pg";
import { redactUrl } from "./redact-url.js";
import { jobQueue } from "../job-outbox.js";
import { loggedTables, type Catalog } from "../../../model/app.js";
import { deriveShape } from "../../../model/storage-shape.js";
import {
  StoreCancelledError,
  StoreOpenError,
  eventLogTable,
  StoreUnavailableError,
  type AuditEntry,
  type JobQueue,
  type AuditQuery,
  type ChangeLogRead,
  type CommitListener,
  type McpSessionDirectory,
  type MigrationPlan,
  type MigrationReport,
  type NamedTokenDirectory,
  type RateBucketDirectory,
  type Store,
  type ReadOptions,
  type StoreTx,
  type WriteOptions,
} from "../../../model/store.js";
import { CommitListeners } from "../commit-listeners.js";
import { defaultRetention, type ChangeLogOptions } from "../change-log.js";
import { PgChangeLog } from "./change-log.js";
import { AuditSweep, defaultAuditRetention } from "../audit-trail.js";
import { ChangeRelay, changeChannel, changePayloads, othersListenSql, relayedTables } from "./change-relay.js";
import { buildTableRegistry } from "../tables.js";
import { assertPostgresNames } from "./ddl.js";
import {
  mcpSessionKeyTable,
  mcpSessionLockKey,
  mcpSessionTable,
  migratePostgres,
  planPostgresMigration,
} from "./migrate.js";
import { pgNamedTokens } from "./named-tokens.js";
import { pgRateBuckets } from "./rate-buckets.js";
import { fitsSoleInsert, PostgresTx, StatementNames, type PgTxContext, type SoleInsertTx } from "./tx.js";
import { WriteGroups, type GroupedWrite } from "./write-groups.js";

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

export { redactUrl } from "./redact-url.js";

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
      relayed: relayedTables(options.catalog),
      rowInserts: { statements: 0, rows: 0 },
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

/**
 * What opening the store would do to the database (`wo migrate --plan`), found by migrating in
 * a transaction that is rolled back; changes nothing. Serving instances wait at the tables it
 * touches for the moment it runs.
 */
export async function planPostgresStoreMigration(options: OpenPostgresStoreOptions): Promise<MigrationPlan> {
  const shape = deriveShape(options.catalog);
  assertPostgresNames(shape);
  const where = redactUrl(options.url);
  const client = new pg.Client({ connectionString: connectionString(options), application_name: "wo", types });
  try {
    await client.connect();
    return await planPostgresMigration(client, where, shape, {
      allowDestructive: options.allowDestructiveMigration ?? false,
    });
  } catch (err) {
    throw explainPostgresOpenFailure(err, where);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Integers come back as numbers (ids and counts fit), JSON as parsed values, as on SQLite. */
export const types = {
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
export function connectionString(options: Pick<OpenPostgresStoreOptions, "url" | "password">): string {
  const url = new URL(options.url);
  if (!url.password && options.password !== undefined) url.password = encodeURIComponent(options.password);
  return url.toString();
}

type PoolOptions = Pick<OpenPostgresStoreOptions, "url" | "password" | "poolSize" | "statementTimeoutMs">;

/** The pool of an instance (or of `wo token`) on the database `options.url` names. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: connectionString(options),
    max: options.poolSize ?? defaultPoolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: "wo",
    // Per connection, whatever the server's defaults: durable commits, bounded statements.
    options: `-c synchronous_commit=on -c statement_timeout=${options.statementTimeoutMs ?? defaultStatementTimeoutMs}`,
    types,
    // A statement may be sent before the answer to the one before it has come back (store.ts
    // sends a transaction's BEGIN with its first statement): one wait for the network, not two.
    pipeline: true,
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
  /** Creates committed together (write-groups.ts); two groups at a time, the rest wait and gather. */
  private readonly creates = new WriteGroups((group) => this.commitGroup(group), 2);

  constructor(
    private readonly pool: pg.Pool,
    private ctx: PgTxContext,
    /** The database as messages name it (no password). */
    readonly where: string,
    relayConfig: pg.ClientConfig,
  ) {
    this.relay = ctx.relay = new ChangeRelay(
      relayConfig,
      (changes) => this.listeners.publish(changes),
      async ({ table, id, seq }) => {
        // An application event is not a table's row: its entry in the change log holds it.
        if (table !== eventLogTable) return this.read(async (tx) => (await tx.get(table, id)) ?? null);
        if (seq === undefined) return null;
        const page = await this.changesAfter(table, seq - 1, 1);
        return page.gone ? null : (page.changes.find((c) => c.seq === seq)?.row ?? null);
      },
    );
  }

  private readonly relay: ChangeRelay;

  /** Starts hearing the other instances' changes (change-relay.ts). */
  startRelay(): Promise<void> {
    return this.relay.start();
  }

  async read<T>(fn: (tx: StoreTx) => Promise<T>, options?: ReadOptions): Promise<T> {
    // One statement sees one snapshot by itself: no BEGIN, no COMMIT, one round trip.
    if (options?.oneStatement) return this.transaction("", "read", fn, undefined);
    return this.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "read", fn, undefined);
  }

  async write<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (options.concurrent && options.groupable) return this.creates.add(fn, options);
    let mode: "rows" | "keyed" | "serial" = options.concurrent ? "rows" : options.byKey ? "keyed" : "serial";
    // Rows a keyed write locks first, in (table, id) order: those it names, and after a deadlock
    // also every row its failed attempt held, so the next attempt takes them all in that order.
    let lockFirst = options.byKey ? keyedRows(options.byKey.lockFirst) : [];
    for (let attempt = 1; ; attempt++) {
      const held: [string, number][] = [];
      try {
        // A CRUD write runs at once, beside the others, holding the rows it names; PostgreSQL
        // then groups the commits of concurrent writers into one WAL flush.
        if (mode === "rows")
          return await this.transaction("BEGIN ISOLATION LEVEL READ COMMITTED", "rows", fn, options.signal);
        // A method that reads only by id runs beside the others too, holding what it reads;
        // the shared advisory lock only keeps it apart from the writes that run alone. One
        // round trip: BEGIN, that lock and the rows it locks first.
        if (mode === "keyed")
          return await this.transaction(
            `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared(${writeLockKey})${lockRowsSql(this.ctx, lockFirst)}`,
            "keyed",
            fn,
            options.signal,
            held,
          );
        // Any other write (one that reads by a condition: a phantom could change what it read)
        // runs alone, after the others of its kind, on every instance.
        return await this.writers.run(() =>
          this.transaction(
            `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${writeLockKey})`,
            "serial",
            fn,
            options.signal,
          ),
        );
      } catch (err) {
        if (err instanceof ReadsByCondition) {
          // Not a failure: the write simply needs to run alone. Not counted as an attempt.
          mode = "serial";
          attempt--;
          continue;
        }
        if (!isSerializationFailure(err)) throw err;
        this.retries++;
        if (attempt >= maxWriteAttempts)
          throw new StoreUnavailableError(
            `the write conflicted with concurrent writes ${attempt} times in a row (${(err as Error).message})`,
          );
        if (mode === "keyed") lockFirst = keyedRows([...lockFirst, ...held]);
        // A random pause that grows: two retrying writers should not collide again in step.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /** Writes run again after a deadlock or serialization failure, since the store opened (benches, tests). */
  retries = 0;
  /**
   * Groups of creates committed together, the creates in them, and those of them committed by
   * statements of their own, outside any transaction (sole inserts; benches, tests).
   */
  readonly groupStats = { groups: 0, writes: 0, soleInserts: 0 };

  /** Multi-row inserts the groups sent, and their rows (tx.ts batched; benches, tests). */
  get rowInserts(): { statements: number; rows: number } {
    return this.ctx.rowInserts;
  }

  /**
   * One group of creates: one transaction, the callbacks side by side, one COMMIT. Should any of
   * them fail (its own refusal, a conflict, a deadlock), the group rolls back and each runs
   * again on its own, so a failure is only ever its own write's. A cancelled create that has
   * not run yet is dropped; one that ran commits with the group (as on SQLite).
   */
  private async commitGroup(group: GroupedWrite[]): Promise<void> {
    const alone = (w: GroupedWrite) =>
      this.write(w.fn, { concurrent: true, signal: w.signal }).then(w.resolve, w.reject);
    const live = group.filter((w) => {
      if (w.signal?.aborted) w.reject(new StoreCancelledError());
      return !w.signal?.aborted;
    });
    if (live.length === 0) return;
    if (
      live.every((w) => w.soleInsert !== undefined && w.audit !== undefined && fitsSoleInsert(this.ctx, w.soleInsert))
    )
      return this.commitSoleInserts(live, alone);
    if (live.length === 1) return alone(live[0]!);
    let results: unknown[];
    try {
      results = await this.transaction(
        "BEGIN ISOLATION LEVEL READ COMMITTED",
        "rows",
        async (tx) => {
          // Side by side, so that their inserts of one table go as one multi-row INSERT
          // (tx.ts batched): the creates are independent of each other, so any order is theirs.
          (tx as PostgresTx).shareAmongGroup();
          const settled = await Promise.allSettled(live.map((w) => w.fn(tx)));
          const failed = settled.find((s) => s.status === "rejected");
          if (failed !== undefined) throw failed.reason;
          return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
        },
        undefined,
      );
    } catch (err) {
      // The server is gone: none of them was committed, and none would be now.
      if (err instanceof StoreUnavailableError) for (const w of live) w.reject(err);
      else await Promise.all(live.map(alone));
      return;
    }
    this.groupStats.groups++;
    this.groupStats.writes += live.length;
    live.forEach((w, i) => w.resolve(results[i]));
  }

  /**
   * A group of sole inserts (WriteOptions.soleInsert): no transaction, no BEGIN, no COMMIT; the
   * rows of each table and their audit entries go as one statement, which commits by itself
   * (tx.ts insertRowsAudited), sent once every create has asked for its row: one round trip
   * and one socket write for the group. A create that asked for anything before its insert,
   * or whose statement failed, wrote nothing and runs again on its own in a transaction; one
   * whose row committed settles as its callback did. The server lost: all of them fail as
   * unavailable (as a lost COMMIT does).
   */
  private async commitSoleInserts(live: GroupedWrite[], alone: (w: GroupedWrite) => Promise<void>): Promise<void> {
    let settled: { view: SoleInsertTx; outcome: PromiseSettledResult<unknown> }[];
    try {
      settled = await this.transaction(
        "",
        "autocommit",
        async (tx) => {
          const shared = tx as PostgresTx;
          shared.shareAmongSoleInserts(live.length);
          const views = live.map((w) => shared.soleInsertView(w.audit!));
          const outcomes = await Promise.allSettled(live.map((w, i) => views[i]!.run(w.fn)));
          const lost = outcomes.find((o) => o.status === "rejected" && isConnectionFailure(o.reason));
          if (lost !== undefined) throw (lost as PromiseRejectedResult).reason;
          return outcomes.map((outcome, i) => ({ view: views[i]!, outcome }));
        },
        undefined,
      );
    } catch (err) {
      for (const w of live) w.reject(err);
      return;
    }
    this.groupStats.groups++;
    const again: GroupedWrite[] = [];
    settled.forEach(({ view, outcome }, i) => {
      const w = live[i]!;
      if (view.isCommitted) this.groupStats.soleInserts++;
      if (outcome.status === "fulfilled") {
        this.groupStats.writes++;
        w.resolve(outcome.value);
      } else if (view.isCommitted) w.reject(outcome.reason);
      else again.push(w);
    });
    await Promise.all(again.map(alone));
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
          relayed: relayedTables(catalog),
        };
        // The new build may expose `subscribe` on other types: the log follows (spec/live.md).
        const logged = {
          tables: loggedTables(catalog),
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
    sharedKey: () =>
      (this.sessionKey ??= this.query(`SELECT "key" FROM "${mcpSessionKeyTable}"`, []).then(
        (r) => r.rows[0].key as Buffer,
        (err) => {
          this.sessionKey = undefined;
          throw err;
        },
      )),
    record: async (id, protocolVersion, maxSessions, idleMs) => {
      // Under a lock every instance takes, so that first requests arriving together cannot all
      // see room for one more: the count and the insert are one step.
      const client = await this.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock($1)", [mcpSessionLockKey.toString()]);
        const insert = () =>
          client.query(
            `INSERT INTO "${mcpSessionTable}" ("id", "protocol_version")
             SELECT $1, $2 WHERE (SELECT count(*) FROM "${mcpSessionTable}") < $3
             ON CONFLICT ("id") DO UPDATE SET "last_used" = now() RETURNING 1`,
            [id, protocolVersion, maxSessions],
          );
        let isRecorded = ((await insert()).rowCount ?? 0) > 0;
        if (!isRecorded) {
          await client.query(
            `DELETE FROM "${mcpSessionTable}" WHERE "last_used" < now() - $1::bigint * interval '1 millisecond'`,
            [Math.floor(idleMs)],
          );
          isRecorded = ((await insert()).rowCount ?? 0) > 0;
        }
        await client.query("COMMIT");
        return isRecorded;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw isConnectionFailure(err) ? this.unavailable(err) : err;
      } finally {
        client.release();
      }
    },
    // One statement, a read unless the mark is older than a sixtieth of the idle time: a
    // session's requests write at most once a minute (for the default hour).
    lookup: async (id, idleMs) => {
      const row = (
        await this.query(
          `WITH "used" AS (UPDATE "${mcpSessionTable}" SET "last_used" = now() WHERE "id" = $1 AND NOT "ended" AND "last_used" < now() - $2::bigint * interval '1 millisecond')
           SELECT "protocol_version" AS v, "ended" FROM "${mcpSessionTable}" WHERE "id" = $1`,
          [id, Math.floor(idleMs / 60)],
        )
      ).rows[0] as { v: string; ended: boolean } | undefined;
      return row === undefined ? undefined : row.ended ? null : row.v;
    },
    end: async (id, isMinted) => {
      if (!isMinted)
        return ((await this.query(`DELETE FROM "${mcpSessionTable}" WHERE "id" = $1`, [id])).rowCount ?? 0) > 0;
      const marked = await this.query(
        `UPDATE "${mcpSessionTable}" SET "ended" = true, "last_used" = now() WHERE "id" = $1 AND NOT "ended"`,
        [id],
      );
      if ((marked.rowCount ?? 0) > 0) return true;
      const kept = await this.query(
        `INSERT INTO "${mcpSessionTable}" ("id", "protocol_version", "ended") VALUES ($1, '', true) ON CONFLICT ("id") DO NOTHING`,
        [id],
      );
      return (kept.rowCount ?? 0) > 0;
    },
    forgetIdle: async (idleMs, serving, endedMs) => {
      if (serving.length > 0)
        await this.query(`UPDATE "${mcpSessionTable}" SET "last_used" = now() WHERE "id" = ANY($1::text[])`, [serving]);
      await this.query(
        `DELETE FROM "${mcpSessionTable}" WHERE "ended" AND "last_used" < now() - $1::bigint * interval '1 millisecond'`,
        [Math.floor(endedMs)],
      );
      const ended = await this.query(
        `DELETE FROM "${mcpSessionTable}" WHERE NOT "ended" AND "last_used" < now() - $1::bigint * interval '1 millisecond'`,
        [Math.floor(idleMs)],
      );
      return ended.rowCount ?? 0;
    },
  };

  private sessionKey: Promise<Buffer> | undefined;
  /** Named tokens in the database: every instance on it refuses a revoked one at once. */
  readonly namedTokens: NamedTokenDirectory = pgNamedTokens((text, values) => this.query(text, values));
  /** Rate-limit buckets in the database: a caller's limit holds across every instance. */
  readonly rateBuckets: RateBucketDirectory = pgRateBuckets((text, values) => this.query(text, values));
  /** The job outbox in the database: every instance claims from it, each job once per attempt. */
  readonly jobs: JobQueue = jobQueue(
    "postgres",
    (n) => `$${n}`,
    async (text, values) => {
      const r = await this.query(text, values);
      return r.rows as Record<string, unknown>[];
    },
  );

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
  poolUse(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async problem(): Promise<string | undefined> {
    try {
      await this.pool.query("SELECT 1");
      return undefined;
    } catch (err) {
      return describeConnectionFailure(err);
    }
  }

  /**
   * `mode`: a read, a concurrent CRUD write (`rows`), a concurrent write that reads by id only
   * (`keyed`), a write that runs after the others (`serial`), or statements that each commit
   * by themselves (`autocommit`, a group of sole inserts; `begin` is empty). `held` receives
   * the rows a keyed write locked, also when it fails.
   */
  private async transaction<T>(
    begin: string,
    mode: "read" | "rows" | "keyed" | "serial" | "autocommit",
    fn: (tx: StoreTx) => Promise<T>,
    signal: AbortSignal | undefined,
    held?: [string, number][],
  ): Promise<T> {
    if (this.isClosed) throw new Error("the store is closed");
    if (signal?.aborted) throw new StoreCancelledError();
    const client = await this.connect();
    let broken: Error | undefined;
    const isWritable = mode !== "read";
    const tx = new PostgresTx(client, this.ctx, isWritable, mode === "serial" || mode === "keyed", mode === "keyed");
    // BEGIN is not waited for: the body's first statement follows it on the wire at once (the
    // connection pipelines), and waits for its answer. Should BEGIN (or a lock it takes) fail,
    // the statements behind it fail too, and its error is the one that counts (a deadlock runs
    // the call again).
    // No `begin`: a read of one statement (ReadOptions.oneStatement), outside any transaction.
    const isAlone = begin === "";
    if (isAlone && !isWritable) tx.allowOneStatement();
    // BEGIN and the body's first statement in one write to the socket, not one each: the
    // stream holds what is written until the body has sent its first statement (in this turn
    // of the event loop, or in the next for a group's multi-row insert, tx.ts batched).
    const stream = isAlone ? undefined : socketOf(client);
    if (stream !== undefined) {
      stream.cork();
      const release = () => (tx.hasPendingInserts() ? setImmediate(release) : stream.uncork());
      setImmediate(release);
    }
    const begun = isAlone
      ? Promise.resolve(undefined)
      : client.query(begin).then(
          () => undefined,
          (err: unknown) => err,
        );
    try {
      const result = await fn(tx);
      const failedBegin = await begun;
      if (failedBegin !== undefined) throw failedBegin;
      tx.finish();
      // The body read by a condition and went on (it caught what the read threw): run it alone.
      if (tx.readByCondition) throw new ReadsByCondition();
      if (signal?.aborted) throw new StoreCancelledError();
      if (isWritable && !isAlone) await this.ctx.log?.pruneIfDue(client);
      // Sent by the COMMIT (and only if it commits), in commit order, to the other instances;
      // in the COMMIT's own round trip (a simple query of several statements: should a
      // notification fail, the COMMIT is not run and the catch below rolls back).
      // (Autocommit statements change no relayed table: tx.ts fitsSoleInsert.)
      if (!isAlone) {
        const relayed = tx.changes.filter((c) => this.ctx.relayed.has(c.table));
        const payloads = relayed.length > 0 ? changePayloads(this.relay.instanceId, relayed) : [];
        // Only when another instance listens (change-relay.ts): a notifying COMMIT waits for
        // every other one, and each instance's relay wakes for it.
        const notify =
          payloads.length === 0
            ? ""
            : `SELECT pg_notify('${changeChannel}', n.p) FROM (VALUES ${payloads.map((p) => `(${client.escapeLiteral(p)})`).join(", ")}) AS n(p) WHERE ${othersListenSql(this.relay.instanceId)}; `;
        await client.query(`${tx.beforeCommit()}${notify}COMMIT`);
      }
      // After the COMMIT, before the write resolves: a listener sees a change before its writer's answer.
      if (tx.changes.length > 0) this.listeners.publish(tx.changes);
      return result;
    } catch (caught) {
      tx.finish();
      held?.push(...tx.held);
      const err = tx.readByCondition ? new ReadsByCondition() : ((await begun) ?? caught);
      if (isConnectionFailure(err)) {
        broken = err as Error;
        throw this.unavailable(err);
      }
      if (!isAlone)
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

/**
 * The socket under a pool client (node-postgres keeps it as `connection.stream`, and corks it
 * itself around the messages of one extended query); undefined should a version not have it.
 */
function socketOf(client: pg.PoolClient): { cork(): void; uncork(): void } | undefined {
  const stream = (client as unknown as { connection?: { stream?: { cork?: unknown; uncork?: unknown } } }).connection
    ?.stream;
  return typeof stream?.cork === "function" && typeof stream.uncork === "function"
    ? (stream as { cork(): void; uncork(): void })
    : undefined;
}

/** A keyed write (WriteOptions.byKey) read by a condition: it runs again, alone. */
class ReadsByCondition extends Error {
  constructor() {
    super("the write read rows by a condition, not by id");
  }
}

/** Integer ids only, once each, in (table, id) order: the one order every keyed write locks in. */
function keyedRows(rows: readonly (readonly [string, unknown])[]): [string, number][] {
  const seen = new Set<string>();
  const out: [string, number][] = [];
  for (const [table, id] of rows) {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || seen.has(`${table}\u0000${id}`)) continue;
    seen.add(`${table}\u0000${id}`);
    out.push([table, id]);
  }
  return out.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x - y));
}

/**
 * `; SELECT … FOR NO KEY UPDATE` per table for `rows` (keyedRows order): each locks its rows
 * in id order (the sort runs below the lock), tables in name order. Ids are integers, so
 * inlining them is safe, and the statements join BEGIN's round trip.
 */
function lockRowsSql(ctx: PgTxContext, rows: readonly [string, number][]): string {
  const byTable = new Map<string, number[]>();
  for (const [table, id] of rows) {
    if (!ctx.tables.get(table)) continue;
    const ids = byTable.get(table) ?? [];
    ids.push(id);
    byTable.set(table, ids);
  }
  return [...byTable]
    .map(
      ([table, ids]) =>
        `; SELECT 1 FROM ${ctx.tables.get(table)!.quoted} WHERE "id" = ANY('{${ids.join(",")}}'::bigint[]) ORDER BY "id" FOR NO KEY UPDATE`,
    )
    .join("");
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
