// Schema evolution: open a database with one catalog, fill it, reopen with an edited catalog.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Catalog, CatalogField } from "../../compiler/catalog.js";
import { MigrationRefusedError, StoreOpenError } from "../../model/store.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import type { Row } from "../../model/store.js";
import { array, catalog, field, opt, scalar, struct, tempDir, type, union } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function open(cat: Catalog, allowDestructiveMigration = false) {
  return openSqliteStore({ file: tmp.file, catalog: cat, allowDestructiveMigration });
}

/** Opens, runs fn, closes; returns the migration report. */
async function withStore<T>(
  cat: Catalog,
  fn: (s: Awaited<ReturnType<typeof open>>["store"]) => Promise<T>,
  allow = false,
) {
  const { store, migration } = await open(cat, allow);
  try {
    return { result: await fn(store), migration };
  } finally {
    await store.close();
  }
}

const dump = async (cat: Catalog, table: string) =>
  (await withStore(cat, (s) => s.read((tx) => tx.list(table)))).result;

async function seed(cat: Catalog, table: string, rows: Row[]) {
  await withStore(cat, (s) =>
    s.write(async (tx) => {
      for (const r of rows) await tx.insert(table, r);
    }),
  );
}

const item = (...fields: CatalogField[]) => catalog(type("Item", fields));
const v1 = () =>
  item(
    field("name", scalar("Text")),
    field("qty", scalar("Int")),
    opt("note", scalar("Text")),
    field("state", union("New", "Old")),
  );
const v1Rows = [
  { name: "a", qty: 1, note: "n", state: "New" },
  { name: "b", qty: 2, note: null, state: "Old" },
];

