// StoreTx over one PostgreSQL connection: the queries behind get/list/count/insert/update/
// delete/referrers, with the semantics of the SQLite store (sqlite-tx.ts) that the Store
// interface promises: the same rows, the same filter, sort and cursor rules, nulls first
// ascending and last descending, `contains` ignoring Unicode case. Transaction boundaries and
// retries belong to store.ts; this class only runs statements inside a transaction it is given.
//
// Statements are named (prepared once per connection by node-postgres) under a short
// query-shape key, as on SQLite, so a hot query is parsed and planned once per connection.

import type pg from "pg";
import { EACH, refPathLabel, type RefStep } from "../../../model/ref-paths.js";
import type { IndexShape } from "../../../model/storage-shape.js";
import {
  eventLogTable,
  jobsTable,
  StoreConstraintError,
  type AppEvent,
  type NewJob,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type ChangeOp,
  type ListQuery,
  type Row,
  type RowChange,
  type RowLock,
  searchRank,
  type StoreTx,
} from "../../../model/store.js";
import { compileCondition, postgresDialect, queryCondition, searchShapeOf } from "../conditions.js";
import { idColumn, queryColumn } from "../query-columns.js";
import { quoteId } from "../ddl.js";
import { appendJobSql } from "../job-outbox.js";
import type { TableInfo, TableRegistry } from "../tables.js";
import type { PgChangeLog } from "./change-log.js";
import { othersListenSql } from "./change-relay.js";
import {
  appendAuditSql,
  auditColumns,
  auditPage,
  auditTable,
  auditValues,
  readAuditSql,
  type AuditSweep,
} from "../audit-trail.js";
import { pgCastType, pgIdentifier, pgIndexedColumn, pgSearchColumn, pgSearchConfig } from "./ddl.js";

/** SQL text per query-shape key, and the statement name it is prepared under; shared by all connections. */
export class StatementNames {
  private readonly names = new Map<string, { name: string; text: string }>();

  /**
   * `generation` tells the names of one shape from the next (a migration while serving): a
   * connection keeps what it prepared, and a name must never come back with other SQL.
   */
  constructor(private readonly generation = 0) {}

  get(key: string, sql: () => string): { name: string; text: string } {
    let s = this.names.get(key);
    if (s === undefined) {
      s = { name: `wo_${this.generation}_${this.names.size + 1}`, text: sql() };
      this.names.set(key, s);
    }
    return s;
  }
}

/** Placeholders $1, $2, … with their values, built left to right. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export interface PgTxContext {
  tables: TableRegistry;
  statements: StatementNames;
  /**
   * The collation `contains` lowers values under: an ICU one where the server has ICU
   * (Unicode case, as JavaScript's toLowerCase), else the database's default.
   */
  foldCollation: string;
  /** The durable change log, when some table is logged. */
  log?: PgChangeLog;
  /** When an append to the audit trail also sweeps it (../audit-trail.ts). */
  auditSweep: AuditSweep;
  /** The tables whose changes are sent to the other instances (change-relay.ts relayedTables). */
  relayed: ReadonlySet<string>;
  /** Multi-row inserts sent for groups of creates, and the rows in them (benches, tests). */
  rowInserts: { statements: number; rows: number };
  /** This instance's change relay: who it is, and whether others listened when it last looked. */
  relay?: { readonly instanceId: string; othersListen: boolean };
}

const pgPlaceholder = (n: number) => `$${n}`;

/** `INSERT INTO "_wo_audit" (…) VALUES`, to be followed by the rows' tuples. */
const auditInsertHead = appendAuditSql(pgPlaceholder).replace(/ VALUES \(.*\)$/, " VALUES");

/**
 * A savepoint asked for in a transaction that a group of creates shares (store.ts runs the
 * group again, each create on its own).
 */
export class SharedTransactionRefused extends Error {
  constructor() {
    super("a savepoint in a transaction shared by a group of creates");
  }
}

/**
 * A sole insert (WriteOptions.soleInsert) that asked for something else (store.ts runs it
 * again, in a transaction of its own, when it had not yet written its row).
 */
export class SoleInsertRefused extends Error {
  constructor(what: string) {
    super(`internal error: a sole insert asked for ${what}`);
  }
}

/**
 * Can a sole insert into `table` go as one statement of its own? Not when its create must do
 * more in the same transaction: take a change-log seq (a logged table), send a notification
 * (a relayed table while another instance listens), or insert without a multi-row INSERT
 * (unique indexes, no columns).
 */
export function fitsSoleInsert(ctx: PgTxContext, table: string): boolean {
  const t = ctx.tables.get(table);
  return (
    t !== undefined &&
    t.shape.columns.length > 0 &&
    !t.shape.indexes.some((ix) => ix.isUnique) &&
    !ctx.log?.logs(table) &&
    (!ctx.relayed.has(table) || ctx.relay?.othersListen === false)
  );
}

export class PostgresTx implements StoreTx {
  private isOpen = true;
  private savepoints = 0;
  /** What this transaction changed, in order (writable transactions only): published after the COMMIT. */
  readonly changes: RowChange[] = [];

  /** A keyed transaction that read by a condition (store.ts runs it again, alone). */
  readByCondition = false;
  /** The rows a keyed transaction's reads locked, as (table, id): locked first should it run again. */
  readonly held: [string, number][] = [];

