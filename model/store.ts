// The Store interface: what the operation layer needs from a database, and nothing more.
// Implementations: SQLite (runtime/store/sqlite.ts, the embedded default) and PostgreSQL
// (runtime/store/postgres/store.ts); openStore
// (runtime/store/open.ts) picks one from the configuration. test/store/conformance.ts is the
// contract every implementation passes.
//
// Rows are JSON objects as the API shows them (nested structs and arrays included); how they
// are laid out in columns is the implementation's business.
//
// Every method is async so the same generated operations run over SQLite and PostgreSQL.
//
// Change events: every write path (CRUD, methods, links, startup hooks) goes through
// StoreTx.insert/update/delete, so the store itself records what each transaction changed
// and publishes it after the commit (onCommit), and keeps a durable change log for the
// tables that need one (changesAfter). spec/live.md is the contract an implementation keeps.

import type { Catalog } from "./app.js";
import type { RowCondition } from "./policy.js";

export type Row = Record<string, unknown>;

/**
 * `==`/`!=` with null test for absence, and `!=` a value also matches rows without one;
 * ordering comparisons never match a row without a value. Text compares by Unicode code point
 * (whatever the database's locale). `in` takes a non-empty array; `contains` a string, matched
 * case-insensitively (Unicode lower case on both sides), `%` and `_` literally. Anything else
 * (or a column that is not a stored scalar) is a StoreQueryError.
 */
export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "contains";

export interface ListQuery {
  /** ANDed conditions on top-level stored scalar columns (and `id`). */
  where?: { column: string; op: Comparison; value: unknown }[];
  /**
   * A policy's row condition with the caller's session bound (model/policy.ts), ANDed with
   * `where`: compiled into the same SQL, so paging, cursors, count and sort stay correct.
   */
  filter?: RowCondition;
  /**
   * Row order: ascending id unless a column is named; ties on the column are broken by id in
   * the same direction. Nulls come first ascending and last descending.
   */
  sort?: { column: string; descending: boolean };
  /**
   * Keyset pagination: only the rows after this one in the query's order, given by its id and
   * (under a `sort`) its value of the sort column, as a row shows it.
   */
  after?: { id: number; value?: unknown; rank?: number };
  /** At most this many rows. */
  limit?: number;
  /**
   * Full-text search (a type with `@search` fields, spec/storage.md "Full-text search"): only
   * rows holding every word, the last one also as a word's start; ANDed with `where` and
   * `filter`. Without a `sort` the rows come by relevance (`searchRank` ascending, ties by id),
   * and `after.rank` continues that order; with a `sort`, in its order.
   */
  search?: string[];
}

/**
 * Where a row of a relevance-ordered list carries its rank (lower is more relevant): a symbol,
 * so no JSON answer ever shows it.
 */
export const searchRank: unique symbol = Symbol("search rank");

/**
 * How a read inside a write transaction holds the row until the commit, for stores whose writes
 * can run side by side (PostgreSQL; SQLite runs one writer at a time and ignores it):
 * `key-share` keeps the row from being deleted (a ref check: the row a new ref names must still
 * be there at the commit); `update` is for the row the transaction is about to change or delete.
 */
export type RowLock = "key-share" | "update";

