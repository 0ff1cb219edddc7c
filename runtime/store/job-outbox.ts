// The job outbox's table, `_wo_jobs` (spec/storage.md, "The job outbox"), shared by both
// stores: its columns and the statements that append, claim, finish and list jobs (plain SQL
// both SQLite and PostgreSQL run; only the placeholders, the id column and PostgreSQL's
// `FOR UPDATE SKIP LOCKED` differ). Times are milliseconds since the epoch, so comparing them
// is comparing numbers. What runs a job and when it is retried is the runtime's
// (runtime/jobs/runner.ts); a store only keeps the rows.

import { jobsTable, type Job, type JobClaim, type JobQueue, type JobStatus, type NewJob } from "../../model/store.js";
import type { Placeholder } from "./audit-trail.js";

const idColumn = {
  sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
  postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
};

type Dialect = keyof typeof idColumn;

const t = `"${jobsTable}"`;

/** CREATE statements (IF NOT EXISTS: every open makes sure of the table). */
export function createJobsSql(dialect: Dialect): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t} ("id" ${idColumn[dialect]}, "name" TEXT NOT NULL, "args" TEXT NOT NULL, "status" TEXT NOT NULL, "attempts" INTEGER NOT NULL, "run_at" BIGINT NOT NULL, "claimed_until" BIGINT, "last_error" TEXT, "type" TEXT NOT NULL, "row_id" BIGINT NOT NULL, "created_at" BIGINT NOT NULL, "updated_at" BIGINT NOT NULL)`,
    // A claim looks for the oldest due job of a status.
    `CREATE INDEX IF NOT EXISTS "${jobsTable}_due" ON ${t} ("status", "run_at")`,
  ];
}

/** The INSERT of a new job and its values (`RETURNING "id"`: both stores read the id from it). */
export function appendJobSql(p: Placeholder, job: NewJob): { text: string; values: unknown[] } {
  const at = Date.parse(job.at);
  const { add, values } = binder(p);
  return {
    text: `INSERT INTO ${t} ("name", "args", "status", "attempts", "run_at", "type", "row_id", "created_at", "updated_at") VALUES (${add(job.name)}, ${add(JSON.stringify(job.args))}, 'pending', 0, ${add(at)}, ${add(job.type)}, ${add(job.rowId)}, ${add(at)}, ${add(at)}) RETURNING "id"`,
    values,
  };
}

/**
 * Values bound in the order their placeholders appear, one each (SQLite's `?` takes the next
 * value, so a value used twice is bound twice).
 */
function binder(p: Placeholder): { add: (v: unknown) => string; values: unknown[] } {
  const values: unknown[] = [];
  return {
    values,
    add: (v) => {
      values.push(v);
      return p(values.length);
    },
  };
}

/** Runs one statement; its rows as the database returns them. */
export type RunSql = (text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The JobQueue over `run`. `atomically` runs each call's statements in one transaction of
 * their own (SQLite: its writer's queue, the one place its statements may run; PostgreSQL:
 * each statement is atomic on its own and rows another claimer holds are skipped, so it runs
 * them as they come).
 */
export function jobQueue(
  dialect: Dialect,
  p: Placeholder,
  run: RunSql,
  atomically: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
): JobQueue {
  const skipLocked = dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
  /** Sets the columns of a running job (and of the attempt given); its row after, if it was. */
  const finish = async (id: number, attempt: number | undefined, set: Record<string, unknown>) => {
    const { add, values } = binder(p);
    const sets = Object.entries(set).map(([column, v]) => `"${column}" = ${v === null ? "NULL" : add(v)}`);
    let where = `"id" = ${add(id)} AND "status" = 'running'`;
    if (attempt !== undefined) where += ` AND "attempts" = ${add(attempt)}`;
    const rows = await atomically(() => run(`UPDATE ${t} SET ${sets.join(", ")} WHERE ${where} RETURNING *`, values));
    return rows[0] ? jobOf(rows[0]) : undefined;
  };
  return {
    claim: (c: JobClaim) =>
      atomically(async () => {
        if (c.only !== undefined && c.only.length === 0) return undefined;
        const byName = (add: (v: unknown) => string) => {
          const conds: string[] = [];
          if (c.only !== undefined) conds.push(`"name" IN (${c.only.map(add).join(", ")})`);
          if (c.except !== undefined && c.except.length > 0)
            conds.push(`"name" NOT IN (${c.except.map(add).join(", ")})`);
          if (c.name !== undefined) conds.push(`"name" = ${add(c.name)}`);
          return conds.map((n) => ` AND ${n}`).join("");
        };
        // A job whose lease ran out on its last attempt is not run again: it failed.
        const expired = binder(p);
        await run(
          `UPDATE ${t} SET "status" = 'failed', "claimed_until" = NULL, "updated_at" = ${expired.add(c.now)}, "last_error" = 'its lease ran out on its last attempt: the instance or worker running it stopped or took too long' WHERE "status" = 'running' AND "claimed_until" <= ${expired.add(c.now)} AND "attempts" >= ${expired.add(c.maxAttempts)}${byName(expired.add)}`,
          expired.values,
        );
        const { add, values } = binder(p);
        const set = `"status" = 'running', "attempts" = "attempts" + 1, "claimed_until" = ${add(c.now + c.leaseMs)}, "updated_at" = ${add(c.now)}`;
        const due = `("status" = 'pending' AND "run_at" <= ${add(c.now)}) OR ("status" = 'running' AND "claimed_until" <= ${add(c.now)} AND "attempts" < ${add(c.maxAttempts)})`;
        const rows = await run(
          `UPDATE ${t} SET ${set} WHERE "id" = (SELECT "id" FROM ${t} WHERE (${due})${byName(add)} ORDER BY "run_at", "id" LIMIT 1${skipLocked}) RETURNING *`,
          values,
        );
        return rows[0] ? jobOf(rows[0]) : undefined;
      }),
    complete: (id, attempt, now) => finish(id, attempt, { status: "done", claimed_until: null, updated_at: now }),
    fail: (id, attempt, error, retryAt, now) =>
      finish(
        id,
        attempt,
        retryAt === undefined
          ? { status: "failed", claimed_until: null, last_error: error, updated_at: now }
          : { status: "pending", claimed_until: null, last_error: error, run_at: retryAt, updated_at: now },
      ),
    async get(id) {
      if (!Number.isSafeInteger(id)) return undefined;
      const rows = await atomically(() => run(`SELECT * FROM ${t} WHERE "id" = ${p(1)}`, [id]));
      return rows[0] ? jobOf(rows[0]) : undefined;
    },
    async list(q) {
      const conds: string[] = [];
      const values: unknown[] = [];
      if (q.status !== undefined) {
        values.push(q.status);
        conds.push(`"status" = ${p(values.length)}`);
      }
      if (q.name !== undefined) {
        values.push(q.name);
        conds.push(`"name" = ${p(values.length)}`);
      }
      values.push(q.limit);
      const where = conds.length > 0 ? ` WHERE ${conds.join(" AND ")}` : "";
      const text = `SELECT * FROM ${t}${where} ORDER BY "id" DESC LIMIT ${p(values.length)}`;
      const rows = await atomically(() => run(text, values));
      return rows.map(jobOf);
    },
  };
}

const iso = (ms: unknown) => new Date(Number(ms)).toISOString();

function jobOf(r: Record<string, unknown>): Job {
  return {
    id: Number(r.id),
    name: String(r.name),
    args: JSON.parse(String(r.args)) as Record<string, unknown>,
    status: String(r.status) as JobStatus,
    attempts: Number(r.attempts),
    runAt: iso(r.run_at),
    claimedUntil: r.claimed_until === null ? null : iso(r.claimed_until),
    lastError: r.last_error === null ? null : String(r.last_error),
    type: String(r.type),
    rowId: Number(r.row_id),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}