async function refused(cat: Catalog): Promise<MigrationRefusedError> {
  const err = await open(cat).then(
    async ({ store }) => {
      await store.close();
      throw new Error("expected the open to be refused");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MigrationRefusedError);
  expect((err as Error).message).toContain("--allow-destructive-migration");
  return err as MigrationRefusedError;
}

describe("additive changes migrate automatically and keep data", () => {
  it("new type, optional field, defaulted fields (backfilled), index, union variant, widened struct", async () => {
    const base = [
      field("name", scalar("Text")),
      field("state", union("New", "Old")),
      field("dims", struct(field("w", scalar("Int")))),
    ];
    await seed(item(...base), "item", [
      { name: "a", state: "New", dims: { w: 1 } },
      { name: "b", state: "Old", dims: { w: 2 } },
    ]);

    const next = catalog(
      type(
        "Item",
        [
          field("name", scalar("Text")),
          field("state", union("New", "Old", "Gone")),
          field("dims", struct(field("w", scalar("Int")), opt("h", scalar("Int")))),
          opt("note", scalar("Text")),
          field("qty", scalar("Int"), { default: { kind: "literal", value: 5 } }),
          field("live", scalar("Bool"), { default: { kind: "literal", value: true } }),
          field("labels", array(scalar("Text")), { default: { kind: "literal", value: null } }),
          field("since", scalar("Timestamp"), { default: { kind: "now" } }),
          field("code", scalar("Text"), { isUnique: true, isOptional: true }),
        ],
        { indexes: [{ name: "by_state", columns: ["state", "qty"] }] },
      ),
      type("Tag", [field("label", scalar("Text"))]),
    );
    const { result: rows, migration } = await withStore(next, (s) => s.read((tx) => tx.list("item")));
    expect(migration.refused).toEqual([]);
    expect(migration.applied).toEqual(
      expect.arrayContaining([
        "new optional field 'Item.note'",
        "new field 'Item.qty'; existing rows get its default 5",
        "field 'Item.state' now also allows 'Gone'",
        expect.stringMatching(/^field 'Item.dims' widens/),
        "new type 'Tag' (table 'tag')",
        "new index 'item__by_state' on Item(state, qty)",
        "new @unique on 'Item.code'",
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      id: 1,
      name: "a",
      state: "New",
      dims: { w: 1 },
      note: null,
      qty: 5,
      live: true,
      labels: null,
      code: null,
    });
    expect(rows[1]).toMatchObject({ id: 2, name: "b", qty: 5, live: true });
    expect(rows[0]!.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // The new pieces work: the index exists, the unique is enforced, the new table takes rows.
    const db = new Database(tmp.file, { readonly: true });
    const indexes = (
      db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'item'`).all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    db.close();
    expect(indexes).toEqual(expect.arrayContaining(["item__by_state", "item__code__unique"]));
    await withStore(next, (s) =>
      s.write(async (tx) => {
        await tx.update("item", 1, { code: "X" });
        await expect(tx.update("item", 2, { code: "X" })).rejects.toMatchObject({ fields: ["code"] });
        await tx.insert("tag", { label: "t" });
      }),
    );
    // Reopening with the same catalog changes nothing.
    const again = await withStore(next, async () => undefined);
    expect(again.migration.applied).toEqual([]);
  });

  it("data-aware: removals and narrowings no stored value depends on go through", async () => {
    await seed(v1(), "item", [{ name: "a", qty: 1, note: null, state: "New" }]);
    const next = catalog(
      type("Item", [
        field("name", scalar("Text")),
        field("qty", scalar("Int")),
        // note removed: no row had a value; state loses 'Old': no row uses it.
        field("state", union("New")),
        // a new required field on a table that will be emptied below is tested separately.
      ]),
    );
    const { migration } = await withStore(next, async () => undefined);
    expect(migration.applied).toEqual([
      "field 'Item.state' no longer allows 'Old' (no row uses it)",
      "field 'Item.note' was removed (no row had a value for it)",
    ]);
    expect(await dump(next, "item")).toEqual([{ id: 1, name: "a", qty: 1, state: "New" }]);
  });

  it("a new required field without default is fine on an empty table", async () => {
    await withStore(v1(), async () => undefined);
    const next = item(...v1().types[0]!.fields.slice(1), field("sku", scalar("SKU")));
    const { migration } = await withStore(next, async () => undefined);
    expect(migration.applied).toEqual(["new required field 'Item.sku'"]);
  });

  it("renaming a type that keeps its table is not a change", async () => {
    await seed(v1(), "item", v1Rows);
    const renamed = catalog({ ...type("Thing", v1().types[0]!.fields.slice(1)), table: "item" });
    const { result, migration } = await withStore(renamed, (s) => s.read((tx) => tx.count("item")));
    expect(result).toBe(2);
    expect(migration.applied).toEqual([]);
  });
});

// Each destructive kind: refused (naming the change and the flag) with every row intact, then
// applied with the flag.
const base = () => v1().types[0]!.fields.slice(1);
const without = (name: string) => base().filter((f) => f.name !== name);
const destructive: {
  kind: string;
  next: () => Catalog;
  says: RegExp;
  after: (rows: Row[], tables: string[]) => void;
}[] = [
  {
    kind: "removed field",
    next: () => item(...without("note")),
    says: /field 'Item.note' was removed: 1 row hold a value for it that would be deleted/,
    after: (rows) => expect(rows[0]).toEqual({ id: 1, name: "a", qty: 1, state: "New" }),
  },
  {
    kind: "removed type",
    next: () => catalog(type("Other", [field("x", scalar("Int"))])),
    says: /type 'Item' was removed: its table 'item' holds 2 rows that would be deleted/,
    after: (_rows, tables) => expect(tables).not.toContain("item"),
  },
  {
    kind: "changed field type",
    next: () => item(...without("qty"), field("qty", scalar("Text"))),
    says: /field 'Item.qty' changes type from Int to Text: 2 stored values would be discarded/,
    after: (rows) => expect(rows.map((r) => r.qty)).toEqual([null, null]),
  },
  {
    kind: "optional → required",
    next: () => item(...without("note"), field("note", scalar("Text"), { default: { kind: "literal", value: "?" } })),
    says: /field 'Item.note' became required, but 1 row have no value for it \(they would get the default "\?"\)/,
    after: (rows) => expect(rows.map((r) => r.note)).toEqual(["n", "?"]),
  },
  {
    kind: "new required field without default",
    next: () => item(...base(), field("sku", scalar("SKU"))),
    says: /new required field 'Item.sku' has no default, and the 2 existing rows would have no value for it/,
    after: (rows) => expect(rows.map((r) => r.sku)).toEqual([null, null]),
  },
  {
    kind: "union variant removed while rows use it",
    next: () =>
      item(
        ...without("state"),
        field("state", union("New", "Newer"), { default: { kind: "literal", value: "Newer" } }),
      ),
    says: /field 'Item.state' no longer allows 'Old', but 1 row use it \(they would be set to "Newer"\)/,
    after: (rows) => expect(rows.map((r) => r.state)).toEqual(["New", "Newer"]),
  },
  {
    kind: "storage rename",
    next: () => catalog({ ...type("Item", base()), table: "items" }),
    says: /type 'Item' moves from table 'item' to table 'items' \(2 rows would move with it\)/,
    after: (rows, tables) => {
      expect(tables).toContain("items");
      expect(tables).not.toContain("item");
      expect(rows.map((r) => r.name)).toEqual(["a", "b"]);
    },
  },
];

describe("destructive changes are refused, data intact; the flag applies them", () => {
  it.each(destructive)("$kind", async ({ next, says, after }) => {
    await seed(v1(), "item", v1Rows);
    const before = await dump(v1(), "item");
    const err = await refused(next());
    expect(err.changes).toHaveLength(1);
    expect(err.message).toMatch(says);
    // Nothing changed: the old catalog still opens without migrating, every row as it was.
    const reopened = await withStore(v1(), (s) => s.read((tx) => tx.list("item")));
    expect(reopened.migration.applied).toEqual([]);
    expect(reopened.result).toEqual(before);

    const { migration } = await withStore(next(), async () => undefined, true);
    expect(migration.applied.filter((a) => a.endsWith("(applied: --allow-destructive-migration)"))).toEqual([
      expect.stringMatching(says),
    ]);
    const table = next().types.find((t) => t.name === "Item")?.table ?? "item";
    const rows = next().types.some((t) => t.name === "Item") ? await dump(next(), table) : [];
    const db = new Database(tmp.file, { readonly: true });
    const tables = (db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).all() as { name: string }[]).map(
      (r) => r.name,
    );
    db.close();
    after(rows, tables);
  });

  it("all destructive changes of one edit are listed together, and nothing additive is applied either", async () => {
    await seed(v1(), "item", v1Rows);
    const next = catalog(
      type("Item", [field("name", scalar("Text")), field("qty", scalar("Float"))]),
      type("New", [field("x", scalar("Int"))]),
    );
    const err = await refused(next);
    expect(err.changes).toEqual([
      "field 'Item.qty' changes type from Int to Float: 2 stored values would be discarded",
      "field 'Item.note' was removed: 1 row hold a value for it that would be deleted",
      "field 'Item.state' was removed: 2 rows hold a value for it that would be deleted",
    ]);
    const db = new Database(tmp.file, { readonly: true });
    expect(db.prepare(`SELECT COUNT(*) n FROM sqlite_schema WHERE name = 'new'`).get()).toEqual({ n: 0 });
    db.close();
  });
});

describe("unique constraints over stored data", () => {
  const named = (unique: boolean) => item(field("name", scalar("Text"), { isUnique: unique }));

  it("a new @unique over duplicates is blocked, even with the flag", async () => {
    await seed(named(false), "item", [{ name: "x" }, { name: "x" }, { name: "y" }]);
    for (const allow of [false, true]) {
      const err = await open(named(true), allow).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationRefusedError);
      expect((err as MigrationRefusedError).blocked).toEqual([
        "cannot add @unique on 'Item.name': 1 value occurs more than once in the stored rows",
      ]);
      expect((err as Error).message).toContain("even with --allow-destructive-migration");
    }
    expect(await dump(named(false), "item")).toHaveLength(3);
  });

  it("a new @unique over distinct values is applied and enforced", async () => {
    await seed(named(false), "item", [{ name: "x" }, { name: "y" }]);
    const { migration } = await withStore(named(true), async (s) => {
      await expect(s.write((tx) => tx.insert("item", { name: "x" }))).rejects.toMatchObject({ fields: ["name"] });
    });
    expect(migration.applied).toEqual(["new @unique on 'Item.name'"]);
  });

  it("a new unique field whose default would repeat on existing rows is blocked", async () => {
    await seed(named(false), "item", [{ name: "x" }, { name: "y" }]);
    const err = await open(
      item(
        field("name", scalar("Text")),
        field("code", scalar("Text"), { isUnique: true, default: { kind: "literal", value: "c" } }),
      ),
    ).catch((e: unknown) => e);
    expect((err as MigrationRefusedError).blocked).toEqual([
      `cannot add @unique on 'Item.code': the 2 existing rows would all get the same default "c"`,
    ]);
  });
});

describe("a shape stored by an older wo", () => {
  it("with SQLite column types in it (before the shape was store-neutral) opens unchanged, keeping every value", async () => {
    const cat = item(
      field("name", scalar("Text")),
      field("qty", scalar("Int")),
      opt("price", scalar("Float")),
      field("on", scalar("Bool")),
      field("tags", array(scalar("Text"))),
    );
    await seed(cat, "item", [{ name: "a", qty: 1, price: 1.5, on: true, tags: ["x"] }]);
    // What that wo wrote for each column besides name, type and flags.
    const old: Record<string, { sqlType: string; codec: string }> = {
      name: { sqlType: "TEXT", codec: "text" },
      qty: { sqlType: "INTEGER", codec: "integer" },
      price: { sqlType: "REAL", codec: "real" },
      on: { sqlType: "INTEGER", codec: "bool" },
      tags: { sqlType: "TEXT", codec: "json" },
    };
    const db = new Database(tmp.file);
    try {
      const shape = JSON.parse(
        (db.prepare("SELECT value FROM _wo_meta WHERE key = 'shape'").get() as { value: string }).value,
      );
      for (const c of shape.tables[0].columns) Object.assign(c, old[c.name]);
      db.prepare("UPDATE _wo_meta SET value = ? WHERE key = 'shape'").run(JSON.stringify(shape));
    } finally {
      db.close();
    }
    const { result, migration } = await withStore(cat, (s) => s.read((tx) => tx.list("item")));
    expect(migration.applied).toEqual([]);
    expect(result).toEqual([{ id: 1, name: "a", qty: 1, price: 1.5, on: true, tags: ["x"] }]);
  });
});

describe("a unique Email compares ignoring case", () => {
  const members = () => item(field("email", scalar("Email"), { isUnique: true }));

  /** The database as a wo from before: a case-sensitive index, and a stored shape without collation. */
  function makeCaseSensitive(): void {
    const db = new Database(tmp.file);
    try {
      db.exec('DROP INDEX "item__email__unique"; CREATE UNIQUE INDEX "item__email__unique" ON "item" ("email")');
      const meta = db.prepare("SELECT value FROM _wo_meta WHERE key = 'shape'").get() as { value: string };
      expect(meta.value).toContain('"collation":"nocase"');
      db.prepare("UPDATE _wo_meta SET value = ? WHERE key = 'shape'").run(
        meta.value.replaceAll(',"collation":"nocase"', ""),
      );
    } finally {
      db.close();
    }
  }

  it("is enforced by the store: Ada@X.com conflicts with ada@x.com, and is stored as written", async () => {
    await withStore(members(), async (s) => {
      await s.write((tx) => tx.insert("item", { email: "ada@x.com" }));
      await expect(s.write((tx) => tx.insert("item", { email: "Ada@X.com" }))).rejects.toMatchObject({
        fields: ["email"],
      });
      await s.write((tx) => tx.insert("item", { email: "Bob@X.com" }));
    });
    expect((await dump(members(), "item")).map((r) => r.email)).toEqual(["ada@x.com", "Bob@X.com"]);
  });

  it("an older database's case-sensitive index is rebuilt ignoring case when no stored values clash", async () => {
    await seed(members(), "item", [{ email: "ada@x.com" }, { email: "bob@x.com" }]);
    makeCaseSensitive();
    const { migration } = await withStore(members(), async (s) => {
      await expect(s.write((tx) => tx.insert("item", { email: "BOB@x.com" }))).rejects.toMatchObject({
        fields: ["email"],
      });
    });
    expect(migration.applied).toEqual(["@unique on 'Item.email' now ignores case"]);
    expect(await dump(members(), "item")).toHaveLength(2);
  });

  it("an older database holding addresses that differ only in case is refused until they are fixed", async () => {
    await seed(members(), "item", [{ email: "ada@x.com" }]);
    makeCaseSensitive();
    const db = new Database(tmp.file);
    db.prepare('INSERT INTO "item" ("email") VALUES (?)').run("Ada@X.com");
    db.close();
    const err = await open(members(), true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationRefusedError);
    expect((err as MigrationRefusedError).blocked).toEqual([
      "cannot make @unique on 'Item.email' ignore case: 1 value occurs more than once in the stored rows (ignoring case)",
    ]);
  });
});

describe("databases wo cannot use", () => {
  it("a file that is not SQLite → StoreOpenError, file untouched", async () => {
    mkdirSync(dirname(tmp.file), { recursive: true });
    writeFileSync(tmp.file, "this is not a database, it is a text file with enough bytes to look like one".repeat(20));
    const err = await open(v1()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).message).toMatch(/is not a SQLite database/);
  });

  it.each([
    ["a reserved table name", catalog({ ...type("Meta", [field("x", scalar("Int"))]), table: "_wo_meta" }), /reserved/],
    ["a sqlite_ table name", catalog({ ...type("Seq", [field("x", scalar("Int"))]), table: "sqlite_seq" }), /reserved/],
    [
      "tables equal but for case",
      catalog(type("Post", []), { ...type("Other", []), table: "POST" }),
      /'post' and 'POST' differ only in case/,
    ],
    [
      "fields equal but for case",
      item(field("name", scalar("Text")), field("Name", scalar("Text"))),
      /'Item.name' and 'Item.Name' differ only in case/,
    ],
  ])("%s → StoreOpenError before anything is touched", async (_what, cat, says) => {
    const err = await open(cat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).message).toMatch(says);
  });

  it("a SQLite file with tables wo did not create → StoreOpenError", async () => {
    mkdirSync(dirname(tmp.file), { recursive: true });
    const db = new Database(tmp.file);
    db.exec("CREATE TABLE precious (x)");
    db.close();
    const err = await open(v1()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).message).toMatch(/tables that wo did not create \(precious\)/);
    // The lock was released: a later open can try again.
    const err2 = await open(v1()).catch((e: unknown) => e);
    expect((err2 as Error).message).toMatch(/did not create/);
  });
});
