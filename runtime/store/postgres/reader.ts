// A read-only open of a PostgreSQL database, for `wo export`: one connection, no pool, no
// migration, no change relay. Each read() is a REPEATABLE READ READ ONLY transaction, as the
// store's own reads are, and first checks inside that snapshot that the database has the
// build's storage shape (a reader that migrated would be a writer).

import pg from "pg";
import type { Catalog } from "../../../model/app.js";
import { parseStoredShape } from "../../../model/shape-diff.js";
import { deriveShape, metaTable } from "../../../model/storage-shape.js";
import { StoreOpenError, type StoreTx } from "../../../model/store.js";
import { quoteId } from "../ddl.js";
import type { StoreReader } from "../reader.js";
import { buildTableRegistry } from "../tables.js";
import { connectionString, explainPostgresOpenFailure, redactUrl, types } from "./store.js";
import { PostgresTx, StatementNames } from "./tx.js";
import { AuditSweep, defaultAuditRetention } from "../audit-trail.js";

export async function openPostgresReader(options: {
  url: string;
  password?: string;
  catalog: Catalog;
}): Promise<StoreReader> {
  const where = redactUrl(options.url);
  const shape = deriveShape(options.catalog);
  const expected = JSON.stringify(shape);
  // `contains` is never asked of an export: the database's own collation will do.
  // A reader writes nothing, so its audit sweep is never due.
  const ctx = {
    tables: buildTableRegistry(shape),
    statements: new StatementNames(),
    foldCollation: "default",
    auditSweep: new AuditSweep(defaultAuditRetention),
    relayed: new Set<string>(),
    rowInserts: { statements: 0, rows: 0 },
  };
  const client = new pg.Client({ connectionString: connectionString(options), application_name: "wo", types });
  // A connection the server drops is reported here too; the read in progress rejects.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw explainPostgresOpenFailure(err, where);
  }
  return {
    async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const tx = new PostgresTx(client as pg.PoolClient, ctx, false);
      try {
        await assertShape(client, where, expected);
        return await fn(tx);
      } finally {
        tx.finish();
        await client.query("ROLLBACK").catch(() => undefined);
      }
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}

async function assertShape(client: pg.Client, where: string, expected: string): Promise<void> {
  const exists = await client.query(`SELECT to_regclass($1) IS NOT NULL AS "exists"`, [quoteId(metaTable)]);
  if (!exists.rows[0]?.exists)
    throw new StoreOpenError(`${where} is not a wo database (it has no ${metaTable} table).`);
  const row = (await client.query<{ value: string }>(`SELECT "value" FROM ${quoteId(metaTable)} WHERE "key" = 'shape'`))
    .rows[0];
  if (JSON.stringify(parseStoredShape(row?.value, where)) !== expected)
    throw new StoreOpenError(
      `${where} holds another shape than these .wo files describe (they changed since wo run last opened it); run \`wo run\` once with them, which migrates it, then try again.`,
    );
}
