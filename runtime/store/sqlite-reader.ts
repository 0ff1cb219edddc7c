// A read-only open of a SQLite database, for `wo export` while `wo run` serves it: one
// read-only connection, no data-folder lock (lock.ts keeps a second *writer* away; a reader
// takes nothing from the writer), no migration, no integrity scan. In WAL mode a reader's
// snapshot never blocks the writer; it only holds back checkpoints until it ends, so the WAL
// grows by what is written during the read.
//
// The database must already have the build's storage shape (what `wo run` migrates it to at
// open): a reader that migrated would be a writer.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Catalog } from "../../model/app.js";
import { parseStoredShape } from "../../model/shape-diff.js";
import { deriveShape, metaTable } from "../../model/storage-shape.js";
import { StoreOpenError, type StoreTx } from "../../model/store.js";
import { openConnection, type Connection } from "./connection.js";
import { quoteId } from "./ddl.js";
import { SqliteTx } from "./sqlite-tx.js";
import { buildTableRegistry } from "./tables.js";
import type { StoreReader } from "./reader.js";

export function openSqliteReader(fileName: string, catalog: Catalog): StoreReader {
  const file = resolve(fileName);
  if (!existsSync(file)) throw new StoreOpenError(`There is no database at ${file} (wo run creates it).`);
  let conn: Connection;
  try {
    conn = openConnection(file, { readonly: true });
  } catch (err) {
    throw new StoreOpenError(`Cannot open ${file} for reading: ${(err as Error).message}.`);
  }
  try {
    const shape = deriveShape(catalog);
    assertShape(conn, file, JSON.stringify(shape));
    const tables = buildTableRegistry(shape);
    return {
      async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
        // BEGIN is deferred: the snapshot is taken at the first query and kept until ROLLBACK.
        conn.begin.run();
        const tx = new SqliteTx(conn, tables, false);
        try {
          return await fn(tx);
        } finally {
          tx.finish();
          conn.rollbackQuietly();
        }
      },
      async close() {
        conn.close();
      },
    };
  } catch (err) {
    conn.close();
    throw err;
  }
}

function assertShape(conn: Connection, file: string, expected: string): void {
  let text: string | undefined;
  try {
    text = (
      conn.db.prepare(`SELECT "value" FROM ${quoteId(metaTable)} WHERE "key" = 'shape'`).get() as
        | { value: string }
        | undefined
    )?.value;
  } catch {
    throw new StoreOpenError(`${file} is not a wo database (it has no ${metaTable} table).`);
  }
  const stored = parseStoredShape(text, file);
  if (JSON.stringify(stored) !== expected) {
    throw new StoreOpenError(
      `${file} holds another shape than these .wo files describe (they changed since wo run last opened it); run \`wo run\` once with them, which migrates it, then try again.`,
    );
  }
}
