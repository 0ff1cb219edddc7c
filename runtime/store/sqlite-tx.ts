// StoreTx over one SQLite connection: the queries behind get/list/count/insert/update/delete/
// referrers, their prepared-statement keys, and the mapping of SQLite's unique violations to
// StoreConstraintError. Transaction boundaries (BEGIN/COMMIT, the writer queue) belong to
// sqlite.ts; this class only runs statements inside a transaction someone else opened.
// A writable one also records what it changed (`changes`, published by the writer queue after
// the COMMIT) and appends logged tables' changes to the change log (change-log.ts).

import type { ChangeLog } from "./change-log.js";
import { appendAuditSql, auditPage, auditValues, readAuditSql, type AuditSweep } from "./audit-trail.js";
import type { Connection } from "./connection.js";
import { caseFold } from "./connection.js";
import { appendJobSql } from "./job-outbox.js";
import { quoteId } from "./ddl.js";
import { EACH, refPathLabel, type RefStep } from "../../model/ref-paths.js";
import {
  eventLogTable,
  jobsTable,
  StoreConstraintError,
  type AppEvent,
  type NewJob,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type ChangeLogRead,
  type ChangeOp,
  type ListQuery,
  type Row,
  type RowChange,
  searchRank,
  type StoreTx,
} from "../../model/store.js";
import { compileCondition, queryCondition, searchShapeOf, sqliteDialect } from "./conditions.js";
import { idColumn, queryColumn } from "./query-columns.js";
import type { TableInfo, TableRegistry } from "./tables.js";

const sqliteSql = sqliteDialect(caseFold);

const sqlitePlaceholder = () => "?";

export class SqliteTx implements StoreTx {
  private isOpen = true;
  /** What this transaction changed, in order (writable transactions only). */
  readonly changes: RowChange[] = [];

  constructor(
    private readonly conn: Connection,
    private readonly tables: TableRegistry,
    private readonly isWritable: boolean,
    private readonly log?: ChangeLog,
    private readonly auditSweep?: AuditSweep,
  ) {}