export interface StoreTx {
  get(table: string, id: number, lock?: RowLock): Promise<Row | undefined>;
  /** Rows in ascending id order, or as `query.sort` says. */
  list(table: string, query?: ListQuery): Promise<Row[]>;
  /** Rows matching `query.where`; sort, after and limit are ignored. */
  count(table: string, query?: ListQuery): Promise<number>;
  /** Mints the id; returns the stored row. Throws StoreConstraintError on a unique violation. */
  insert(table: string, values: Row): Promise<Row>;
  /**
   * Inserts a row under the given `id` (`wo import`: ids are kept so refs resolve); ids minted
   * afterwards continue after the highest one stored. A taken id or unique value throws
   * StoreConstraintError (fields `["id"]` for the id).
   */
  insertWithId(table: string, id: number, values: Row): Promise<Row>;
  /** Shallow merge of top-level fields; undefined when no such row. */
  update(table: string, id: number, patch: Row): Promise<Row | undefined>;
  /** False when no such row. Also deletes the link-type rows that have this row as an endpoint. */
  delete(table: string, id: number): Promise<boolean>;
  /**
   * Runs `fn` inside a savepoint of this write transaction: when it throws, its writes are
   * undone (the transaction goes on) and the error is rethrown. `expect_abort` in tests.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /** Rows elsewhere whose `ref` columns point at (table, id): used to refuse a delete. Link endpoints do not count. */
  referrers(table: string, id: number): Promise<{ table: string; field: string; count: number }[]>;
  /**
   * Appends one entry to the audit trail inside this write transaction (spec/operations.md,
   * "Audit trail"), so it commits or rolls back with the write it records; sweeps entries past
   * the retention when due. Throws in a read() transaction.
   */
  appendAudit(record: AuditRecord): Promise<void>;
  /**
   * Records an application event (`do emit "name"(args)` in a trigger; spec/live.md,
   * "Application events") inside this write transaction: it is in the change log, under
   * `eventLogTable`, exactly when the write commits, and published after the commit like a row
   * change. Throws in a read() transaction.
   */
  appendEvent(event: AppEvent): Promise<void>;
  /**
   * Writes a job (`do enqueue "name" with { … }` in a trigger; spec/operations.md, "Jobs") into
   * the outbox table `jobsTable` inside this write transaction, pending: it exists exactly when
   * the write commits. The commit's changes carry it (table `jobsTable`, its id), so a runner
   * hears of it at once. Throws in a read() transaction.
   */
  appendJob(job: NewJob): Promise<void>;
}

/** The job outbox's table (spec/storage.md): no type's table starts with `_wo_`. */
export const jobsTable = "_wo_jobs";

/** A job as a trigger writes it. */
export interface NewJob {
  name: string;
  /** The `with` fields, as JSON. */
  args: Record<string, unknown>;
  /** The type and row whose write enqueued it. */
  type: string;
  rowId: number;
  /** ISO-8601 UTC with milliseconds; also when it may first run. */
  at: string;
}

export type JobStatus = "pending" | "running" | "done" | "failed";

export const jobStatuses: readonly JobStatus[] = ["pending", "running", "done", "failed"];

/** A job as the outbox keeps it. Times are ISO-8601 UTC with milliseconds. */
export interface Job {
  id: number;
  name: string;
  args: Record<string, unknown>;
  status: JobStatus;
  /** Runs started so far (a claim starts one). */
  attempts: number;
  /** Pending: when it may run (after a failure, the backoff's end). */
  runAt: string;
  /** Running: until when the claim holds; past it the job may be claimed again. */
  claimedUntil: string | null;
  lastError: string | null;
  type: string;
  rowId: number;
  createdAt: string;
  updatedAt: string;
}

/** Which jobs a claim may take: by name, or those a runner runs (`only`) or does not (`except`). */
export interface JobClaim {
  name?: string;
  only?: readonly string[];
  except?: readonly string[];
  /** How long the claim holds. */
  leaseMs: number;
  /** A running job whose lease ran out after this many attempts fails instead of running again. */
  maxAttempts: number;
  now: number;
}

/**
 * The job outbox of one database (spec/operations.md, "Jobs"): every instance on it shares it.
 * A claim takes one due job (pending and due, or running with its lease run out) atomically, so
 * two claimers never hold the same job at once (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
 */
export interface JobQueue {
  claim(claim: JobClaim): Promise<Job | undefined>;
  /** Marks a running job done; `attempt` (when given) must be its current one. False otherwise. */
  complete(id: number, attempt: number | undefined, now: number): Promise<Job | undefined>;
  /**
   * Records a failed run of a running job: pending again at `retryAt`, or `failed` when `retryAt`
   * is undefined. Undefined when it was not running (or another attempt holds it).
   */
  fail(
    id: number,
    attempt: number | undefined,
    error: string,
    retryAt: number | undefined,
    now: number,
  ): Promise<Job | undefined>;
  get(id: number): Promise<Job | undefined>;
  /** Newest first; `status`, `name` filter. */
  list(query: { status?: JobStatus; name?: string; limit: number }): Promise<Job[]>;
}

