// The audit trail's table, `_wo_audit` (spec/storage.md, "The audit trail"), shared by both
// stores: its columns, the statements that append, read and sweep it (plain SQL both SQLite and
// PostgreSQL run; only the placeholders and the id column differ), and when a sweep is due.
// The operation layer decides what is recorded (runtime/operations/audit.ts); a store only
// appends it inside the write transaction it is given, so an entry commits exactly when the
// write it records does.

import type { AuditEntry, AuditQuery, AuditRecord, AuditRetention } from "../../model/store.js";

export const auditTable = "_wo_audit";

/** Kept when wo.toml has no `[audit] retention`: thirty days. */
export const defaultAuditRetention: AuditRetention = { maxAgeMs: 30 * 24 * 3600 * 1000 };

/** The columns after `seq`, in the order records are bound. */
export const auditColumns: readonly string[] = [
  "at",
  "principal",
  "user",
  "role",
  "via",
  "surface",
  "operation",
  "type",
  "row_id",
  "outcome",
];

const seqColumn = {
  sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
  postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
};

/** CREATE statements (IF NOT EXISTS: the store's open and `wo token` both make sure of the table). */
export function createAuditSql(dialect: keyof typeof seqColumn): string[] {
  const idColumn = seqColumn[dialect];
  return [
    `CREATE TABLE IF NOT EXISTS "${auditTable}" ("seq" ${idColumn}, "at" TEXT NOT NULL, "principal" TEXT NOT NULL, "user" TEXT, "role" TEXT, "via" TEXT NOT NULL, "surface" TEXT NOT NULL, "operation" TEXT NOT NULL, "type" TEXT, "row_id" BIGINT, "outcome" TEXT NOT NULL)`,
    // `--since` and the age sweep.
    `CREATE INDEX IF NOT EXISTS "${auditTable}_at" ON "${auditTable}" ("at")`,
  ];
}

/** `$1` (PostgreSQL) or `?` (SQLite) for the n-th parameter, from 1. */
export type Placeholder = (n: number) => string;

export function appendAuditSql(p: Placeholder): string {
  const quoted = auditColumns.map((c) => `"${c}"`).join(", ");
  return `INSERT INTO "${auditTable}" (${quoted}) VALUES (${auditColumns.map((_, i) => p(i + 1)).join(", ")})`;
}

export function auditValues(r: AuditRecord): unknown[] {
  return [r.at, r.principal, r.user, r.role, r.via, r.surface, r.operation, r.type, r.rowId, r.outcome];
}

/** One page of the trail: the SQL and its values (limit + 1 rows, to tell whether more follow). */
export function readAuditSql(p: Placeholder, q: AuditQuery): { text: string; values: unknown[] } {
  const conds: string[] = [];
  const values: unknown[] = [];
  const add = (cond: (ph: string) => string, v: unknown) => {
    values.push(v);
    conds.push(cond(p(values.length)));
  };
  if (q.after !== undefined) add((ph) => `"seq" > ${ph}`, q.after);
  if (q.since !== undefined) add((ph) => `"at" >= ${ph}`, q.since);
  if (q.user !== undefined) add((ph) => `"user" = ${ph}`, q.user);
  values.push(q.limit + 1);
  const where = conds.length > 0 ? ` WHERE ${conds.join(" AND ")}` : "";
  return {
    text: `SELECT "seq", ${auditColumns.map((c) => `"${c}"`).join(", ")} FROM "${auditTable}"${where} ORDER BY "seq" LIMIT ${p(values.length)}`,
    values,
  };
}

/** A row as the database returns it → an entry; `more` when the page had its extra row. */
export function auditPage(rows: Record<string, unknown>[], limit: number): { entries: AuditEntry[]; more: boolean } {
  const entries = rows.slice(0, limit).map((r) => ({
    seq: Number(r.seq),
    at: String(r.at),
    principal: String(r.principal),
    user: r.user === null ? null : String(r.user),
    role: r.role === null ? null : String(r.role),
    via: String(r.via),
    surface: String(r.surface),
    operation: String(r.operation),
    type: r.type === null ? null : String(r.type),
    rowId: r.row_id === null ? null : Number(r.row_id),
    outcome: String(r.outcome),
  }));
  return { entries, more: rows.length > limit };
}

/**
 * Decides when a write also sweeps the trail: on the first append after open, then after a
 * batch of appends or a minute, whichever comes first. A sweep is one indexed DELETE in the
 * write's own transaction, so it never commits on its own and costs nothing between sweeps.
 */
export class AuditSweep {
  private sinceSweep = Number.POSITIVE_INFINITY;
  private lastSweep = 0;
  private every = 1000;

  constructor(
    public retention: AuditRetention,
    private readonly clock: () => number = Date.now,
  ) {
    this.follow(retention);
  }

  /** A new retention (a new build under `--watch`): applies at the next write. */
  follow(retention: AuditRetention): void {
    this.retention = retention;
    this.every = "maxRows" in retention ? Math.max(1, Math.min(1000, Math.ceil(retention.maxRows / 10))) : 1000;
    this.sinceSweep = Number.POSITIVE_INFINITY;
  }

  /** Counts one append; returns the sweep to run now, if one is due. */
  due(p: Placeholder): { text: string; values: unknown[] } | undefined {
    this.sinceSweep++;
    const now = this.clock();
    if (this.sinceSweep < this.every && now - this.lastSweep < 60_000) return undefined;
    this.sinceSweep = 0;
    this.lastSweep = now;
    const r = this.retention;
    if ("maxRows" in r) {
      // Everything older than the maxRows-th newest entry (a NULL bound, with fewer, deletes nothing).
      return {
        text: `DELETE FROM "${auditTable}" WHERE "seq" < (SELECT "seq" FROM "${auditTable}" ORDER BY "seq" DESC LIMIT 1 OFFSET ${p(1)})`,
        values: [Math.max(0, Math.trunc(r.maxRows) - 1)],
      };
    }
    return {
      text: `DELETE FROM "${auditTable}" WHERE "at" < ${p(1)}`,
      values: [new Date(now - r.maxAgeMs).toISOString()],
    };
  }
}