  /**
   * `locksReads`: a method (store.ts) runs beside the concurrent CRUD writes (and, when
   * `keyed`, beside other methods), so what it reads it holds until its commit (`FOR NO KEY
   * UPDATE`): a row it read cannot change under it before it writes it back. `keyed`: it may
   * read by id only; a read by another condition could miss a row another writer is adding, so
   * it is refused (ReadsByCondition in store.ts) and the write runs again alone.
   */
  constructor(
    private readonly client: pg.PoolClient,
    private readonly ctx: PgTxContext,
    private readonly isWritable: boolean,
    private readonly locksReads = false,
    private readonly keyed = false,
  ) {}

  /** In a keyed transaction, a query whose condition is not `id ==` / `id in` ends the attempt. */
  private requireKeyed(query: ListQuery | undefined): void {
    if (!this.keyed) return;
    const where = query?.where ?? [];
    if (where.length === 1 && where[0]!.column === "id" && (where[0]!.op === "==" || where[0]!.op === "in")) return;
    this.readByCondition = true;
    throw new Error("this write reads rows by a condition; it runs again on its own");
  }

  /**
   * Rows this write transaction holds locked against deletion by others (read `FOR NO KEY
   * UPDATE` or `FOR UPDATE`, updated or inserted by it), as it last saw them: a ref check
   * (`key-share`) of one of them needs no round trip, since nobody else can remove or change it
   * before the commit. Forgotten on delete, and wholly when a savepoint rolls back (its row
   * locks go with it).
   */
  private readonly mine = new Map<string, Row>();

  private keep(table: string, id: number, row: Row | undefined): void {
    if (!this.isWritable) return;
    if (row === undefined) this.mine.delete(`${table}\u0000${id}`);
    else this.mine.set(`${table}\u0000${id}`, { ...row });
  }

  /** Remembers the rows a keyed read locked. */
  private hold(table: string, rows: Row[], lock: RowLock | undefined): void {
    if (this.keyed && lock === undefined) for (const r of rows) this.held.push([table, r.id as number]);
  }

  /** The row-lock clause a read ends with in this transaction. */
  private lockClause(lock: RowLock | undefined): string {
    if (!this.isWritable) return "";
    if (lock === "key-share") return " FOR KEY SHARE";
    if (lock === "update") return " FOR UPDATE";
    return this.locksReads ? " FOR NO KEY UPDATE" : "";
  }