/**
 * The change log's name for application events: not a table of the database (no type's table
 * starts with `_wo_`), only the `table` its entries and commit events carry.
 */
export const eventLogTable = "_wo_events";

/**
 * One application event, as the change log keeps it (the `row` of its RowChange, whose `id` is
 * `rowId`). `source` is the emitting row as stored then (the row before a delete): whom the
 * event may reach is decided by the read policy of `type` on it (runtime/app-events.ts). It is
 * never sent to a client.
 */
export interface AppEvent {
  name: string;
  /** The argument values, as JSON (a row as REST shows it). */
  args: unknown[];
  /** The emitting type and its table. */
  type: string;
  table: string;
  rowId: number;
  /** When it was emitted: ISO-8601 UTC with milliseconds. */
  at: string;
  source: Row;
}

/**
 * One entry of the audit trail: who called, when, from where, what, and how it ended. Never
 * argument values or credentials.
 */
export interface AuditRecord {
  /** When the call was made: ISO-8601 UTC with milliseconds. */
  at: string;
  /** The principal's name, `$session.user`, `$session.role` and how it was identified (model/principal.ts). */
  principal: string;
  user: string | null;
  role: string | null;
  via: string;
  /** rest, mcp, test, exec, startup, explorer, cli; `internal` for an in-process caller. */
  surface: string;
  /** The operation's tool name (`post_create`), or an entry point (`(startup)`, `(main)`). */
  operation: string;
  /** The declared type it belongs to; null for an entry point. */
  type: string | null;
  /** The row it wrote (the created row's id), null when there is none. */
  rowId: number | null;
  /** `ok`, or the OperationError kind that ended the call (`not_found`, `aborted`, …). */
  outcome: string;
}

/** A stored audit entry: `seq` increases with every entry and is the paging cursor. */
export interface AuditEntry extends AuditRecord {
  seq: number;
}

export interface AuditQuery {
  /** Entries at or after this ISO-8601 time. */
  since?: string;
  /** Only this `$session.user`. */
  user?: string;
  /** Entries with a seq above this (the cursor of the previous page). */
  after?: number;
  limit: number;
}

/**
 * How much of the audit trail a store keeps (wo.toml `[audit] retention`): entries younger
 * than `maxAgeMs`, or the newest `maxRows`. Older ones are deleted in batches by later writes.
 */
export type AuditRetention = { maxAgeMs: number } | { maxRows: number };

/** What a committed write did to one row. */
export type ChangeOp = "create" | "update" | "delete";

/**
 * One row change of a committed transaction (spec/live.md, "Change events and the change
 * log"). Published after the durable commit that holds it, never before and never for a write
 * that rolled back.
 */
export interface RowChange {
  table: string;
  op: ChangeOp;
  id: number;
  /** The row as committed; null after a delete. */
  row: Row | null;
  /**
   * After a delete, the row as it was (commit events only, not the change log): a live stream
   * tests it against the caller's read policy, so nobody hears of a row it could not read.
   */
  previous?: Row;
  /**
   * Its position in the durable change log: present only for tables the log records (a type
   * that exposes `subscribe`). Increases in commit order; never reused.
   */
  seq?: number;
}

/**
 * Receives the changes of each commit, in commit order, after the commit is durable. Called
 * synchronously: a listener must only queue work. What it throws is swallowed (a listener
 * never fails a write, and the others still run).
 */
export type CommitListener = (changes: readonly RowChange[]) => void;

/** A read of the change log after a position: the changes, or `gone` when some were pruned. */
export type ChangeLogRead = { gone: false; changes: RowChange[]; more: boolean } | { gone: true; newest: number };

