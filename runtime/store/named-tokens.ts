// The named tokens of a SQLite database (spec/operations.md, "Tokens"): `_wo_tokens`, one row
// per token — its name, role, user, when it was made and last used, and the SHA-256 of its text,
// never the text. Not part of the app's shape: created on open like the change log, and by
// `wo token add` on a database no server has opened yet.
//
// Lookups run outside any snapshot, on a connection of their own: `wo token add` and `wo token
// revoke` are other processes, whose commits a reused read snapshot would not see, and a revoked
// token must be refused at once.

import type Database from "better-sqlite3";
import type { AuditRecord, NamedTokenDirectory, NamedTokenRecord } from "../../model/store.js";
import { appendAuditSql, auditValues } from "./audit-trail.js";

export const namedTokenTable = "_wo_tokens";

export const createNamedTokenTableSql = `CREATE TABLE IF NOT EXISTS "${namedTokenTable}" ("name" TEXT PRIMARY KEY, "role" TEXT NOT NULL, "user" TEXT, "hash" TEXT NOT NULL UNIQUE, "created_at" TEXT NOT NULL, "last_used" TEXT)`;

interface TokenRow {
  name: string;
  role: string;
  user: string | null;
  hash: string;
  created_at: string;
  last_used: string | null;
}

const columns = `"name", "role", "user", "hash", "created_at", "last_used"`;

function record(row: TokenRow): NamedTokenRecord {
  return { name: row.name, role: row.role, user: row.user, createdAt: row.created_at, lastUsed: row.last_used };
}

export interface SqliteTokenAccess {
  /** A connection outside any transaction: each statement sees the newest commit. */
  reader(): Database.Database;
  /** Runs a write on the connection that may write (the store's writer, in its queue). */
  write<T>(fn: (db: Database.Database) => T): Promise<T>;
}

/** Statements prepared once per connection: a lookup runs on every request that carries a token. */
const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();
function statement(db: Database.Database, sql: string): Database.Statement {
  let byText = prepared.get(db);
  if (!byText) prepared.set(db, (byText = new Map()));
  let s = byText.get(sql);
  if (!s) byText.set(sql, (s = db.prepare(sql)));
  return s;
}

export function sqliteNamedTokens(access: SqliteTokenAccess): NamedTokenDirectory {
  return {
    add: (token, audit) =>
      access.write((db) =>
        withAudit(db, audit, () =>
          statement(
            db,
            `INSERT INTO "${namedTokenTable}" ("name", "role", "user", "hash", "created_at") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          ).run(token.name, token.role, token.user, token.hash, new Date().toISOString()),
        ),
      ),
    list: async () =>
      (
        statement(access.reader(), `SELECT ${columns} FROM "${namedTokenTable}" ORDER BY "name"`).all() as TokenRow[]
      ).map(record),
    revoke: (name, audit) =>
      access.write((db) =>
        withAudit(db, audit, () => statement(db, `DELETE FROM "${namedTokenTable}" WHERE "name" = ?`).run(name)),
      ),
    find: async (hash) => {
      const row = statement(access.reader(), `SELECT ${columns} FROM "${namedTokenTable}" WHERE "hash" = ?`).get(
        hash,
      ) as TokenRow | undefined;
      return row && { ...record(row), hash: row.hash };
    },
    touch: (name) =>
      access.write((db) => {
        statement(db, `UPDATE "${namedTokenTable}" SET "last_used" = ? WHERE "name" = ?`).run(
          new Date().toISOString(),
          name,
        );
      }),
    count: async () =>
      (statement(access.reader(), `SELECT count(*) AS n FROM "${namedTokenTable}"`).get() as { n: number }).n,
  };
}

/** Runs `write` and, when it changed a row, appends `audit` in the same transaction: true when it changed one. */
function withAudit(db: Database.Database, audit: AuditRecord | undefined, write: () => Database.RunResult): boolean {
  return db.transaction(() => {
    const changed = write().changes > 0;
    if (changed && audit)
      statement(
        db,
        appendAuditSql(() => "?"),
      ).run(...auditValues(audit));
    return changed;
  })();
}
