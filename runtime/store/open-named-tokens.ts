// The named tokens of an app's database for `wo token` (cli/commands/token.ts), opened beside a
// `wo run` that may be serving it. Only `_wo_tokens` is touched, never the app's tables or its
// shape, so neither the data folder's single-writer lock (lock.ts, which keeps a second server
// from migrating and writing one database) nor a migration is taken: SQLite's own locking
// (WAL, busy_timeout) orders its short writes with the server's, and PostgreSQL's does across
// instances. The table is created if missing, under the migration lock on PostgreSQL.

import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { NamedTokenDirectory } from "../../model/store.js";
import { createAuditSql } from "./audit-trail.js";
import { openConnection } from "./connection.js";
import { createNamedTokenTableSql, sqliteNamedTokens } from "./named-tokens.js";
import { explainOpenFailure } from "./open-errors.js";
import { postgresSettings, storeLocation, type StoreSelection } from "./open.js";
import { migrationLockKey } from "./postgres/migrate.js";
import { pgCreateNamedTokenTableSql, pgNamedTokens } from "./postgres/named-tokens.js";
import { createPool, explainPostgresOpenFailure, redactUrl } from "./postgres/store.js";

export interface OpenedNamedTokens {
  tokens: NamedTokenDirectory;
  /** The database, as messages name it (no password). */
  description: string;
  close(): Promise<void>;
}

/**
 * Opens the named tokens of the database `selection` names. With `create` false, a SQLite
 * database that does not exist yet is not made: the answer is undefined (it holds no tokens).
 * Failures a user can cause are StoreOpenErrors with a message to print.
 */
export async function openNamedTokens(
  selection: StoreSelection,
  create: boolean,
): Promise<OpenedNamedTokens | undefined> {
  const location = storeLocation(selection);
  if (location.kind === "sqlite") {
    if (!create && !existsSync(location.file)) return undefined;
    try {
      mkdirSync(dirname(location.file), { recursive: true });
      const conn = openConnection(location.file);
      try {
        conn.db.exec(createNamedTokenTableSql);
        for (const sql of createAuditSql("sqlite")) conn.db.exec(sql);
      } catch (err) {
        conn.close();
        throw err;
      }
      return {
        tokens: sqliteNamedTokens({ reader: () => conn.db, write: async (fn) => fn(conn.db) }),
        description: location.file,
        close: async () => conn.close(),
      };
    } catch (err) {
      throw explainOpenFailure(err, location.file);
    }
  }
  const where = redactUrl(location.url);
  const pool = createPool({ url: location.url, ...postgresSettings(location.url, selection), poolSize: 1 });
  try {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey.toString()]);
      await client.query(pgCreateNamedTokenTableSql);
      for (const sql of createAuditSql("postgres")) await client.query(sql);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw explainPostgresOpenFailure(err, where);
  }
  return {
    tokens: pgNamedTokens((text, values) => pool.query(text, values)),
    description: where,
    close: () => pool.end(),
  };
}