  /** Called when the transaction ends: a callback that kept `tx` must not write outside it. */
  finish(): void {
    this.isOpen = false;
  }

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `wo_sp_${++this.savepoints}`;
    const mark = this.changes.length;
    const deferred = this.audits.length;
    // Transactions shared by a group's creates run their callbacks side by side: a savepoint
    // of one would roll back the others' statements too. The group runs again, one at a time.
    if (this.batches !== undefined) throw new SharedTransactionRefused();
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      this.mine.clear();
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      // The undone writes were never committed: no event for them (their log rows went too).
      this.changes.length = mark;
      this.audits.length = deferred;
      throw err;
    }
  }

  private async record(table: string, op: ChangeOp, id: number, row: Row | null, previous?: Row): Promise<void> {
    // A copy: the caller owns the row it was handed and may change it before the commit.
    const change: RowChange = { table, op, id, row: row === null ? null : { ...row } };
    if (previous !== undefined) change.previous = previous;
    if (this.ctx.log?.logs(table)) change.seq = await this.ctx.log.append(this.client, table, op, id, row);
    this.changes.push(change);
  }

  async appendAudit(record: AuditRecord): Promise<void> {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    // Sent with the COMMIT (store.ts, `beforeCommit`), in its round trip: the entry is the
    // call's last statement anyway, and should it fail the COMMIT is not run.
    this.audits.push(auditValues(record));
    const sweep = this.ctx.auditSweep.due(pgPlaceholder);
    if (sweep) await this.client.query(sweep);
  }

  async appendEvent(event: AppEvent): Promise<void> {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    // The store was opened for a build that emits nothing (loggedTables): refuse, never drop it.
    if (!this.ctx.log?.logs(eventLogTable)) throw new Error("this store keeps no application events");
    // An entry of the change log like a row change: durable with the write, resumable by seq.
    await this.record(eventLogTable, "create", event.rowId, event as unknown as Row);
  }

  async appendJob(job: NewJob): Promise<void> {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    const r = await this.client.query<{ id: string }>(appendJobSql(pgPlaceholder, job));
    const id = Number(r.rows[0]!.id);
    // In the commit's changes, so this instance's job runner hears of it after the commit.
    this.changes.push({ table: jobsTable, op: "create", id, row: { id, name: job.name } });
  }

  /** The audit entries of this transaction, in order, as bound values (auditValues). */
  private readonly audits: unknown[][] = [];

  /**
   * What store.ts sends in the COMMIT's round trip, before it (ending in `; `): every audit
   * entry of the transaction as one multi-row INSERT (one statement to parse and plan for a
   * whole group of creates, not one each). Literals, since a simple query of several
   * statements takes no parameters.
   */
  beforeCommit(): string {
    if (this.audits.length === 0) return "";
    const rows = this.audits.map((values) => `(${values.map((v) => this.literal(v)).join(", ")})`);
    return `${auditInsertHead} ${rows.join(", ")}; `;
  }

  /** A value as an SQL literal: text escaped by the driver, integers as digits, null. */
  private literal(value: unknown): string {
    if (value === null || value === undefined) return "NULL";
    if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
    if (typeof value === "string") return this.client.escapeLiteral(value);
    throw new Error(`cannot write ${typeof value} as an SQL literal`);
  }

  /** A page of the audit trail, as this snapshot sees it. */
  async readAudit(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const r = await this.client.query<Row>(readAuditSql(pgPlaceholder, query));
    return auditPage(r.rows, query.limit);
  }

  /** The change log's entries of `table` after `after`, as this snapshot sees them. */
  readChangeLog(log: PgChangeLog, table: string, after: number, limit: number) {
    return log.read(this.client, table, after, limit);
  }

  /** Statements this transaction may still run, when it is a single statement outside a transaction. */
  private statementsLeft = Number.POSITIVE_INFINITY;

  /** store.ts runs this read as one statement outside a transaction: a second would see another snapshot. */
  allowOneStatement(): void {
    this.statementsLeft = 1;
  }

  private async run(key: string, sql: () => string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    if (this.statementsLeft-- <= 0)
      throw new Error("internal error: a read marked oneStatement ran a second statement");
    const { name, text } = this.ctx.statements.get(key, sql);
    return this.client.query<Row>({ name, text, values });
  }

  async get(table: string, id: number, lock?: RowLock): Promise<Row | undefined> {
    const t = this.table(table);
    if (!Number.isSafeInteger(id)) return undefined;
    if (lock === "key-share") {
      const held = this.mine.get(`${table}\u0000${id}`);
      if (held !== undefined) return { ...held };
    }
    const clause = this.lockClause(lock);
    const r = await this.run(
      `get:${table}${clause}`,
      () => `SELECT ${t.selectList} FROM ${t.quoted} WHERE "id" = $1${clause}`,
      [id],
    );
    this.hold(table, r.rows, lock);
    if (clause !== "" && clause !== " FOR KEY SHARE") this.keep(table, id, r.rows[0]);
    return r.rows[0];
  }

  async list(table: string, query: ListQuery = {}): Promise<Row[]> {
    const t = this.table(table);
    this.requireKeyed(query);
    const params = new Params();
    const where = this.compileWhere(t, query, params);
    const byRank = query.search !== undefined && query.sort === undefined;
    const order = byRank ? this.compileRankOrder(t, query, params) : this.compileOrder(t, query, params);
    const conds = [...where.conds, ...order.after];
    const hasLimit = query.limit !== undefined;
    const limit = hasLimit ? ` LIMIT ${params.add(Math.max(0, Math.trunc(query.limit!)))}` : "";
    const clause = this.lockClause(undefined);
    const rank = "select" in order ? `, ${order.select} AS "_wo_rank"` : "";
    const sql = `SELECT ${t.selectList}${rank} FROM ${t.quoted}${whereClause(conds)} ORDER BY ${order.orderBy}${limit}${clause}`;
    const r = await this.run(
      `list:${table}:${where.key}:${order.key}${hasLimit ? ":limit" : ""}${clause}`,
      () => sql,
      params.values,
    );
    if (byRank) {
      for (const row of r.rows) {
        (row as Record<symbol, unknown>)[searchRank] = row._wo_rank;
        delete row._wo_rank;
      }
    }
    this.hold(table, r.rows, undefined);
    if (clause !== "") for (const row of r.rows) this.keep(table, row.id as number, row);
    return r.rows;
  }

  async count(table: string, query: ListQuery = {}): Promise<number> {
    const t = this.table(table);
    this.requireKeyed(query);
    const params = new Params();
    const where = this.compileWhere(t, query, params);
    const sql = `SELECT COUNT(*) AS n FROM ${t.quoted}${whereClause(where.conds)}`;
    const r = await this.run(`count:${table}:${where.key}`, () => sql, params.values);
    return Number(r.rows[0]!.n);
  }

  async insert(table: string, values: Row): Promise<Row> {
    const t = this.writableTable(table);
    const columns = t.shape.columns;
    const sql = () => {
      const values =
        columns.length === 0
          ? "DEFAULT VALUES"
          : `(${columns.map((c) => quoteId(c.name)).join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
      return `INSERT INTO ${t.quoted} ${values} RETURNING ${t.selectList}`;
    };
    // The id is always minted here: a caller-supplied `id` is ignored.
    const params = columns.map((c) => t.codec.encode(c, values[c.name]));
    const uniques = t.shape.indexes.filter((ix) => ix.isUnique);
    if (uniques.length === 0) {
      const row =
        this.batches !== undefined && columns.length > 0
          ? await this.batched(t, params)
          : (await this.run(`insert:${table}`, sql, params)).rows[0]!;
      this.keep(table, row.id as number, row);
      await this.record(table, "create", row.id as number, row);
      return row;
    }
    // A failed statement would abort the whole transaction, where on SQLite the caller may
    // catch the violation and go on. So a row whose unique values are taken is not inserted at
    // all (and mints no id, as on SQLite): NOT EXISTS per unique index, and DO NOTHING when a
    // row with the value appears anyway: a concurrent write (store.ts) that had not committed
    // when this statement began, which DO NOTHING waits for.
    const r = await this.run(
      `insert-unique:${table}`,
      () => {
        const position = new Map(columns.map((c, i) => [c.name, i + 1]));
        const free = uniques.map((ix) => {
          const same = ix.columns.map(
            (c) =>
              `${pgIndexedColumn(c, ix.collation)} = ${ix.collation === "nocase" ? `lower($${position.get(c)})` : `$${position.get(c)}`}`,
          );
          return `NOT EXISTS (SELECT 1 FROM ${t.quoted} WHERE ${same.join(" AND ")})`;
        });
        const typed = columns.map((c, i) => `$${i + 1}::${pgCastType(c)}`);
        return `INSERT INTO ${t.quoted} (${columns.map((c) => quoteId(c.name)).join(", ")}) SELECT ${typed.join(", ")} WHERE ${free.join(" AND ")} ON CONFLICT DO NOTHING RETURNING ${t.selectList}`;
      },
      params,
    );
    if (r.rows[0] !== undefined) {
      this.keep(table, r.rows[0].id as number, r.rows[0]);
      await this.record(table, "create", r.rows[0].id as number, r.rows[0]);
      return r.rows[0];
    }
    throw new StoreConstraintError("unique", t.shape.table, await this.takenUnique(t, uniques, values));
  }

  /**
   * Inserts of one table that a group's creates ask for in the same turn, pending: sent as one
   * multi-row `INSERT … VALUES (…), (…) RETURNING` (batched()). Only in a shared transaction.
   */
  private batches: Map<TableInfo, BatchedRow[]> | undefined;

  /** Inserts wait to be sent as one (store.ts keeps the socket corked until they are). */
  hasPendingInserts(): boolean {
    return this.batches !== undefined && this.batches.size > 0;
  }

  /** From now on this transaction is shared by a group of creates run side by side (store.ts). */
  shareAmongGroup(): void {
    this.batches = new Map();
  }

  /**
   * No transaction at all, shared by a group of `members` sole inserts (store.ts): each table's
   * rows go with their audit entries as one statement that commits by itself
   * (insertRowsAudited), as soon as every member has asked for its row (soleInsertArrived).
   */
  shareAmongSoleInserts(members: number): void {
    this.batches = new Map();
    this.isAutocommit = true;
    this.soleInsertsToArrive = members;
  }

  private isAutocommit = false;
  private soleInsertsToArrive = 0;

  /**
   * The connection as one sole insert of the group sees it: its insert, its audit entry, nothing
   * else (SoleInsertTx.run runs its create and tells this transaction when it has arrived).
   */
  soleInsertView(audit: AuditRecord): SoleInsertTx {
    return new SoleInsertTx(this, audit);
  }

  /** A sole insert's row and its audit entry, in the group's next statement for `table`. */
  async insertAudited(table: string, values: Row, audit: AuditRecord): Promise<Row> {
    const t = this.writableTable(table);
    if (!this.isAutocommit || !fitsSoleInsert(this.ctx, table)) throw new SoleInsertRefused(`an insert into ${table}`);
    const row = await this.batched(
      t,
      t.shape.columns.map((c) => t.codec.encode(c, values[c.name])),
      audit,
    );
    // Committed: published after the group (store.ts), as a transaction's changes are.
    this.changes.push({ table, op: "create", id: row.id as number, row: { ...row } });
    return row;
  }

  /**
   * One row of a multi-row insert: the rows of the table asked for until the event loop turns
   * (or, in a group of sole inserts, until every create has asked, soleInsertArrived) go as one
   * statement (prepared per table and row count), and RETURNING gives the rows back in the
   * order of VALUES, each to its create.
   */
  private batched(t: TableInfo, params: unknown[], audit?: AuditRecord): Promise<Row> {
    const batches = this.batches!;
    return new Promise<Row>((resolve, reject) => {
      const settle = (row: Row | Error) => (row instanceof Error ? reject(row) : resolve(row));
      const entry = { params, settle, audit };
      const pending = batches.get(t);
      if (pending !== undefined) return void pending.push(entry);
      batches.set(t, [entry]);
      setImmediate(() => this.sendBatch(t));
    });
  }

  /** The pending rows of `t`, if any are left, as one statement. */
  private sendBatch(t: TableInfo): void {
    const rows = this.batches!.get(t);
    if (rows === undefined) return;
    this.batches!.delete(t);
    (this.isAutocommit ? this.insertRowsAudited(t, rows) : this.insertRows(t, rows)).catch((err: unknown) => {
      for (const r of rows) r.settle(err as Error);
    });
  }

  /**
   * One of the group's sole inserts has asked for its row or settled without it: once all
   * have, nothing more can join the statements, so they go now instead of when the event loop
   * turns (an event-loop turn on a busy process costs milliseconds of every create's latency).
   */
  soleInsertArrived(): void {
    if (--this.soleInsertsToArrive === 0) for (const t of [...this.batches!.keys()]) this.sendBatch(t);
  }

  /**
   * The rows of a group's sole inserts into one table and their audit entries, as one
   * statement outside any transaction (so it commits by itself, durably: synchronous_commit is
   * on): `WITH new AS (INSERT … RETURNING …), INSERT INTO _wo_audit … SELECT … FROM new`.
   * Each entry takes its row's id by position (row_number over RETURNING's order, the order of
   * VALUES, as insertRows relies on). A sweep of the trail that is due joins the statement.
   * A relayed table's rows are inserted only if no other instance listens (change-relay.ts
   * othersListenSql, checked in the statement, which holds registrations off until it commits);
   * else nothing is written and the creates run again in transactions that notify.
   */
  private async insertRowsAudited(t: TableInfo, rows: BatchedRow[]): Promise<void> {
    const columns = t.shape.columns;
    const n = rows.length;
    const width = columns.length;
    const values = rows.flatMap((r) => r.params);
    for (const r of rows) values.push(...auditValues(r.audit!));
    let sweep: { text: string; values: unknown[] } | undefined;
    for (let i = 0; i < n; i++) sweep = this.ctx.auditSweep.due((k) => `$${values.length + k}`) ?? sweep;
    if (sweep !== undefined) values.push(...sweep.values);
    const relay = this.ctx.relayed.has(t.shape.table) ? this.ctx.relay : undefined;
    if (this.ctx.relayed.has(t.shape.table) && relay === undefined) throw new SoleInsertRefused("a notification");
    const r = await this.run(
      `insert-audited:${t.shape.table}:${n}${sweep === undefined ? "" : `:${sweep.text}`}`,
      () => {
        const cells = (i: number, cast: boolean) =>
          columns.map((c, j) => `$${i * width + j + 1}${cast ? `::${pgCastType(c)}` : ""}`).join(", ");
        // Typed, when the rows are selected from VALUES rather than inserted from it.
        const inserted =
          relay === undefined
            ? `VALUES ${rows.map((_, i) => `(${cells(i, false)})`).join(", ")}`
            : `SELECT * FROM (VALUES ${rows.map((_, i) => `(${cells(i, true)})`).join(", ")}) AS v WHERE NOT ${othersListenSql(relay.instanceId)}`;
        const audited = auditColumns.map(quoteId).join(", ");
        const entries = rows.map((_, i) => {
          const at = n * width + i * auditColumns.length;
          const cells = auditColumns.map((c, j) => (c === "row_id" ? `$${at + j + 1}::bigint` : `$${at + j + 1}`));
          return `(${i + 1}, ${cells.join(", ")})`;
        });
        const picked = auditColumns.map((c) => (c === "row_id" ? `COALESCE(a."row_id", m."id")` : `a.${quoteId(c)}`));
        return (
          `WITH "_wo_new" AS (INSERT INTO ${t.quoted} (${columns.map((c) => quoteId(c.name)).join(", ")}) ${inserted} RETURNING ${t.selectList}), ` +
          `"_wo_new_audit" AS (INSERT INTO "${auditTable}" (${audited}) SELECT ${picked.join(", ")} FROM (SELECT "id", row_number() OVER () AS "n" FROM "_wo_new") AS m JOIN (VALUES ${entries.join(", ")}) AS a("n", ${audited}) ON a."n" = m."n" ORDER BY m."n")` +
          `${sweep === undefined ? "" : `, "_wo_sweep" AS (${sweep.text})`} SELECT * FROM "_wo_new"`
        );
      },
      values,
    );
    if (relay !== undefined && r.rows.length === 0) {
      relay.othersListen = true;
      throw new SoleInsertRefused("notifications (another instance listens)");
    }
    this.ctx.rowInserts.statements++;
    this.ctx.rowInserts.rows += n;
    if (r.rows.length !== n) throw new Error(`internal error: ${n} rows inserted, ${r.rows.length} returned`);
    rows.forEach((row, i) => row.settle(r.rows[i]!));
  }

  private async insertRows(t: TableInfo, rows: BatchedRow[]): Promise<void> {
    const columns = t.shape.columns;
    const n = rows.length;
    const r = await this.run(
      `insert-rows:${t.shape.table}:${n}`,
      () => {
        const tuples = rows.map((_, i) => `(${columns.map((_, j) => `$${i * columns.length + j + 1}`).join(", ")})`);
        return `INSERT INTO ${t.quoted} (${columns.map((c) => quoteId(c.name)).join(", ")}) VALUES ${tuples.join(", ")} RETURNING ${t.selectList}`;
      },
      rows.flatMap((r) => r.params),
    );
    this.ctx.rowInserts.statements++;
    this.ctx.rowInserts.rows += n;
    if (r.rows.length !== n) throw new Error(`internal error: ${n} rows inserted, ${r.rows.length} returned`);
    rows.forEach((row, i) => row.settle(r.rows[i]!));
  }

  async insertWithId(table: string, id: number, values: Row): Promise<Row> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`insertWithId: id ${id} is not a positive integer`);
    const names = ["id", ...t.shape.columns.map((c) => c.name)];
    const params = [id, ...t.shape.columns.map((c) => t.codec.encode(c, values[c.name]))];
    const insert = () =>
      this.constrained(t, () =>
        this.run(
          `insert-id:${table}`,
          () =>
            `INSERT INTO ${t.quoted} (${names.map(quoteId).join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING ${t.selectList}`,
          params,
        ),
      );
    // In a savepoint: a violation leaves the transaction usable, as on SQLite.
    const row = (await this.savepoint(insert)).rows[0]!;
    // The identity sequence moves past the id, never back: ids minted later continue after
    // the highest. (A sequence is not transactional: a rolled-back import leaves a gap.)
    await this.run(
      `move-sequence:${table}`,
      () =>
        `SELECT setval(s.seq, GREATEST($2::bigint, COALESCE(pg_sequence_last_value(s.seq), 0))) FROM (SELECT pg_get_serial_sequence($1, 'id')::regclass AS seq) AS s`,
      [t.quoted, id],
    );
    await this.record(table, "create", id, row);
    return row;
  }

  /** The fields of the first unique index whose values `values` repeats. */
  private async takenUnique(t: TableInfo, uniques: IndexShape[], values: Row): Promise<string[]> {
    for (const ix of uniques) {
      const operands = ix.columns.map((c) => t.codec.encodeOperand(t.columns.get(c)!, values[c]));
      if (operands.some((v) => v === null)) continue;
      const r = await this.run(
        `taken:${t.shape.table}:${ix.sqlName}`,
        () =>
          `SELECT 1 FROM ${t.quoted} WHERE ${ix.columns.map((c, i) => `${pgIndexedColumn(c, ix.collation)} = ${ix.collation === "nocase" ? `lower($${i + 1})` : `$${i + 1}`}`).join(" AND ")} LIMIT 1`,
        operands,
      );
      if (r.rows.length > 0) return [...ix.columns];
    }
    return [...uniques[0]!.columns];
  }

  async update(table: string, id: number, patch: Row): Promise<Row | undefined> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id)) return undefined;
    // Only stored columns change; `id` and unknown keys are ignored, undefined means "keep".
    const changed = t.shape.columns.filter((c) => patch[c.name] !== undefined);
    if (changed.length === 0) return this.get(table, id);
    const sql = () => {
      const sets = changed.map((c, i) => `${quoteId(c.name)} = $${i + 1}`).join(", ");
      return `UPDATE ${t.quoted} SET ${sets} WHERE "id" = $${changed.length + 1} RETURNING ${t.selectList}`;
    };
    const params = [...changed.map((c) => t.codec.encode(c, patch[c.name])), id];
    const update = () =>
      this.constrained(t, () => this.run(`update:${table}:${changed.map((c) => c.name).join("\u0000")}`, sql, params));
    // Only a change to a unique column can violate a unique index: that one runs in a
    // savepoint, so a caught violation leaves the transaction usable (as on SQLite).
    const touchesUnique = t.shape.indexes.some((ix) => ix.isUnique && ix.columns.some((c) => patch[c] !== undefined));
    const r = touchesUnique ? await this.savepoint(update) : await update();
    this.keep(table, id, r.rows[0]);
    if (r.rows[0] !== undefined) await this.record(table, "update", id, r.rows[0]);
    return r.rows[0];
  }

  async delete(table: string, id: number): Promise<boolean> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id)) return false;
    // The row's links go with it (spec/storage.md, "Link tables"), in this transaction.
    for (const link of t.links) {
      const from = this.table(link.table);
      const gone = await this.run(
        `unlink:${link.table}:${link.column}`,
        () => `DELETE FROM ${from.quoted} WHERE ${quoteId(link.column)} = $1 RETURNING ${from.selectList}`,
        [id],
      );
      for (const l of gone.rows) {
        this.keep(link.table, l.id as number, undefined);
        await this.record(link.table, "delete", l.id as number, null, l);
      }
    }
    // The row as it was goes with its change (RowChange.previous): live streams test it against a read policy.
    const r = await this.run(
      `delete:${table}`,
      () => `DELETE FROM ${t.quoted} WHERE "id" = $1 RETURNING ${t.selectList}`,
      [id],
    );
    this.keep(table, id, undefined);
    if (r.rows[0] === undefined) return false;
    await this.record(table, "delete", id, null, r.rows[0]);
    return true;
  }

  async referrers(table: string, id: number): Promise<{ table: string; field: string; count: number }[]> {
    const t = this.table(table);
    // Counting referrers is a read by a condition (a row referring may be on its way in).
    this.requireKeyed(undefined);
    // One count per place that can hold the id; places in the same column are counted apart.
    const found: { table: string; field: string; count: number }[] = [];
    for (const r of t.referrers) {
      const from = this.table(r.table);
      // A row that points at itself does not keep itself alive.
      const self = r.table === table ? ` AND "id" <> $2` : "";
      const key = `referrers:${r.table}:${r.column}:${r.steps.join("\u0000")}`;
      const res = await this.run(key, () => {
        const col = quoteId(r.column);
        // Inside JSON the id is compared by its text: JSON holds the number as `12`.
        const holds = r.steps.length === 0 ? `${col} = $1` : jsonHolds(col, r.steps, 0, "= $1");
        return `SELECT COUNT(*) AS n FROM ${from.quoted} WHERE ${holds}${self}`;
      }, [r.steps.length === 0 ? id : String(id), ...(self ? [id] : [])]);
      const n = Number(res.rows[0]!.n);
      if (n > 0) found.push({ table: r.table, field: refPathLabel(r.column, r.steps), count: n });
    }
    // The row's links go with it (delete), so rows referring to one of those links hold it too.
    for (const link of t.links) {
      const l = this.table(link.table);
      for (const r of l.referrers) {
        const from = this.table(r.table);
        const key = `link-referrers:${link.table}:${link.column}:${r.table}:${r.column}:${r.steps.join("\u0000")}`;
        const res = await this.run(key, () => {
          const col = quoteId(r.column);
          const ofRow = (cast: string) => `IN (SELECT "id"${cast} FROM ${l.quoted} WHERE ${quoteId(link.column)} = $1)`;
          const holds = r.steps.length === 0 ? `${col} ${ofRow("")}` : jsonHolds(col, r.steps, 0, ofRow("::text"));
          return `SELECT COUNT(*) AS n FROM ${from.quoted} WHERE ${holds}`;
        }, [id]);
        const n = Number(res.rows[0]!.n);
        if (n > 0) found.push({ table: r.table, field: refPathLabel(r.column, r.steps), count: n });
      }
    }
    return found;
  }

  private table(name: string): TableInfo {
    if (!this.isOpen) throw new Error("this transaction has already ended");
    const t = this.ctx.tables.get(name);
    if (t === undefined) throw new Error(`unknown table '${name}'`);
    return t;
  }

  private writableTable(name: string): TableInfo {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    return this.table(name);
  }

  /** The query's `where` and `filter` as SQL (../conditions.ts); the key is the SQL itself, its shape. */
  private compileWhere(t: TableInfo, query: ListQuery, params: Params): { key: string; conds: string[] } {
    const condition = queryCondition(t.shape.table, query);
    const sql =
      condition &&
      compileCondition(condition, t, this.ctx.tables, postgresDialect(this.ctx.foldCollation), (v) => params.add(v));
    return { key: sql ?? "", conds: sql === undefined ? [] : [sql] };
  }

  /**
   * Relevance order for a search without a sort: minus ts_rank (lower is more relevant, as
   * SQLite's bm25), normalised by the document's length (1: divided by 1 + log(length)), ties by
   * id; the cursor is (rank, id). float8: the rank a page shows is the exact value compared.
   */
  private compileRankOrder(
    t: TableInfo,
    query: ListQuery,
    params: Params,
  ): { key: string; orderBy: string; after: string[]; select: string } {
    searchShapeOf(t);
    const words = postgresDialect(this.ctx.foldCollation).searchQuery(query.search!);
    const rank = () =>
      `(-ts_rank(${t.quoted}.${quoteId(pgSearchColumn)}, to_tsquery('${pgSearchConfig}', ${params.add(words)}), 1))::float8`;
    const select = rank();
    const after = query.after
      ? [
          `(${rank()}, ${t.quoted}."id") > (${params.add(query.after.rank ?? "-Infinity")}, ${params.add(query.after.id)})`,
        ]
      : [];
    return { key: `rank${query.after ? ":after" : ""}`, orderBy: `"_wo_rank", ${t.quoted}."id"`, after, select };
  }

  /**
   * ORDER BY for the query's sort, and the keyset condition for `after`, as sqlite-tx.ts: ties
   * broken by id in the sort's direction; nulls first ascending and last descending, which
   * PostgreSQL must be told (its default is the opposite).
   */
  private compileOrder(
    t: TableInfo,
    query: ListQuery,
    params: Params,
  ): { key: string; orderBy: string; after: string[] } {
    const sort = query.sort ?? { column: "id", descending: false };
    const column = queryColumn(t, sort.column);
    const dir = sort.descending ? "DESC" : "ASC";
    const past = sort.descending ? "<" : ">";
    const after = query.after;
    if (column === idColumn) {
      return {
        key: `sort:id${dir}${after ? ":after" : ""}`,
        orderBy: `"id" ${dir}`,
        after: after ? [`"id" ${past} ${params.add(after.id)}`] : [],
      };
    }
    const col = quoteId(column.name);
    const orderBy = `${col} ${dir} ${sort.descending ? "NULLS LAST" : "NULLS FIRST"}, "id" ${dir}`;
    if (!after) return { key: `sort:${column.name}${dir}`, orderBy, after: [] };
    const value = t.codec.encodeOperand(column, after.value);
    if (value === null) {
      // Past a null: the rest of the nulls by id, then (ascending) every non-null.
      const rest = `${col} IS NULL AND "id" ${past} ${params.add(after.id)}`;
      return {
        key: `sort:${column.name}${dir}:afternull`,
        orderBy,
        after: [sort.descending ? rest : `((${rest}) OR ${col} IS NOT NULL)`],
      };
    }
    // A row-value comparison is null for null values: descending, the nulls still follow.
    const beyond = `(${col}, "id") ${past} (${params.add(value)}, ${params.add(after.id)})`;
    return {
      key: `sort:${column.name}${dir}:after`,
      orderBy,
      after: [sort.descending && column.isOptional ? `(${beyond} OR ${col} IS NULL)` : beyond],
    };
  }

  private async constrained<T>(t: TableInfo, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw toConstraintError(t, err) ?? err;
    }
  }
}

/** One row of a multi-row insert, waiting for the statement; a sole insert's with its audit record. */
interface BatchedRow {
  params: unknown[];
  settle: (row: Row | Error) => void;
  audit: AuditRecord | undefined;
}

/**
 * What one sole insert of a group (WriteOptions.soleInsert) may do: insert one row, whose
 * statement carries its audit entry, then append that very entry (already written). Anything
 * else is refused: before the insert, the write has written nothing and runs again in a
 * transaction (store.ts); after it, the row is committed and the call fails as it would have.
 */
export class SoleInsertTx implements StoreTx {
  /** Its row is committed (with its audit entry). */
  isCommitted = false;
  private hasInserted = false;
  private hasArrived = false;
  private row: Row | undefined;
  private isAudited = false;

  constructor(
    private readonly shared: PostgresTx,
    private readonly audit: AuditRecord,
  ) {}

  /**
   * Runs the create on this view. The group's statement goes once every create has asked for
   * its row or settled, or else when the event loop turns (PostgresTx.soleInsertArrived).
   */
  run<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const outcome = fn(this);
    void outcome.then(
      () => this.arrive(),
      () => this.arrive(),
    );
    return outcome;
  }

  private arrive(): void {
    if (this.hasArrived) return;
    this.hasArrived = true;
    this.shared.soleInsertArrived();
  }

  async insert(table: string, values: Row): Promise<Row> {
    if (this.hasInserted) throw new SoleInsertRefused("a second insert");
    this.hasInserted = true;
    // Its row is in the group's pending statement (or refused) once insertAudited returns.
    const inserted = this.shared.insertAudited(table, values, this.audit);
    this.arrive();
    const row = await inserted;
    this.row = row;
    this.isCommitted = true;
    return row;
  }

  async appendAudit(record: AuditRecord): Promise<void> {
    // The entry its insert wrote: the call's record, with the row's id (audit.ts appendingAudit).
    const expected = { ...this.audit, rowId: this.audit.rowId ?? (this.row?.id as number | undefined) ?? null };
    const isSame = (Object.keys(expected) as (keyof AuditRecord)[]).every((k) => record[k] === expected[k]);
    if (!this.isCommitted || this.isAudited || !isSame || Object.keys(record).length !== Object.keys(expected).length)
      throw new SoleInsertRefused("an audit entry other than its own");
    this.isAudited = true;
  }

  private refuse(what: string): never {
    throw new SoleInsertRefused(what);
  }

  async get(): Promise<Row | undefined> {
    return this.refuse("a read");
  }
  async list(): Promise<Row[]> {
    return this.refuse("a read");
  }
  async count(): Promise<number> {
    return this.refuse("a read");
  }
  async insertWithId(): Promise<Row> {
    return this.refuse("an insert with an id");
  }
  async update(): Promise<Row | undefined> {
    return this.refuse("an update");
  }
  async delete(): Promise<boolean> {
    return this.refuse("a delete");
  }
  async savepoint<T>(): Promise<T> {
    return this.refuse("a savepoint");
  }
  async referrers(): Promise<{ table: string; field: string; count: number }[]> {
    return this.refuse("a read");
  }
  async appendEvent(): Promise<void> {
    return this.refuse("an event");
  }
  async appendJob(): Promise<void> {
    return this.refuse("a job");
  }
}

// PostgreSQL reports a unique violation as SQLSTATE 23505 with the index's name; the index
// names the user's fields.
function toConstraintError(t: TableInfo, err: unknown): StoreConstraintError | undefined {
  const e = err as { code?: unknown; constraint?: unknown };
  if (e?.code !== "23505" || typeof e.constraint !== "string") return undefined;
  const index = t.shape.indexes.find((ix) => pgIdentifier(ix.sqlName) === e.constraint);
  return new StoreConstraintError("unique", t.shape.table, index ? [...index.columns] : ["id"]);
}

function whereClause(conds: string[]): string {
  return conds.length === 0 ? "" : ` WHERE ${conds.join(" AND ")}`;
}

/** `'{"a","b"}'`: a PostgreSQL text-array literal naming JSON keys (identifiers, no escaping). */
function jsonPath(keys: readonly string[]): string {
  return `'{${keys.map((k) => `"${k}"`).join(",")}}'`;
}

/**
 * SQL that is true when the JSON value `source` holds an id matching `test` (on its text form)
 * along `steps`: keys become a path, each array step a json_array_elements over the elements,
 * nested as deep as the type nests. A value that is not an array where one is expected (an
 * optional list left null) holds nothing.
 */
function jsonHolds(source: string, steps: readonly RefStep[], depth: number, test: string): string {
  const keys: string[] = [];
  let i = 0;
  for (; i < steps.length && steps[i] !== EACH; i++) keys.push(steps[i]!);
  if (i === steps.length) return `(${source} #>> ${jsonPath(keys)}) ${test}`;
  const element = `e${depth}`;
  const at = `${source} #> ${jsonPath(keys)}`;
  const rest = steps.slice(i + 1);
  const match =
    rest.length === 0 ? `(${element}.value #>> '{}') ${test}` : jsonHolds(`${element}.value`, rest, depth + 1, test);
  return `EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(${at}) = 'array' THEN ${at} END) AS ${element}(value) WHERE ${match})`;
}