export interface WriteOptions {
  /** When aborted before commit, the transaction rolls back and the call rejects with StoreCancelledError. */
  signal?: AbortSignal;
  /**
   * The write reads only the rows it changes (with `lock: "update"`) and the rows its refs name
   * (`lock: "key-share"`), and relies on the store's unique indexes for the rest: the CRUD and
   * relation writes. A store may run it beside other writes instead of after them.
   */
  concurrent?: boolean;
  /**
   * With `concurrent`: the write only inserts (a create: it reads nothing but the rows its refs
   * name). A store may run it in one transaction with other such writes, one after another,
   * and commit them together; each still resolves only after that commit, and one that fails
   * fails alone.
   */
  groupable?: boolean;
  /**
   * With `groupable`: the callback does nothing in the transaction but one `insert` into this
   * table, whose row it returns, and then appends `audit` (filled with the row's id, as
   * runtime/operations/audit.ts appendingAudit does). A store may then write the row and its
   * audit entry in one statement of their own, outside any transaction; should the callback
   * try anything else before its insert, the store runs it again the ordinary way.
   */
  soleInsert?: string;
  /** The audit record the write appends last (runtime/operations/audit.ts), when there is one. */
  audit?: AuditRecord;
  /**
   * The write reads rows only by their id (`get`, or `list`/`count` whose only condition is
   * `id ==` or `id in`): a method whose reads the compiler could bound. A store may run it
   * beside other such writes, holding every row it reads until its commit; `lockFirst` names
   * rows it is known to read (table, id; ids that are not integers are skipped), which the store
   * locks before anything else, in one order for every writer, so two of these writes cannot
   * deadlock over them. Should it read by another condition after all, the store runs it again
   * from the start as an ordinary write.
   */
  byKey?: { lockFirst: readonly (readonly [table: string, id: unknown])[] };
}

export interface ReadOptions {
  /**
   * The callback runs one statement (one get or list): a store may run it without a
   * transaction of its own, since one statement sees one snapshot anyway.
   */
  oneStatement?: boolean;
}

