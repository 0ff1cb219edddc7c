// "Rows are never lost silently", as a property: random edits of a catalog over random data.
// Without the flag, an open either refuses (and every row is as it was) or succeeds, and then
// every stored value survives unchanged unless its field was removed or retyped, which is
// allowed only when that value was empty.
import fc from "fast-check";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Catalog, CatalogField } from "../../compiler/catalog.js";
import { MigrationRefusedError } from "../../model/store.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import type { Row } from "../../model/store.js";
import { array, catalog, field, opt, scalar, tempDir, type, union } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

interface Edit {
  removeQty: boolean;
  qtyType: "Int" | "Float" | "Text";
  removeNote: boolean;
  noteRequired: "no" | "yes" | "withDefault";
  states: string[];
  added: "none" | "optional" | "default" | "required";
  renameTable: boolean;
  removeBox: boolean;
  uniqueName: boolean;
}

const v1 = (): Catalog =>
  catalog(
    type("Item", [
      field("name", scalar("Text")),
      field("qty", scalar("Int")),
      opt("note", scalar("Text")),
      field("state", union("New", "Old")),
      field("tags", array(scalar("Text"))),
    ]),
    type("Box", [opt("label", scalar("Text"))]),
  );

function v2(e: Edit): Catalog {
  const fields: CatalogField[] = [field("name", scalar("Text"), { isUnique: e.uniqueName })];
  if (!e.removeQty) fields.push(field("qty", scalar(e.qtyType)));
  if (!e.removeNote) {
    fields.push(
      e.noteRequired === "no"
        ? opt("note", scalar("Text"))
        : field(
            "note",
            scalar("Text"),
            e.noteRequired === "withDefault" ? { default: { kind: "literal", value: "-" } } : {},
          ),
    );
  }
  fields.push(field("state", union(...e.states)), field("tags", array(scalar("Text"))));
  if (e.added === "optional") fields.push(opt("extra", scalar("Int")));
  if (e.added === "default") fields.push(field("extra", scalar("Int"), { default: { kind: "literal", value: 7 } }));
  if (e.added === "required") fields.push(field("extra", scalar("Int")));
  const types = [{ ...type("Item", fields), ...(e.renameTable ? { table: "items2" } : {}) }];
  if (!e.removeBox) types.push(type("Box", [opt("label", scalar("Text"))]));
  return catalog(...types);
}

const editArb: fc.Arbitrary<Edit> = fc.record({
  removeQty: fc.boolean(),
  qtyType: fc.constantFrom("Int" as const, "Float" as const, "Text" as const),
  removeNote: fc.boolean(),
  noteRequired: fc.constantFrom("no" as const, "yes" as const, "withDefault" as const),
  states: fc.constantFrom(["New", "Old"], ["New"], ["Old"], ["New", "Old", "Gone"]),
  added: fc.constantFrom("none" as const, "optional" as const, "default" as const, "required" as const),
  renameTable: fc.boolean(),
  removeBox: fc.boolean(),
  uniqueName: fc.boolean(),
});

const itemArb = fc.record({
  name: fc.constantFrom("a", "b", "c", "d"),
  qty: fc.integer({ min: -3, max: 3 }),
  note: fc.option(fc.constantFrom("x", "y")),
  state: fc.constantFrom("New", "Old"),
  tags: fc.array(fc.constantFrom("t", "u"), { maxLength: 2 }),
});

/** Every table's rows, straight from SQLite. */
function dumpAll(): Record<string, Row[]> {
  const db = new Database(tmp.file, { readonly: true });
  try {
    const tables = (
      db
        .prepare(
          `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_wo\\_%' ESCAPE '\\' ORDER BY name`,
        )
        .all() as { name: string }[]
    ).map((r) => r.name);
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY id`).all() as Row[]]));
  } finally {
    db.close();
  }
}

it("an open without the flag refuses with every row intact, or keeps every non-empty value", async () => {
  await fc.assert(
    fc.asyncProperty(editArb, fc.array(itemArb, { maxLength: 5 }), fc.nat(2), async (edit, items, boxes) => {
      tmp.cleanup();
      tmp = tempDir();
      const seeded = await openSqliteStore({ file: tmp.file, catalog: v1() });
      await seeded.store.write(async (tx) => {
        for (const it of items) await tx.insert("item", it);
        for (let i = 0; i < boxes; i++) await tx.insert("box", { label: `L${i}` });
      });
      await seeded.store.close();
      const before = dumpAll();

      const opened = await openSqliteStore({ file: tmp.file, catalog: v2(edit) }).catch((e: unknown) => e);
      if (opened instanceof MigrationRefusedError) {
        expect(dumpAll()).toEqual(before);
        return;
      }
      if (opened instanceof Error) throw opened;
      await (opened as { store: { close(): Promise<void> } }).store.close();
      const after = dumpAll();

      if (edit.removeBox) expect(before.box).toEqual([]);
      else expect(after.box).toEqual(before.box);

      const table = edit.renameTable ? "items2" : "item";
      const next = v2(edit).types[0]!.fields;
      expect(after[table]!.map((r) => r.id)).toEqual(before.item!.map((r) => r.id));
      before.item!.forEach((old, i) => {
        const now = after[table]![i]!;
        for (const [column, value] of Object.entries(old)) {
          const kept = next.find((f) => f.name === column);
          const sameType = kept !== undefined && (column !== "qty" || edit.qtyType === "Int");
          if (sameType) expect(now[column]).toEqual(value);
          else expect(value).toBeNull();
        }
      });
    }),
    { numRuns: 40 },
  );
});
