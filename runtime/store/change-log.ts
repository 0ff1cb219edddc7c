// The durable change log of the SQLite store (spec/live.md, "Change events and the change
// log"): one `_wo_changes` row per create/update/delete of a logged table, written by the
// same statement sequence — and so in the same transaction — as the change itself. Its `seq`
// (AUTOINCREMENT: increasing, never reused) is the id a REST live stream resumes from.
//
// Only tables whose type exposes `subscribe` are logged; a write to any other table never
// touches this module. Retention is bounded: once `pruneEvery` changes have been logged since
// the last prune, the oldest are deleted so that `retention` remain (in the same transaction as
// the write that crossed the mark, so a prune never commits on its own).

import type { Connection } from "./connection.js";
import type { ChangeLogRead, ChangeOp, Row, RowChange } from "../../model/store.js";

export const changeLogTable = "_wo_changes";

export interface ChangeLogOptions {
  /** Tables whose changes are logged. */
  tables: readonly string[];
  /** Changes kept at least (the newest ones). */
  retention: number;
}

/** Retention when wo.toml `[live] retention` is not set. */
export const defaultRetention = 10_000;

interface LoggedRow {
  seq: number;
  table: string;
  op: ChangeOp;
  row_id: number;
  row: string | null;
}

export class ChangeLog {
  private tables: ReadonlySet<string> = new Set();
  private retention = defaultRetention;
  /** Prune once this many changes were logged since the last prune: deletes come in batches. */
  private pruneEvery = 1;
  private sincePrune = 0;

  constructor(writer: Connection, options: ChangeLogOptions) {
    writer.db.exec(
      `CREATE TABLE IF NOT EXISTS "${changeLogTable}" ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "table" TEXT NOT NULL, "op" TEXT NOT NULL, "row_id" INTEGER NOT NULL, "row" TEXT)`,
    );
    this.follow(writer, options);
  }

  /** Logs these tables from now on, keeping this many changes (a new build under `--watch`). */
  follow(writer: Connection, options: ChangeLogOptions): void {
    this.tables = new Set(options.tables);
    this.retention = Math.max(1, Math.trunc(options.retention));
    this.pruneEvery = Math.max(1, Math.min(1000, Math.ceil(this.retention / 10)));
    // A smaller retention than before applies at once.
    this.prune(writer);
  }

  logs(table: string): boolean {
    return this.tables.has(table);
  }

  /** Writes one change inside the caller's transaction; returns its seq. */
  append(conn: Connection, table: string, op: ChangeOp, id: number, row: Row | null): number {
    const stmt = conn.statement(
      "changelog:append",
      () => `INSERT INTO "${changeLogTable}" ("table", "op", "row_id", "row") VALUES (?, ?, ?, ?) RETURNING "seq"`,
    );
    const { seq } = stmt.get(table, op, id, row === null ? null : JSON.stringify(row)) as { seq: number };
    this.sincePrune++;
    return seq;
  }

  /** Inside the write transaction, before its COMMIT: deletes the oldest changes when due. */
  pruneIfDue(conn: Connection): void {
    if (this.sincePrune >= this.pruneEvery) this.prune(conn);
  }

  private prune(conn: Connection): void {
    const newest = newestSeq(conn);
    conn
      .statement("changelog:prune", () => `DELETE FROM "${changeLogTable}" WHERE "seq" <= ?`)
      .run(newest - this.retention);
    this.sincePrune = 0;
  }

  /** Reads on a connection inside a snapshot (a reader's). */
  read(conn: Connection, table: string, after: number, limit: number): ChangeLogRead {
    const newest = newestSeq(conn);
    const oldest = (
      conn.statement("changelog:oldest", () => `SELECT MIN("seq") AS seq FROM "${changeLogTable}"`).get() as {
        seq: number | null;
      }
    ).seq;
    // Everything after `after` is still here only if the oldest kept change is at most one
    // past it (or nothing was logged since); a position beyond the newest is not ours.
    const complete = after <= newest && (oldest === null ? after === newest : oldest <= after + 1);
    if (!complete) return { gone: true, newest };
    const rows = conn
      .statement(
        "changelog:after",
        () =>
          `SELECT "seq", "table", "op", "row_id", "row" FROM "${changeLogTable}" WHERE "table" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?`,
      )
      .all(table, after, limit + 1) as LoggedRow[];
    const more = rows.length > limit;
    const changes: RowChange[] = rows.slice(0, limit).map((r) => ({
      table: r.table,
      op: r.op,
      id: r.row_id,
      row: r.row === null ? null : (JSON.parse(r.row) as Row),
      seq: r.seq,
    }));
    return { gone: false, changes, more };
  }
}

/** The highest seq ever handed out (kept by SQLite for AUTOINCREMENT even after a prune); 0 if none. */
function newestSeq(conn: Connection): number {
  const row = conn
    .statement("changelog:newest", () => `SELECT "seq" FROM sqlite_sequence WHERE "name" = '${changeLogTable}'`)
    .get() as { seq: number } | undefined;
  return row?.seq ?? 0;
}
