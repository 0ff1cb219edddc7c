// The named tokens of a PostgreSQL database (spec/operations.md, "Tokens"): `_wo_tokens`, as on
// SQLite (../named-tokens.ts), shared by every instance on the database, so a token added or
// revoked with `wo token` counts on all of them at once: each lookup asks the database.

import type pg from "pg";
import type { AuditRecord, NamedTokenDirectory, NamedTokenRecord } from "../../../model/store.js";
import { appendAuditSql, auditValues } from "../audit-trail.js";
import { namedTokenTable } from "../named-tokens.js";

export const pgCreateNamedTokenTableSql = `CREATE TABLE IF NOT EXISTS "${namedTokenTable}" ("name" TEXT PRIMARY KEY, "role" TEXT NOT NULL, "user" TEXT, "hash" TEXT NOT NULL UNIQUE, "created_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "last_used" TIMESTAMPTZ)`;

type Query = (text: string, values: unknown[]) => Promise<pg.QueryResult>;

const columns = `"name", "role", "user", "hash", "created_at", "last_used"`;

function record(row: Record<string, unknown>): NamedTokenRecord {
  return {
    name: row.name as string,
    role: row.role as string,
    user: (row.user as string | null) ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    lastUsed: row.last_used ? (row.last_used as Date).toISOString() : null,
  };
}

export function pgNamedTokens(query: Query): NamedTokenDirectory {
  return {
    add: async (token, audit) =>
      changedWithAudit(
        query,
        `INSERT INTO "${namedTokenTable}" ("name", "role", "user", "hash") VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
        [token.name, token.role, token.user, token.hash],
        audit,
      ),
    list: async () => (await query(`SELECT ${columns} FROM "${namedTokenTable}" ORDER BY "name"`, [])).rows.map(record),
    revoke: async (name, audit) =>
      changedWithAudit(query, `DELETE FROM "${namedTokenTable}" WHERE "name" = $1 RETURNING 1`, [name], audit),
    find: async (hash) => {
      const row = (await query(`SELECT ${columns} FROM "${namedTokenTable}" WHERE "hash" = $1`, [hash])).rows[0];
      return row && { ...record(row), hash: row.hash as string };
    },
    // Instances that use one token at once write its mark once a minute between them.
    touch: async (name) => {
      await query(
        `UPDATE "${namedTokenTable}" SET "last_used" = now() WHERE "name" = $1 AND ("last_used" IS NULL OR "last_used" < now() - interval '1 minute')`,
        [name],
      );
    },
    count: async () => Number((await query(`SELECT count(*) AS n FROM "${namedTokenTable}"`, [])).rows[0]?.n ?? 0),
  };
}

/**
 * Runs `change` (a statement that RETURNs a row per row it changed) and, when it changed one,
 * appends `audit`: one statement, so both commit or neither does. True when it changed one.
 */
async function changedWithAudit(
  query: Query,
  change: string,
  values: unknown[],
  audit: AuditRecord | undefined,
): Promise<boolean> {
  if (!audit) return ((await query(change, values)).rowCount ?? 0) > 0;
  const n = values.length;
  const insert = appendAuditSql((i) => `$${n + i}`).replace(
    / VALUES \((.*)\)$/,
    " SELECT $1 WHERE EXISTS (SELECT 1 FROM changed)",
  );
  const text = `WITH changed AS (${change}), logged AS (${insert}) SELECT count(*) AS n FROM changed`;
  return Number((await query(text, [...values, ...auditValues(audit)])).rows[0]?.n ?? 0) > 0;
}