export interface Store {
  /** A consistent read-only view of committed data. */
  read<T>(fn: (tx: StoreTx) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * One transaction: resolves only after a durable commit; any rejection inside `fn` rolls
   * back every write of the call. Writers are serialized, except that a `concurrent` write may
   * run beside others: the result is still that of some serial order of the committed writes.
   */
  write<T>(fn: (tx: StoreTx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Migrates the open store to `catalog`'s shape while it serves (`wo run --watch`;
   * spec/live.md), by the rules of the migration at open: writes submitted before it commit on
   * the old shape, those after it see the new one, and the lock stays held. A refused change
   * rejects with MigrationRefusedError and changes nothing. Optional: without it, a new build
   * whose shape differs cannot be swapped in, and wo says to restart.
   */
  migrate?(catalog: Catalog, options: { allowDestructive: boolean }): Promise<MigrationReport>;
  /**
   * Calls `listener` after every commit that changed rows, with those changes in commit order:
   * every commit after it was added, also of a transaction that was already running then.
   * Returns the function that stops it.
   */
  onCommit(listener: CommitListener): () => void;
  /**
   * The logged changes of `table` with seq > `after`, oldest first, at most `limit`; `more`
   * when others follow. `gone` when a change after `after` may have been pruned (bounded
   * retention) or `after` is beyond the newest seq: the caller must start over from `newest`.
   */
  changesAfter(table: string, after: number, limit: number): Promise<ChangeLogRead>;
  /** The audit trail's entries matching `query`, in seq order; `more` when others follow. */
  readAudit(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }>;
  close(): Promise<void>;
  /**
   * For /healthz: undefined while the database answers, else why it does not. Absent for an
   * embedded database, which is there whenever the process is.
   */
  problem?(): Promise<string | undefined>;
  /**
   * A store with a connection pool (PostgreSQL): its connections now, those idle, and the
   * callers waiting for one (the admin listener's gauges). Absent: no pool.
   */
  poolUse?(): { total: number; idle: number; waiting: number };
  /**
   * A store that several instances share (PostgreSQL) keeps 2025-era MCP session ids here, so
   * a client whose requests land on any instance keeps its session. Absent: sessions live in
   * the memory of the instance that made them.
   */
  readonly mcpSessions?: McpSessionDirectory;
  /**
   * The app's named tokens (spec/operations.md, "Tokens"), kept in the database so that every
   * instance on it knows the same ones. Absent: a store that keeps none.
   */
  readonly namedTokens?: NamedTokenDirectory;
  /**
   * A store that several instances share (PostgreSQL) keeps the callers' rate-limit buckets
   * (spec/operations.md, "Rate limits"), so a caller's limit holds across all of them. Absent:
   * buckets live in the memory of this process.
   */
  readonly rateBuckets?: RateBucketDirectory;
  /** The job outbox (spec/operations.md, "Jobs"). Absent: a store that keeps no jobs. */
  readonly jobs?: JobQueue;
}

/** What taking a token from a bucket answered. */
export interface BucketTake {
  taken: boolean;
  /** When not taken: seconds (fractional) until the bucket holds a whole token again. */
  waitSeconds: number;
}

/** Token buckets kept where every instance on one database sees the same ones. */
export interface RateBucketDirectory {
  /**
   * Refills the bucket `key` (full at `capacity`, `perSecond` tokens a second since it was last
   * taken from) and takes one token if it holds one, atomically for every instance. A bucket
   * never seen is full.
   */
  take(key: string, capacity: number, perSecond: number): Promise<BucketTake>;
}

/** A named token as stored: never the token itself, only its SHA-256. */
export interface NamedTokenRecord {
  name: string;
  role: string;
  /** `--user`: the caller's user id as text. */
  user: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, to within a minute; null until first used. */
  lastUsed: string | null;
}

/** The named tokens of one database: `wo token add/list/revoke` and the edge's lookups. */
export interface NamedTokenDirectory {
  /**
   * Stores a new token by the hex SHA-256 of its text; false when `name` is taken (nothing
   * stored). `audit`, when given, is appended to the audit trail in the same transaction.
   */
  add(token: { name: string; role: string; user: string | null; hash: string }, audit?: AuditRecord): Promise<boolean>;
  /** Every token, by name. */
  list(): Promise<NamedTokenRecord[]>;
  /** Removes the token: refused from now on, by every instance. False when there was none of that name. */
  revoke(name: string, audit?: AuditRecord): Promise<boolean>;
  /** The token whose text has this hex SHA-256, with its hash as stored; undefined when none has. */
  find(hash: string): Promise<(NamedTokenRecord & { hash: string }) | undefined>;
  /** Records that `name` was used now. */
  touch(name: string): Promise<void>;
  /** How many tokens there are. */
  count(): Promise<number>;
}

/**
 * The MCP sessions every instance on one database knows: a row per session from its first
 * request until it is ended or idle. A session not used yet has no row; its id alone, signed
 * with `sharedKey`, tells any instance that one of them minted it (runtime/mcp/session-ids.ts).
 */
export interface McpSessionDirectory {
  /** A secret every instance on this database shares (made once, with the database). */
  sharedKey(): Promise<Uint8Array>;
  /**
   * Writes the session's row (nothing when it is there already). False when the table holds
   * `maxSessions` rows even after those idle for `idleMs` were deleted: the session cannot start.
   */
  record(id: string, protocolVersion: string, maxSessions: number, idleMs: number): Promise<boolean>;
  /**
   * The session's protocol version; null when it was ended (DELETE); undefined when it has no
   * row. Marks it used, to within a sixtieth of `idleMs` (a minute for an hour): most lookups
   * only read.
   */
  lookup(id: string, idleMs: number): Promise<string | null | undefined>;
  /**
   * Ends the session on every instance; false when there was no such session. `isMinted`: the
   * id is one an instance minted lately, which without a row any instance would still take for
   * a session not used yet, so a row is kept saying it ended (until forgetIdle drops it).
   */
  end(id: string, isMinted: boolean): Promise<boolean>;
  /**
   * Marks `serving` used (the sessions this instance holds a GET stream or a call of), then ends
   * every session nobody used for `idleMs`, on every instance, and forgets ended ones after
   * `endedMs`; resolves with how many idle ones ended.
   */
  forgetIdle(idleMs: number, serving: readonly string[], endedMs: number): Promise<number>;
}

// Store errors: what can go wrong in any store, in the store's own words. A store never throws
// the operation layer's errors; the operation layer maps these to statuses in one place
// (translateStoreErrors in runtime/operations/runtime.ts). Anything else a store throws is a bug.

/**
 * The database cannot grow: the disk it is on is full, or it reached the size set with
 * `[database] max_bytes`. Nothing of the write was kept; reads still work, and writes work
 * again once space is freed. `message` says which, with the file, for the server log.
 */
export class StoreFullError extends Error {}

/** A constraint the store enforces itself, reported with the names a user wrote. */
export class StoreConstraintError extends Error {
  constructor(
    readonly constraint: "unique",
    readonly table: string,
    readonly fields: string[],
  ) {
    super(`${constraint} constraint on ${table}(${fields.join(", ")})`);
  }
}

/**
 * The database cannot be reached (a database server that is down, refuses the connection or
 * dropped it). The call was not acknowledged; it may succeed once the database is back.
 * `message` is for the server log and never carries credentials.
 */
export class StoreUnavailableError extends Error {}

/**
 * The database stayed locked by someone outside this store (another process, a backup tool)
 * for longer than the store waits. Nothing of the call was kept; retrying later may succeed.
 */
export class StoreBusyError extends Error {}

/** The write's `signal` was aborted before the commit: nothing of it was kept. */
export class StoreCancelledError extends Error {
  constructor() {
    super("the write was cancelled before its changes were committed; nothing was written");
  }
}

/**
 * A list or count the store cannot run: a `where` or `sort` on a column that is not a stored
 * scalar (or `id`), or an operand of the wrong form. The operation layer checks its input
 * first, so reaching this is a caller's mistake; nothing is read or written.
 */
export class StoreQueryError extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Why a store could not be opened, in words for the person running wo: the CLI prints the
 * message and exits 1 without a stack trace. Anything else opening a store throws is a bug.
 */
export class StoreOpenError extends Error {}

/** What opening a store did to the database's schema. */
export interface MigrationReport {
  /** Each change made, in words; empty when the database already had this shape. */
  applied: string[];
  /** Changes not made. Non-empty only inside a MigrationRefusedError (the open failed). */
  refused: string[];
}

/**
 * What opening the store would do to it, found by running the migration and rolling it back
 * (`wo migrate --plan`): each change in words, the statements it runs in that database's own
 * SQL with the rows each touched, and, when `wo run` would refuse it, why.
 */
export interface MigrationPlan {
  /** The database as messages name it (no password). */
  where: string;
  changes: { severity: "additive" | "destructive" | "blocked"; text: string }[];
  /** In the order they run; `rows` for statements that change rows. Blocked changes run none. */
  statements: { sql: string; rows?: number }[];
  /** Set when `wo run` would refuse to open the store: the refusal's message. */
  refusal?: string;
}

/**
 * The catalog changed in ways that would drop or narrow stored data (`changes`, applied only
 * with `--allow-destructive-migration`) or that cannot be applied to it at all (`blocked`).
 * Each is listed in words; nothing was changed. `database` names it for the message.
 */
export class MigrationRefusedError extends StoreOpenError {
  constructor(
    readonly database: string,
    readonly changes: string[],
    readonly blocked: string[],
  ) {
    super(refusalMessage(database, changes, blocked));
  }
}

function refusalMessage(database: string, changes: string[], blocked: string[]): string {
  const lines: string[] = [];
  if (changes.length > 0) {
    lines.push(`The database ${database} was not changed: the new .wo files would drop or narrow stored data:`);
    for (const c of changes) lines.push(`  - ${c}`);
    lines.push("To apply these changes anyway (this cannot be undone), run again with --allow-destructive-migration.");
  }
  if (blocked.length > 0) {
    lines.push(
      `The database ${database} was not changed: these changes cannot be applied to the stored data, even with --allow-destructive-migration:`,
    );
    for (const c of blocked) lines.push(`  - ${c}`);
    lines.push("Fix the data (or the .wo files) and start again.");
  }
  return lines.join("\n");
}
