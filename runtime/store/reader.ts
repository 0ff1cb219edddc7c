// Read-only opens of a store (`wo export`): a consistent read of committed data, taking
// nothing a writer needs and changing nothing: no data-folder lock, no migration. SQLite:
// sqlite-reader.ts; PostgreSQL: postgres/reader.ts. Chosen like openStore (open.ts).

import type { Catalog } from "../../model/app.js";
import type { Store } from "../../model/store.js";
import { postgresSettings, storeLocation, type StoreSelection } from "./open.js";
import { openSqliteReader } from "./sqlite-reader.js";

export type StoreReader = Pick<Store, "read" | "close">;

/** Throws StoreOpenError for a database that is missing, not wo's, or of another shape. */
export async function openStoreReader(options: StoreSelection & { catalog: Catalog }): Promise<StoreReader> {
  const location = storeLocation(options);
  if (location.kind === "sqlite") return openSqliteReader(location.file, options.catalog);
  const { password } = postgresSettings(location.url, options);
  // Loaded only for a PostgreSQL store, as in open.ts: a SQLite export never loads `pg`.
  const { openPostgresReader } = await import("./postgres/reader.js");
  return openPostgresReader({
    url: location.url,
    ...(password !== undefined ? { password } : {}),
    catalog: options.catalog,
  });
}
