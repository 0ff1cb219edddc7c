// The in-process live suites' store: a real SQLite file in a temporary directory whose change
// log records one type's table, opened before each test and closed (and removed) after it.
import { afterEach, beforeEach } from "vitest";
import type { CatalogType } from "../../compiler/catalog.js";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { catalog, tempDir } from "../store/fixture.js";
import { isRefusal, type StreamRefusal } from "../../runtime/stream-budget.js";

/** Registers the hooks; the returned function gives the current test's store. */
export function liveStoreEach(type: CatalogType): () => SqliteStore {
  let tmp: ReturnType<typeof tempDir>;
  let store: SqliteStore;
  beforeEach(async () => {
    tmp = tempDir();
    ({ store } = await openSqliteStore({
      file: tmp.file,
      catalog: catalog(type),
      changeLog: { tables: [type.table], retention: 1000 },
    }));
  });
  afterEach(async () => {
    await store.close();
    tmp.cleanup();
  });
  return () => store;
}

/** A stream `LiveStreams.open` gave, or the test fails with the refusal it gave instead. */
export function opened(stream: ReadableStream<Uint8Array> | StreamRefusal): ReadableStream<Uint8Array> {
  if (isRefusal(stream)) throw new Error(`the stream was refused: ${JSON.stringify(stream)}`);
  return stream;
}
