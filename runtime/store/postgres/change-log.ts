// The durable change log on PostgreSQL, with the rules of the SQLite one (change-log.ts,
// spec/live.md "Change events and the change log"): one `_wo_changes` row per
// create/update/delete of a logged table, in the same transaction as the change. Its `seq` is
// counted in `_wo_meta` ('change_seq') inside that transaction, not by a sequence: sequences
// are not transactional, and a rolled-back write would leave a gap that a reader could not
// tell from a pruned change. Updating that row locks it until the commit, so the writes that
// log wait for each other there even when they run side by side (store.ts): seq order is
// commit order.

import type pg from "pg";
import type { ChangeLogRead, ChangeOp, Row, RowChange } from "../../../model/store.js";
import { defaultRetention, type ChangeLogOptions } from "../change-log.js";

export const pgChangeLogTable = "_wo_changes";

/** Made with the schema, under the migration lock (migrate.ts). */
export const createChangeLogSql = [
  `CREATE TABLE IF NOT EXISTS "${pgChangeLogTable}" ("seq" BIGINT PRIMARY KEY, "table" TEXT NOT NULL, "op" TEXT NOT NULL, "row_id" BIGINT NOT NULL, "row" JSON)`,
  `INSERT INTO "_wo_meta" ("key", "value") VALUES ('change_seq', '0') ON CONFLICT ("key") DO NOTHING`,
];

const newestSql = `SELECT "value"::bigint AS n FROM "_wo_meta" WHERE "key" = 'change_seq'`;

export class PgChangeLog {
  private tables: ReadonlySet<string> = new Set();
  private retention = defaultRetention;
  private pruneEvery = 1;
  private sincePrune = 0;

  constructor(options: ChangeLogOptions) {
    this.follow(options);
  }

  /** Logs these tables from now on, keeping this many changes (a new build under `--watch`). */
  follow(options: ChangeLogOptions): void {
    this.tables = new Set(options.tables);
    this.retention = Math.max(1, Math.trunc(options.retention));
    this.pruneEvery = Math.max(1, Math.min(1000, Math.ceil(this.retention / 10)));
    // The next write prunes, so a smaller retention applies at once.
    this.sincePrune = this.pruneEvery;
  }

  logs(table: string): boolean {
    return this.tables.has(table);
  }

  /** Writes one change inside the caller's transaction; returns its seq. One round trip. */
  async append(client: pg.ClientBase, table: string, op: ChangeOp, id: number, row: Row | null): Promise<number> {
    const r = await client.query<{ seq: number }>({
      name: "wo_changelog_append",
      text: `WITH s AS (UPDATE "_wo_meta" SET "value" = ("value"::bigint + 1)::text WHERE "key" = 'change_seq' RETURNING "value"::bigint AS seq)
             INSERT INTO "${pgChangeLogTable}" ("seq", "table", "op", "row_id", "row") SELECT seq, $1, $2, $3, $4 FROM s RETURNING "seq"`,
      values: [table, op, id, row === null ? null : JSON.stringify(row)],
    });
    this.sincePrune++;
    return Number(r.rows[0]!.seq);
  }

  /** Inside the write transaction, before its COMMIT: deletes the oldest changes when due. */
  async pruneIfDue(client: pg.ClientBase): Promise<void> {
    if (this.sincePrune < this.pruneEvery) return;
    await client.query(`DELETE FROM "${pgChangeLogTable}" WHERE "seq" <= (${newestSql}) - $1`, [this.retention]);
    this.sincePrune = 0;
  }

  /** Reads inside a read() snapshot. */
  async read(client: pg.ClientBase, table: string, after: number, limit: number): Promise<ChangeLogRead> {
    const bounds = (
      await client.query<{ newest: number; oldest: number | null }>(
        `SELECT (${newestSql}) AS newest, (SELECT MIN("seq") FROM "${pgChangeLogTable}") AS oldest`,
      )
    ).rows[0]!;
    const newest = Number(bounds.newest);
    const oldest = bounds.oldest === null ? null : Number(bounds.oldest);
    // As on SQLite: complete only if the oldest kept change is at most one past `after` (or
    // nothing was logged since); a position beyond the newest is not ours.
    const complete = after <= newest && (oldest === null ? after === newest : oldest <= after + 1);
    if (!complete) return { gone: true, newest };
    const rows = (
      await client.query<{ seq: number; table: string; op: ChangeOp; row_id: number; row: Row | null }>(
        `SELECT "seq", "table", "op", "row_id", "row" FROM "${pgChangeLogTable}" WHERE "table" = $1 AND "seq" > $2 ORDER BY "seq" LIMIT $3`,
        [table, after, limit + 1],
      )
    ).rows;
    const more = rows.length > limit;
    const changes: RowChange[] = rows
      .slice(0, limit)
      .map((r) => ({ table: r.table, op: r.op, id: Number(r.row_id), row: r.row, seq: Number(r.seq) }));
    return { gone: false, changes, more };
  }
}
