// Reads an app's audit trail from outside the server that writes it (`wo audit`): a read-only
// look at the same database, which needs neither the single-writer lock of the SQLite data
// folder nor a migration, so it works while `wo run` serves. The table and its queries are
// audit-trail.ts's; where the data lives is open.ts's.

import { existsSync } from "node:fs";
import { openSqliteFile } from "./connection.js";
import pg from "pg";
import { StoreOpenError, type AuditEntry, type AuditQuery } from "../../model/store.js";
import { auditPage, auditTable, readAuditSql } from "./audit-trail.js";
import { postgresPassword, storeLocation, type StoreSelection } from "./open.js";
import { redactUrl } from "./postgres/store.js";

export interface AuditReader {
  /** How messages name the database. */
  description: string;
  read(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }>;
  close(): Promise<void>;
}

/** Throws StoreOpenError (with a message to print) when the database cannot be read. */
export async function openAuditReader(selection: StoreSelection): Promise<AuditReader> {
  const location = storeLocation(selection);
  if (location.kind === "sqlite") {
    const { file } = location;
    if (!existsSync(file)) throw new StoreOpenError(`There is no database at ${file} yet: nothing has been recorded.`);
    const db = openSqliteFile(file, { readonly: true, fileMustExist: true });
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(auditTable);
    return {
      description: file,
      read: async (query) => {
        if (!hasTable) return { entries: [], more: false };
        const { text, values } = readAuditSql(() => "?", query);
        return auditPage(db.prepare(text).all(...values) as Record<string, unknown>[], query.limit);
      },
      close: async () => void db.close(),
    };
  }
  const url = new URL(location.url);
  const password = postgresPassword(location.url, selection);
  if (password !== undefined && !url.password) url.password = encodeURIComponent(password);
  const client = new pg.Client({ connectionString: url.toString(), application_name: "wo audit" });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new StoreOpenError(`Cannot connect to ${redactUrl(location.url)}: ${(err as Error).message}`);
  }
  return {
    description: redactUrl(location.url),
    read: async (query) => {
      const r = await client.query<Record<string, unknown>>(readAuditSql((n) => `$${n}`, query));
      return auditPage(r.rows, query.limit);
    },
    close: () => client.end(),
  };
}
