// Reads an app's job outbox from outside the server that runs it (`wo jobs`): a read-only look
// at the same database, like the audit trail's reader (audit-reader.ts), so it works while
// `wo run` serves. The table and its queries are job-outbox.ts's; where the data lives is open.ts's.

import { existsSync } from "node:fs";
import pg from "pg";
import { jobsTable, StoreOpenError, type JobQueue } from "../../model/store.js";
import { openSqliteFile } from "./connection.js";
import { jobQueue } from "./job-outbox.js";
import { postgresPassword, storeLocation, type StoreSelection } from "./open.js";
import { redactUrl } from "./postgres/store.js";

export interface JobsReader {
  list: JobQueue["list"];
  close(): Promise<void>;
}

/** Throws StoreOpenError (with a message to print) when the database cannot be read. */
export async function openJobsReader(selection: StoreSelection): Promise<JobsReader> {
  const location = storeLocation(selection);
  if (location.kind === "sqlite") {
    const { file } = location;
    if (!existsSync(file)) throw new StoreOpenError(`There is no database at ${file} yet: no job has been enqueued.`);
    const db = openSqliteFile(file, { readonly: true, fileMustExist: true });
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(jobsTable);
    const queue = jobQueue(
      "sqlite",
      () => "?",
      async (text, values) => db.prepare(text).all(...values) as never,
    );
    return {
      list: async (query) => (hasTable ? queue.list(query) : []),
      close: async () => void db.close(),
    };
  }
  const url = new URL(location.url);
  const password = postgresPassword(location.url, selection);
  if (password !== undefined && !url.password) url.password = encodeURIComponent(password);
  const client = new pg.Client({ connectionString: url.toString(), application_name: "wo jobs" });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new StoreOpenError(`Cannot connect to ${redactUrl(location.url)}: ${(err as Error).message}`);
  }
  const exists = await client.query("SELECT to_regclass($1) AS t", [`"${jobsTable}"`]);
  const queue = jobQueue(
    "postgres",
    (n) => `$${n}`,
    async (text, values) => (await client.query(text, values)).rows,
  );
  return {
    list: async (query) => (exists.rows[0]?.t ? queue.list(query) : []),
    close: () => client.end(),
  };
}