  private savepoints = 0;

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `wo_sp_${++this.savepoints}`;
    const mark = this.changes.length;
    this.conn.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.conn.db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.conn.db.exec(`ROLLBACK TO ${name}`);
      this.conn.db.exec(`RELEASE ${name}`);
      // The undone writes were never committed: no event for them (their log rows went too).
      this.changes.length = mark;
      throw err;
    }
  }

  private record(table: string, op: ChangeOp, id: number, row: Row | null, previous?: Row): void {
    // A copy: the caller owns the row it was handed and may change it before the commit.
    const change: RowChange = { table, op, id, row: row === null ? null : { ...row } };
    if (previous !== undefined) change.previous = previous;
    if (this.log?.logs(table)) change.seq = this.log.append(this.conn, table, op, id, row);
    this.changes.push(change);
  }

  async appendAudit(record: AuditRecord): Promise<void> {
    if (!this.isWritable || !this.auditSweep) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    this.conn.statement("audit:append", () => appendAuditSql(sqlitePlaceholder)).run(...auditValues(record));
    const sweep = this.auditSweep.due(sqlitePlaceholder);
    if (sweep) this.conn.statement(`audit:sweep:${sweep.text}`, () => sweep.text).run(...sweep.values);
  }

  async appendEvent(event: AppEvent): Promise<void> {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    // The store was opened for a build that emits nothing (loggedTables): refuse, never drop it.
    if (!this.log?.logs(eventLogTable)) throw new Error("this store keeps no application events");
    // An entry of the change log like a row change: durable with the write, resumable by seq.
    this.record(eventLogTable, "create", event.rowId, event as unknown as Row);
  }

  async appendJob(job: NewJob): Promise<void> {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    if (!this.isOpen) throw new Error("this transaction has already ended");
    const { text, values } = appendJobSql(sqlitePlaceholder, job);
    const { id } = this.conn.statement("jobs:append", () => text).get(...values) as { id: number };
    // In the commit's changes, so a job runner hears of it after the commit (runtime/jobs/).
    this.record(jobsTable, "create", id, { id, name: job.name });
  }

  /** A page of the audit trail, as this snapshot sees it (audit-trail.ts). */
  readAudit(query: AuditQuery): { entries: AuditEntry[]; more: boolean } {
    if (!this.isOpen) throw new Error("this transaction has already ended");
    const { text, values } = readAuditSql(sqlitePlaceholder, query);
    return auditPage(this.conn.statement(`audit:read:${text}`, () => text).all(...values) as Row[], query.limit);
  }

  /** The change log's entries of `table` after `after`, as this snapshot sees them (change-log.ts). */
  readChangeLog(log: ChangeLog, table: string, after: number, limit: number): ChangeLogRead {
    if (!this.isOpen) throw new Error("this transaction has already ended");
    return log.read(this.conn, table, after, limit);
  }

  /** Called when the transaction ends: a callback that kept `tx` must not write outside it. */
  finish(): void {
    this.isOpen = false;
  }

  async get(table: string, id: number): Promise<Row | undefined> {
    const t = this.table(table);
    if (!Number.isSafeInteger(id)) return undefined;
    const raw = this.conn.statement(t.byId.key, t.byId.sql).get(id) as Row | undefined;
    return raw === undefined ? undefined : t.codec.decode(raw);
  }

  async list(table: string, query: ListQuery = {}): Promise<Row[]> {
    const t = this.table(table);
    if (query.search !== undefined && query.sort === undefined) return this.listByRank(t, query);
    const { key, where, params } = this.compileWhere(t, query);
    const order = this.compileOrder(t, query);
    const conds = [...where, ...order.after];
    params.push(...order.params);
    const hasLimit = query.limit !== undefined;
    if (hasLimit) params.push(Math.max(0, Math.trunc(query.limit!)));
    const stmt = this.conn.statement(`list:${table}:${key}:${order.key}${hasLimit ? ":limit" : ""}`, () => {
      const limit = hasLimit ? " LIMIT ?" : "";
      return `SELECT ${t.selectList} FROM ${t.quoted}${whereClause(conds)} ORDER BY ${order.orderBy}${limit}`;
    });
    const rows = stmt.all(...params) as Row[];
    for (const r of rows) t.codec.decode(r);
    return rows;
  }

  /**
   * A search in relevance order: the index's hits joined with their bm25 rank (lower is more
   * relevant), ties by id; the cursor is (rank, id). The words are the join's MATCH, so the
   * `where` and `filter` conditions are compiled without them.
   */
  private listByRank(t: TableInfo, query: ListQuery): Row[] {
    const fts = quoteId(searchShapeOf(t).sqlName);
    const { key, where, params } = this.compileWhere(t, { ...query, search: undefined });
    const conds = [...where];
    if (query.after) {
      conds.push(`("_wo_hits"."_wo_rank", ${t.quoted}."id") > (?, ?)`);
      params.push(query.after.rank ?? Number.NEGATIVE_INFINITY, query.after.id);
    }
    const hasLimit = query.limit !== undefined;
    if (hasLimit) params.push(Math.max(0, Math.trunc(query.limit!)));
    const stmt = this.conn.statement(
      `list:${t.shape.table}:${key}:rank${query.after ? ":after" : ""}${hasLimit ? ":limit" : ""}`,
      () =>
        `SELECT ${t.selectList}, "_wo_hits"."_wo_rank" AS "_wo_rank" FROM ${t.quoted} JOIN (SELECT rowid AS "_wo_rowid", bm25(${fts}) AS "_wo_rank" FROM ${fts} WHERE ${fts} MATCH ?) AS "_wo_hits" ON "_wo_hits"."_wo_rowid" = ${t.quoted}."id"${whereClause(conds)} ORDER BY "_wo_hits"."_wo_rank", ${t.quoted}."id"${hasLimit ? " LIMIT ?" : ""}`,
    );
    const rows = stmt.all(sqliteSql.searchQuery(query.search!), ...params) as Row[];
    for (const r of rows) {
      const rank = r._wo_rank as number;
      delete r._wo_rank;
      t.codec.decode(r);
      (r as Record<symbol, unknown>)[searchRank] = rank;
    }
    return rows;
  }

  /** Counts rows matching `where`; sort, after and limit are ignored. */
  async count(table: string, query: ListQuery = {}): Promise<number> {
    const t = this.table(table);
    const { key, where, params } = this.compileWhere(t, query);
    const stmt = this.conn.statement(
      `count:${table}:${key}`,
      () => `SELECT COUNT(*) AS n FROM ${t.quoted}${whereClause(where)}`,
    );
    return (stmt.get(...params) as { n: number }).n;
  }

  async insert(table: string, values: Row): Promise<Row> {
    const t = this.writableTable(table);
    const columns = t.shape.columns;
    const stmt = this.conn.statement(`insert:${table}`, () =>
      columns.length === 0
        ? `INSERT INTO ${t.quoted} DEFAULT VALUES RETURNING ${t.selectList}`
        : `INSERT INTO ${t.quoted} (${columns.map((c) => quoteId(c.name)).join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) RETURNING ${t.selectList}`,
    );
    // The id is always minted here: a caller-supplied `id` is ignored.
    const params = columns.map((c) => t.codec.encode(c, values[c.name]));
    const raw = this.runConstrained(t, () => stmt.get(...params)) as Row;
    const row = t.codec.decode(raw);
    this.record(table, "create", row.id as number, row);
    return row;
  }

  async insertWithId(table: string, id: number, values: Row): Promise<Row> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`insertWithId: id ${id} is not a positive integer`);
    const names = ["id", ...t.shape.columns.map((c) => c.name)];
    const stmt = this.conn.statement(
      `insert-id:${table}`,
      () =>
        `INSERT INTO ${t.quoted} (${names.map(quoteId).join(", ")}) VALUES (${names.map(() => "?").join(", ")}) RETURNING ${t.selectList}`,
    );
    // AUTOINCREMENT keeps the highest id ever stored (sqlite_sequence): later ids continue after it.
    const params = [id, ...t.shape.columns.map((c) => t.codec.encode(c, values[c.name]))];
    const raw = this.runConstrained(t, () => stmt.get(...params)) as Row;
    const row = t.codec.decode(raw);
    this.record(table, "create", id, row);
    return row;
  }

  async update(table: string, id: number, patch: Row): Promise<Row | undefined> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id)) return undefined;
    // Only stored columns change; `id` and unknown keys are ignored, undefined means "keep".
    const changed = t.shape.columns.filter((c) => patch[c.name] !== undefined);
    if (changed.length === 0) return this.get(table, id);
    const stmt = this.conn.statement(`update:${table}:${changed.map((c) => c.name).join("\u0000")}`, () => {
      const sets = changed.map((c) => `${quoteId(c.name)} = ?`).join(", ");
      return `UPDATE ${t.quoted} SET ${sets} WHERE "id" = ? RETURNING ${t.selectList}`;
    });
    const params = changed.map((c) => t.codec.encode(c, patch[c.name]));
    const raw = this.runConstrained(t, () => stmt.get(...params, id)) as Row | undefined;
    if (raw === undefined) return undefined;
    const row = t.codec.decode(raw);
    this.record(table, "update", id, row);
    return row;
  }

  async delete(table: string, id: number): Promise<boolean> {
    const t = this.writableTable(table);
    if (!Number.isSafeInteger(id)) return false;
    // The row's links go with it (spec/storage.md, "Link tables"), in this transaction.
    for (const link of t.links) {
      const from = this.table(link.table);
      const gone = this.conn
        .statement(
          `unlink:${link.table}:${link.column}`,
          () => `DELETE FROM ${from.quoted} WHERE ${quoteId(link.column)} = ? RETURNING ${from.selectList}`,
        )
        .all(id) as Row[];
      for (const l of gone) this.record(link.table, "delete", l.id as number, null, from.codec.decode(l));
    }
    // The row as it was goes with its change (RowChange.previous): live streams test it against a read policy.
    const stmt = this.conn.statement(
      `delete:${table}`,
      () => `DELETE FROM ${t.quoted} WHERE "id" = ? RETURNING ${t.selectList}`,
    );
    const gone = stmt.get(id) as Row | undefined;
    if (gone === undefined) return false;
    this.record(table, "delete", id, null, t.codec.decode(gone));
    return true;
  }

  async referrers(table: string, id: number): Promise<{ table: string; field: string; count: number }[]> {
    const t = this.table(table);
    // One count per place that can hold the id; places in the same column are counted apart.
    const found: { table: string; field: string; count: number }[] = [];
    for (const r of t.referrers) {
      const from = this.table(r.table);
      // A row that points at itself does not keep itself alive.
      const self = r.table === table ? ` AND "id" <> ?` : "";
      const stmt = this.conn.statement(`referrers:${r.table}:${r.column}:${r.steps.join("\u0000")}`, () => {
        const col = quoteId(r.column);
        const holds = r.steps.length === 0 ? `${col} = ?` : `json_valid(${col}) AND ${jsonHoldsId(col, r.steps)}`;
        return `SELECT COUNT(*) AS n FROM ${from.quoted} WHERE ${holds}${self}`;
      });
      const n = (stmt.get(...(self ? [id, id] : [id])) as { n: number }).n;
      if (n > 0) found.push({ table: r.table, field: refPathLabel(r.column, r.steps), count: n });
    }
    // The row's links go with it (delete), so rows referring to one of those links hold it too.
    for (const link of t.links) {
      const l = this.table(link.table);
      const ofRow = `IN (SELECT "id" FROM ${l.quoted} WHERE ${quoteId(link.column)} = ?)`;
      for (const r of l.referrers) {
        const from = this.table(r.table);
        const stmt = this.conn.statement(
          `link-referrers:${link.table}:${link.column}:${r.table}:${r.column}:${r.steps.join("\u0000")}`,
          () => {
            const col = quoteId(r.column);
            const holds =
              r.steps.length === 0
                ? `${col} ${ofRow}`
                : `json_valid(${col}) AND ${jsonHoldsId(col, r.steps, 0, ofRow)}`;
            return `SELECT COUNT(*) AS n FROM ${from.quoted} WHERE ${holds}`;
          },
        );
        const n = (stmt.get(id) as { n: number }).n;
        if (n > 0) found.push({ table: r.table, field: refPathLabel(r.column, r.steps), count: n });
      }
    }
    return found;
  }

  private table(name: string): TableInfo {
    if (!this.isOpen) throw new Error("this transaction has already ended");
    const t = this.tables.get(name);
    if (t === undefined) throw new Error(`unknown table '${name}'`);
    return t;
  }

  private writableTable(name: string): TableInfo {
    if (!this.isWritable) throw new Error("read() transactions cannot write; use write()");
    return this.table(name);
  }

  /** The query's `where` and `filter` as SQL (conditions.ts); the key is the SQL itself, its shape. */
  private compileWhere(t: TableInfo, query: ListQuery): { key: string; where: string[]; params: unknown[] } {
    const params: unknown[] = [];
    const condition = queryCondition(t.shape.table, query);
    const sql =
      condition &&
      compileCondition(condition, t, this.tables, sqliteSql, (value) => {
        params.push(value);
        return "?";
      });
    return { key: sql ?? "", where: sql === undefined ? [] : [sql], params };
  }

  /**
   * ORDER BY for the query's sort, and the keyset condition for `after`. Ties are broken by id
   * in the sort's direction, so (value, id) orders every row exactly once and a page boundary
   * is one row's position: rows inserted or changed elsewhere never shift a later page.
   * SQLite puts nulls first ascending and last descending; the condition follows that order.
   */
  private compileOrder(
    t: TableInfo,
    query: ListQuery,
  ): { key: string; orderBy: string; after: string[]; params: unknown[] } {
    const sort = query.sort ?? { column: "id", descending: false };
    const column = queryColumn(t, sort.column);
    const dir = sort.descending ? "DESC" : "ASC";
    const past = sort.descending ? "<" : ">";
    const after = query.after;
    if (column === idColumn) {
      return {
        key: `sort:id${dir}${after ? ":after" : ""}`,
        orderBy: `"id" ${dir}`,
        after: after ? [`"id" ${past} ?`] : [],
        params: after ? [after.id] : [],
      };
    }
    const col = quoteId(column.name);
    const orderBy = `${col} ${dir}, "id" ${dir}`;
    if (!after) return { key: `sort:${column.name}${dir}`, orderBy, after: [], params: [] };
    const value = t.codec.encodeOperand(column, after.value);
    if (value === null) {
      // Past a null: the rest of the nulls by id, then (ascending) every non-null.
      const rest = `${col} IS NULL AND "id" ${past} ?`;
      return {
        key: `sort:${column.name}${dir}:afternull`,
        orderBy,
        after: [sort.descending ? rest : `((${rest}) OR ${col} IS NOT NULL)`],
        params: [after.id],
      };
    }
    // A row-value comparison is false for null values: descending, the nulls still follow.
    // Only an optional column can hold them, and the bare comparison lets SQLite seek its index.
    const beyond = `(${col}, "id") ${past} (?, ?)`;
    return {
      key: `sort:${column.name}${dir}:after`,
      orderBy,
      after: [sort.descending && column.isOptional ? `(${beyond} OR ${col} IS NULL)` : beyond],
      params: [value, after.id],
    };
  }

  private runConstrained<T>(t: TableInfo, run: () => T): T {
    try {
      return run();
    } catch (err) {
      throw toConstraintError(t, err) ?? err;
    }
  }
}

