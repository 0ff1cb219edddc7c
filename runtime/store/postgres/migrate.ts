// Schema evolution on PostgreSQL, with the rules of the SQLite store (runtime/store/migrate.ts,
// model/shape-diff.ts):
// the storage shape the database was last opened with lives in `_wo_meta`; the new shape is
// diffed against it, additive changes apply automatically, destructive ones only when allowed,
// blocked ones never; all of it in one transaction with the new shape, or nothing.
//
// Several instances may start at once against one database: the migration runs under a
// transaction-scoped advisory lock, so one instance migrates while the others wait, then find
// the new shape already stored and change nothing. DDL is transactional in PostgreSQL, so a
// failed migration leaves the database as it was.

import { randomBytes } from "node:crypto";
import type pg from "pg";
import {
  appliedReport,
  migrationChanges,
  migrationPlan,
  orderedSteps,
  parseStoredShape,
  planMigration,
  shapeChanged,
  shownIds,
  type DataProbe,
  type Step,
} from "../../../model/shape-diff.js";
import {
  metaTable,
  valueKind,
  type ColumnShape,
  type StorageShape,
  type StoredDefault,
} from "../../../model/storage-shape.js";
import { StoreOpenError, type MigrationPlan, type MigrationReport } from "../../../model/store.js";
import { violatingSqlOp } from "../../../model/field-check.js";
import { quoteId } from "../ddl.js";
import { parseJson } from "../row-codec.js";
import { createChangeLogSql } from "./change-log.js";
import { pgCreateNamedTokenTableSql } from "./named-tokens.js";
import { pgCreateRateBucketTableSql } from "./rate-buckets.js";
import { createAuditSql } from "../audit-trail.js";
import { createJobsSql } from "../job-outbox.js";
import {
  pgColumnDefinition,
  pgCreateIndexSql,
  pgCreateSearchSql,
  pgCreateTableSql,
  pgDropIndexSql,
  pgDropSearchSql,
  pgIndexedColumn,
} from "./ddl.js";

/** 2025-era MCP sessions shared by the instances (store.ts); not part of the app's shape. */
export const mcpSessionTable = "_wo_mcp_sessions";
/** One row: the key session ids are signed with, the same for every instance (runtime/mcp/session-ids.ts). */
export const mcpSessionKeyTable = "_wo_mcp_session_key";

/**
 * The instances whose change relay listens (change-relay.ts), by their relay connection's
 * backend pid: a write notifies only when some other instance is in it. Not part of the app's shape.
 */
export const listenerTable = "_wo_listeners";

/** The advisory lock key every wo instance migrates under ("wo" in ASCII, then "migrate"). */
export const migrationLockKey = 0x776f_6d69_6772n;
/** The advisory lock key under which a session's row is counted and written ("wo" then "mcpses"). */
export const mcpSessionLockKey = 0x776f_6d63_7073n;

/** `where` names the database in messages (its URL without the password). */
export async function migratePostgres(
  client: pg.ClientBase,
  where: string,
  next: StorageShape,
  options: { allowDestructive: boolean },
): Promise<MigrationReport> {
  await client.query("BEGIN");
  try {
    // Waits while another instance migrates; released by COMMIT or ROLLBACK.
    await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey.toString()]);
    const report = await planAndApply(client, where, next, options);
    for (const sql of createChangeLogSql) await client.query(sql);
    await client.query(pgCreateNamedTokenTableSql);
    await client.query(pgCreateRateBucketTableSql);
    for (const sql of createAuditSql("postgres")) await client.query(sql);
    for (const sql of createJobsSql("postgres")) await client.query(sql);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteId(mcpSessionTable)} ("id" TEXT PRIMARY KEY, "protocol_version" TEXT NOT NULL, "created_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "last_used" TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    // Made before sessions expired: the column that says when each was last used.
    await client.query(
      `ALTER TABLE ${quoteId(mcpSessionTable)} ADD COLUMN IF NOT EXISTS "last_used" TIMESTAMPTZ NOT NULL DEFAULT now()`,
    );
    // A session ended by DELETE keeps its row, marked, while its id could still pass for unused.
    await client.query(
      `ALTER TABLE ${quoteId(mcpSessionTable)} ADD COLUMN IF NOT EXISTS "ended" BOOLEAN NOT NULL DEFAULT false`,
    );
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteId(listenerTable)} ("instance" TEXT PRIMARY KEY, "pid" INTEGER NOT NULL)`,
    );
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteId(mcpSessionKeyTable)} ("one" BOOLEAN PRIMARY KEY DEFAULT true CHECK ("one"), "key" BYTEA NOT NULL)`,
    );
    await client.query(`INSERT INTO ${quoteId(mcpSessionKeyTable)} ("key") VALUES ($1) ON CONFLICT DO NOTHING`, [
      randomBytes(32),
    ]);
    await client.query("COMMIT");
    return report;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

