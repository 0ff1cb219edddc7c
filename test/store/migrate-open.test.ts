// Migrating a store while it serves (`wo run --watch`, spec/live.md "Watching and hot swap"):
// SqliteStore.migrate() changes the shape of the open database between two batches of writes,
// keeps the data folder locked, and refuses a destructive change without touching anything.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MigrationRefusedError } from "../../model/store.js";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { acquireDataLock } from "../../runtime/store/lock.js";
import { dirname } from "node:path";
import { catalog, field, opt, scalar, tempDir, type } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
const v1 = catalog(type("Item", [field("name", scalar("Text"))]));
const v2 = catalog(type("Item", [field("name", scalar("Text")), opt("note", scalar("Text"))]));
const dropped = catalog(type("Item", []));

beforeEach(async () => {
  tmp = tempDir();
  store = (await openSqliteStore({ file: tmp.file, catalog: v1 })).store;
});
afterEach(async () => {
  await store.close();
  tmp.cleanup();
});

describe("SqliteStore.migrate on an open store", () => {
  it("adds a column: earlier writes commit on the old shape, later ones use the new one; reads and inserts see it at once", async () => {
    // Queued before the migration: it commits first, on the old shape.
    const before = store.write((tx) => tx.insert("item", { name: "a" }));
    // Reads that cached their statements on the old shape.
    expect(await store.read((tx) => tx.list("item"))).toEqual([]);
    const report = await store.migrate(v2, { allowDestructive: false });
    expect(report.applied).toEqual(["new optional field 'Item.note'"]);
    expect(await before).toEqual({ id: 1, name: "a" });
    // The writer's cached INSERT named only `name`: it must be written again for `note`.
    expect(await store.write((tx) => tx.insert("item", { name: "b", note: "n" }))).toEqual({
      id: 2,
      name: "b",
      note: "n",
    });
    expect(await store.read((tx) => tx.list("item"))).toEqual([
      { id: 1, name: "a", note: null },
      { id: 2, name: "b", note: "n" },
    ]);
    // Migrating to the shape it already has changes nothing.
    expect((await store.migrate(v2, { allowDestructive: false })).applied).toEqual([]);
  });

  it("refuses a destructive change with the reason, changes nothing, and keeps serving the old shape", async () => {
    await store.write((tx) => tx.insert("item", { name: "a" }));
    const err = await store.migrate(dropped, { allowDestructive: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationRefusedError);
    expect((err as Error).message).toContain("field 'Item.name' was removed");
    expect((err as Error).message).toContain("--allow-destructive-migration");
    expect(await store.read((tx) => tx.list("item"))).toEqual([{ id: 1, name: "a" }]);
    expect(await store.write((tx) => tx.insert("item", { name: "b" }))).toEqual({ id: 2, name: "b" });
  });

  it("applies a destructive change when allowed, and the data folder stays locked throughout", async () => {
    await store.write((tx) => tx.insert("item", { name: "a" }));
    expect((await store.migrate(dropped, { allowDestructive: true })).applied[0]).toContain(
      "field 'Item.name' was removed",
    );
    expect(await store.read((tx) => tx.list("item"))).toEqual([{ id: 1 }]);
    expect(() => acquireDataLock(dirname(tmp.file))).toThrow();
  });
});
