// Link tables in the SQLite store (spec/storage.md "Link tables"): the endpoint columns, one
// link per pair, links deleted with either endpoint (and not counted as referrers), and the
// migration of a link table an older wo made without endpoint columns.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../compiler/catalog.js";
import { MigrationRefusedError } from "../../model/store.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { StoreConstraintError } from "../../model/store.js";
import { catalog, field, ref, scalar, tempDir, type } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const endpoint = (name: string, target: string) =>
  field(name, ref(target), { isImmutable: true, isRequiredOnCreate: true });

/** Post, Tag and `Tagging link Post -> Tag { note }`, as the checker lays them out. */
function tagged(): Catalog {
  return catalog(
    type("Post", [field("title", scalar("Text"))]),
    type("Tag", [field("label", scalar("Text"))]),
    type("Tagging", [endpoint("post", "Post"), endpoint("tag", "Tag"), field("note", scalar("Text"))], {
      link: { from: "Post", to: "Tag", fromField: "post", toField: "tag" },
    }),
  );
}

/** The same link type as wo laid it out before link types stored their endpoints. */
function endpointless(): Catalog {
  return catalog(
    type("Post", [field("title", scalar("Text"))]),
    type("Tag", [field("label", scalar("Text"))]),
    type("Tagging", [field("note", scalar("Text"))]),
  );
}

async function open(cat: Catalog, allowDestructiveMigration = false) {
  return openSqliteStore({ file: tmp.file, catalog: cat, allowDestructiveMigration });
}

describe("link tables", () => {
  it("store both endpoints, one link per pair, indexed from both ends", async () => {
    const { store } = await open(tagged());
    try {
      await store.write(async (tx) => {
        await tx.insert("post", { title: "p" });
        await tx.insert("tag", { label: "t" });
        expect(await tx.insert("tagging", { post: 1, tag: 1, note: "n" })).toEqual({
          id: 1,
          post: 1,
          tag: 1,
          note: "n",
        });
      });
      const again = store.write((tx) => tx.insert("tagging", { post: 1, tag: 1, note: "twice" }));
      await expect(again).rejects.toBeInstanceOf(StoreConstraintError);
      await expect(again).rejects.toMatchObject({ table: "tagging", fields: ["post", "tag"] });
    } finally {
      await store.close();
    }
    const db = new Database(tmp.file, { readonly: true });
    const indexes = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tagging' ORDER BY name`)
      .all();
    db.close();
    expect(indexes).toEqual([{ name: "tagging__link__tag" }, { name: "tagging__link__unique" }]);
  });

  it("go with either endpoint in the same transaction, and never block its delete", async () => {
    const { store } = await open(tagged());
    try {
      await store.write(async (tx) => {
        for (const title of ["p1", "p2"]) await tx.insert("post", { title });
        for (const label of ["t1", "t2"]) await tx.insert("tag", { label });
        for (const [post, tag] of [
          [1, 1],
          [1, 2],
          [2, 1],
        ])
          await tx.insert("tagging", { post, tag, note: "" });
      });
      expect(await store.read((tx) => tx.referrers("tag", 1))).toEqual([]);
      await store.write((tx) => tx.delete("tag", 1));
      expect(await store.read((tx) => tx.list("tagging"))).toEqual([{ id: 2, post: 1, tag: 2, note: "" }]);
      // A failing call rolls the cascade back with the delete.
      await expect(
        store.write(async (tx) => {
          await tx.delete("post", 1);
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await store.read((tx) => tx.count("tagging"))).toBe(1);
      await store.write((tx) => tx.delete("post", 1));
      expect(await store.read((tx) => tx.count("tagging"))).toBe(0);
      expect(await store.read((tx) => tx.count("post"))).toBe(1);
    } finally {
      await store.close();
    }
  });
});

it("a row referring to a link keeps the link's endpoints from being deleted", async () => {
  const cat = tagged();
  cat.types.push(
    type("Badge", [field("tagging", ref("Tagging")), field("also", { kind: "array", element: ref("Tagging") })]),
  );
  const { store } = await open(cat);
  try {
    await store.write(async (tx) => {
      await tx.insert("post", { title: "p" });
      await tx.insert("tag", { label: "t1" });
      await tx.insert("tag", { label: "t2" });
      await tx.insert("tagging", { post: 1, tag: 1, note: "" });
      await tx.insert("tagging", { post: 1, tag: 2, note: "" });
      await tx.insert("badge", { tagging: 1, also: [2] });
    });
    expect(await store.read((tx) => tx.referrers("tag", 1))).toEqual([{ table: "badge", field: "tagging", count: 1 }]);
    expect(await store.read((tx) => tx.referrers("tag", 2))).toEqual([{ table: "badge", field: "also", count: 1 }]);
    expect(await store.read((tx) => tx.referrers("post", 1))).toEqual([
      { table: "badge", field: "tagging", count: 1 },
      { table: "badge", field: "also", count: 1 },
    ]);
  } finally {
    await store.close();
  }
});

describe("a link table made without endpoint columns", () => {
  it("gains them when it is empty", async () => {
    await (await open(endpointless())).store.close();
    const { store, migration } = await open(tagged());
    try {
      expect(migration.applied).toEqual(
        expect.arrayContaining(["new required field 'Tagging.post'", "new required field 'Tagging.tag'"]),
      );
      await store.write(async (tx) => {
        await tx.insert("post", { title: "p" });
        await tx.insert("tag", { label: "t" });
        await tx.insert("tagging", { post: 1, tag: 1, note: "" });
      });
      expect(await store.read((tx) => tx.list("tagging"))).toEqual([{ id: 1, post: 1, tag: 1, note: "" }]);
    } finally {
      await store.close();
    }
  });

  it("is refused while it holds rows, naming them, and changes nothing", async () => {
    const old = await open(endpointless());
    await old.store.write((tx) => tx.insert("tagging", { note: "orphan" }));
    await old.store.close();
    const err = await open(tagged()).then(
      async ({ store }) => {
        await store.close();
        throw new Error("expected a refusal");
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MigrationRefusedError);
    expect((err as Error).message).toContain(
      "new required field 'Tagging.post' has no default, and the 1 existing row would have no value for it",
    );
    const db = new Database(tmp.file, { readonly: true });
    const columns = (db.prepare(`PRAGMA table_info("tagging")`).all() as { name: string }[]).map((c) => c.name);
    db.close();
    expect(columns).toEqual(["id", "note"]);
  });
});