async function planAndApply(
  client: pg.ClientBase,
  where: string,
  next: StorageShape,
  options: { allowDestructive: boolean },
): Promise<MigrationReport> {
  const stored = await readStoredShape(client, where);
  const changes = await planMigration(stored, next, createProbe(client), where, options);

  if (stored === undefined)
    await client.query(`CREATE TABLE ${quoteId(metaTable)} ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL)`);
  await applySteps(
    runnerOf(client),
    changes.flatMap((c) => c.steps),
  );
  if (shapeChanged(stored, next, changes)) {
    await client.query(
      `INSERT INTO ${quoteId(metaTable)} ("key", "value") VALUES ('shape', $1) ON CONFLICT ("key") DO UPDATE SET "value" = EXCLUDED."value"`,
      [JSON.stringify(next)],
    );
  }
  return appliedReport(changes);
}

async function readStoredShape(client: pg.ClientBase, where: string): Promise<StorageShape | undefined> {
  const tables = (
    await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`,
    )
  ).rows;
  if (!tables.some((t) => t.name === metaTable)) {
    // wo's own tables (`_wo_tokens`: `wo token add` before the first start) are not an app's.
    const foreign = tables.filter((t) => !t.name.startsWith("_wo_"));
    if (foreign.length > 0) {
      throw new StoreOpenError(
        `${where} already holds tables that wo did not create (${foreign.map((t) => t.name).join(", ")}); use an empty database.`,
      );
    }
    return undefined;
  }
  const row = (await client.query<{ value: string }>(`SELECT "value" FROM ${quoteId(metaTable)} WHERE "key" = 'shape'`))
    .rows[0];
  return parseStoredShape(row?.value, where);
}

/** The data questions of model/shape-diff.ts, asked inside the migration transaction. */
function createProbe(client: pg.ClientBase): DataProbe {
  const one = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  return {
    rowCount: (t) => one(`SELECT COUNT(*) AS n FROM ${quoteId(t)}`),
    nonNullCount: (t, c) => one(`SELECT COUNT(*) AS n FROM ${quoteId(t)} WHERE ${quoteId(c)} IS NOT NULL`),
    nullCount: (t, c) => one(`SELECT COUNT(*) AS n FROM ${quoteId(t)} WHERE ${quoteId(c)} IS NULL`),
    countIn: (t, c, values) =>
      one(
        `SELECT COUNT(*) AS n FROM ${quoteId(t)} WHERE ${quoteId(c)}::text = ANY(ARRAY[${values.map(literal).join(", ")}]::text[])`,
      ),
    duplicateCount: (t, c, collation) => {
      const value = pgIndexedColumn(c, collation);
      return one(
        `SELECT COUNT(*) AS n FROM (SELECT ${value} FROM ${quoteId(t)} WHERE ${quoteId(c)} IS NOT NULL GROUP BY ${value} HAVING COUNT(*) > 1) AS d`,
      );
    },
    checkViolations: async (t, c, check) => {
      // The value is a parameter; PostgreSQL types it as the column (BIGINT, DOUBLE PRECISION or TEXT).
      const where = `FROM ${quoteId(t)} WHERE ${quoteId(c)} IS NOT NULL AND ${quoteId(c)} ${violatingSqlOp(check.op)} $1`;
      const count = Number(
        (await client.query<{ n: string }>(`SELECT COUNT(*) AS n ${where}`, [check.value])).rows[0]!.n,
      );
      const ids = (
        await client.query<{ id: string }>(`SELECT "id" ${where} ORDER BY "id" LIMIT ${shownIds}`, [check.value])
      ).rows.map((r) => Number(r.id));
      return { count, ids };
    },
    storedValues: async (t, c) =>
      (
        await client.query<{ id: string; v: string }>(
          `SELECT "id", ${quoteId(c)}::text AS v FROM ${quoteId(t)} WHERE ${quoteId(c)} IS NOT NULL ORDER BY "id"`,
        )
      ).rows.map((r) => ({ id: Number(r.id), value: parseJson(r.v) })),
  };
}

/** A text literal (union variant names are identifiers, but quote them properly anyway). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * What opening the store would do to the database, found by doing it and rolling back (`wo
 * migrate --plan`), under the migration lock: every change, and the statements of those that
 * are not blocked with the rows each touched. DDL is transactional here, so nothing changes.
 */
export async function planPostgresMigration(
  client: pg.ClientBase,
  where: string,
  next: StorageShape,
  options: { allowDestructive: boolean },
): Promise<MigrationPlan> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey.toString()]);
    const stored = await readStoredShape(client, where);
    const changes = await migrationChanges(stored, next, createProbe(client));
    if (stored === undefined)
      await client.query(`CREATE TABLE ${quoteId(metaTable)} ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL)`);
    const statements: MigrationPlan["statements"] = [];
    const real = runnerOf(client);
    await applySteps(
      {
        ddl: async (sql) => {
          await real.ddl(sql);
          statements.push({ sql });
        },
        dml: async (sql, params) => {
          const rows = await real.dml(sql, params);
          statements.push({ sql, rows });
          return rows;
        },
      },
      changes.filter((c) => c.severity !== "blocked").flatMap((c) => c.steps),
    );
    return migrationPlan(changes, statements, where, options);
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
  }
}

/** How the steps reach the database: schema statements, and row statements that say how many rows they touched. */
interface StepRunner {
  ddl(sql: string): Promise<void>;
  dml(sql: string, params: unknown[]): Promise<number>;
}

function runnerOf(client: pg.ClientBase): StepRunner {
  return {
    ddl: async (sql) => void (await client.query(sql)),
    dml: async (sql, params) => (await client.query(sql, params)).rowCount ?? 0,
  };
}

async function applySteps(client: StepRunner, steps: Step[]): Promise<void> {
  const now = new Date().toISOString();
  for (const s of orderedSteps(steps)) {
    switch (s.op) {
      case "dropIndex":
        await client.ddl(pgDropIndexSql(s.index));
        break;
      case "renameTable":
        await client.ddl(`ALTER TABLE ${quoteId(s.from)} RENAME TO ${quoteId(s.to)}`);
        break;
      case "renameColumn":
        await client.ddl(`ALTER TABLE ${quoteId(s.table)} RENAME COLUMN ${quoteId(s.from)} TO ${quoteId(s.to)}`);
        break;
      case "dropTable":
        await client.ddl(`DROP TABLE ${quoteId(s.table)}`);
        break;
      case "createTable":
        await client.ddl(pgCreateTableSql(s.table));
        break;
      case "dropColumn":
        await client.ddl(`ALTER TABLE ${quoteId(s.table)} DROP COLUMN ${quoteId(s.column)}`);
        break;
      case "addColumn":
        await client.ddl(`ALTER TABLE ${quoteId(s.table)} ADD COLUMN ${pgColumnDefinition(s.column)}`);
        if (s.fill)
          await client.dml(`UPDATE ${quoteId(s.table)} SET ${quoteId(s.column.name)} = $1`, [
            fillValue(s.column, s.fill, now),
          ]);
        break;
      case "fillNulls":
        await client.dml(
          `UPDATE ${quoteId(s.table)} SET ${quoteId(s.column.name)} = $1 WHERE ${quoteId(s.column.name)} IS NULL`,
          [fillValue(s.column, s.fill, now)],
        );
        break;
      case "replaceValues": {
        const col = quoteId(s.column.name);
        const value = s.fill ? fillValue(s.column, s.fill, now) : null;
        await client.dml(`UPDATE ${quoteId(s.table)} SET ${col} = $1 WHERE ${col}::text = ANY($2::text[])`, [
          value,
          s.values,
        ]);
        break;
      }
      case "createIndex":
        await client.ddl(pgCreateIndexSql(s.table, s.index));
        break;
      case "dropSearch":
        for (const sql of pgDropSearchSql(s.table)) await client.ddl(sql);
        break;
      case "createSearch":
        for (const sql of pgCreateSearchSql(s.table, s.search)) await client.ddl(sql);
        break;
    }
  }
}

/** A default as the column stores it; `now` is the migration's time. */
function fillValue(column: ColumnShape, d: StoredDefault, now: string): unknown {
  if (d.kind === "now") return now;
  const v = d.value;
  if (v === null) return null;
  if (valueKind(column.type) === "json") return JSON.stringify(v);
  return v;
}
