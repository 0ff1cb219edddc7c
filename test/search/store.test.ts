// The SQLite full-text index through the Store (runtime/store/search-ddl.ts, model/shape-diff.ts):
// the migrations that change what is searched keep the index equal to the rows, and a table
// name the index needs is refused.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../compiler/catalog.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { catalog, field, opt, scalar, tempDir, type } from "../store/fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const note = (fields: { title?: boolean; body?: boolean; keepBody?: boolean }) =>
  catalog(
    type("Note", [
      field("title", scalar("Text"), fields.title ? { isSearched: true } : {}),
      ...(fields.keepBody === false ? [] : [opt("body", scalar("Text"), fields.body ? { isSearched: true } : {})]),
    ]),
  );

async function search(cat: Catalog, words: string[]): Promise<number[]> {
  const { store } = await openSqliteStore({ file: tmp.file, catalog: cat, allowDestructiveMigration: true });
  try {
    return (await store.read((tx) => tx.list("note", { search: words }))).map((r) => r.id as number);
  } finally {
    await store.close();
  }
}

describe("the SQLite full-text index across migrations", () => {
  it("follows added, moved and removed searched fields, and a dropped searched column", async () => {
    const plain = note({});
    const { store } = await openSqliteStore({ file: tmp.file, catalog: plain, allowDestructiveMigration: false });
    const ids = await store.write(async (tx) => [
      (await tx.insert("note", { title: "red apple", body: "green pear" })).id,
      (await tx.insert("note", { title: "green kiwi", body: null })).id,
    ]);
    await store.close();
    expect(await search(note({ title: true }), ["green"])).toEqual([ids[1]]);
    expect(await search(note({ title: true, body: true }), ["green"]).then((r) => r.sort())).toEqual([...ids].sort());
    expect(await search(note({ body: true }), ["pear"])).toEqual([ids[0]]);
    expect(await search(note({ body: true }), ["kiwi"])).toEqual([]);
    // Dropping the searched column drops its index first (its triggers name the column).
    expect(await search(note({ title: true, keepBody: false }), ["pea"])).toEqual([]);
    expect(await search(note({ title: true, keepBody: false }), ["app"])).toEqual([ids[0]]);
    const { store: plainAgain } = await openSqliteStore({
      file: tmp.file,
      catalog: note({ keepBody: false }),
      allowDestructiveMigration: false,
    });
    await expect(plainAgain.read((tx) => tx.list("note", { search: ["apple"] }))).rejects.toThrow(/no @search field/);
    await plainAgain.close();
  });

  it("refuses a type whose table the index of another needs", async () => {
    const cat = catalog(
      type("Note", [field("title", scalar("Text"), { isSearched: true })]),
      type("NoteSearch", [field("x", scalar("Int"))], { table: "note__search" }),
    );
    await expect(openSqliteStore({ file: tmp.file, catalog: cat, allowDestructiveMigration: false })).rejects.toThrow(
      /taken by the full-text index of type 'Note'/,
    );
  });
});