// better-sqlite3 reports `UNIQUE constraint failed: article.slug` with code
// SQLITE_CONSTRAINT_UNIQUE; the user's field names are the part after the table prefix.
function toConstraintError(t: TableInfo, err: unknown): StoreConstraintError | undefined {
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") return new StoreConstraintError("unique", t.shape.table, ["id"]);
  if (e?.code !== "SQLITE_CONSTRAINT_UNIQUE" || typeof e.message !== "string") return undefined;
  const list = e.message.slice(e.message.indexOf(":") + 1).trim();
  const prefix = `${t.shape.table}.`;
  const fields = list.split(", ").map((c) => (c.startsWith(prefix) ? c.slice(prefix.length) : c));
  return new StoreConstraintError("unique", t.shape.table, fields);
}

function whereClause(conds: string[]): string {
  return conds.length === 0 ? "" : ` WHERE ${conds.join(" AND ")}`;
}

/**
 * SQL that is true when the JSON text `source` holds `?` along `steps`: keys become a JSON
 * path, and each array step a json_each over the elements, nested as deep as the type nests.
 */
function jsonHoldsId(source: string, steps: readonly RefStep[], depth = 0, test = "= ?"): string {
  let path = "$";
  let i = 0;
  // Field names are identifiers, so a quoted path member never needs escaping.
  for (; i < steps.length && steps[i] !== EACH; i++) path += `."${steps[i]}"`;
  if (i === steps.length) return `json_extract(${source}, '${path}') ${test}`;
  const element = `e${depth}`;
  const rest = steps.slice(i + 1);
  const match = rest.length === 0 ? `${element}.value ${test}` : jsonHoldsId(`${element}.value`, rest, depth + 1, test);
  return `EXISTS (SELECT 1 FROM json_each(${source}, '${path}') AS ${element} WHERE ${match})`;
}
