// The storage shape: the logical schema an app needs from any store — one table per type, its
// columns with their value kinds, where refs sit, uniques and indexes — derived once from the
// app model and kept in the database so the next start can diff old against new
// (model/shape-diff.ts). Store-neutral: how a value kind becomes a column type (SQLite's
// INTEGER/REAL/TEXT, another store's) is each store's business.
//
// The shape is plain JSON. It keeps a structural description of each field's type (not the
// model's, which carries source locations) so that a moved declaration is not a change.

import { type CheckAt, checksWithin } from "./check-paths.js";
import type { FieldCheck } from "./field-check.js";
import type { Catalog, CatalogField, CatalogType, FieldDefault } from "./app.js";
import { isScalarName, scalars, type StorageKind } from "./scalars.js";
import { describeFieldTypeIn, type TypeDesc } from "./type-desc.js";

/** Bumped when the layout rules change in a way old databases need converting for. */
export const shapeFormat = 1;

/**
 * The kind of value a column holds, which every store maps to a column type of its own. Two
 * field types of one kind are stored alike, so changing between them keeps the stored values.
 */
export type ValueKind = StorageKind | "json";

export interface ColumnShape {
  /** The field name as the user wrote it; also the column name. */
  name: string;
  /** Its value kind is valueKind(type). */
  type: TypeDesc;
  isOptional: boolean;
  isUnique: boolean;
  /** Literal and `now` defaults only: computed defaults are never stored. */
  default?: StoredDefault;
  /** `@renamed_from("old")`: the column's name before; a migration renames that column to this one. */
  renamedFrom?: string;
  /** `@check(op value)`: stored values must pass it; a migration adding one probes the rows (model/shape-diff.ts). */
  check?: FieldCheck;
  /** The checks on fields inside a struct or list column (model/check-paths.ts); a migration adding one probes the rows. */
  innerChecks?: CheckAt[];
}

export type StoredDefault = { kind: "literal"; value: string | number | boolean | null } | { kind: "now" };

export interface IndexShape {
  /** The index's name in the database: unique across it, derived from table and index name. */
  sqlName: string;
  columns: string[];
  isUnique: boolean;
  /**
   * "nocase": values compare ignoring ASCII case — a unique Email (`Ada@x.com` is `ada@x.com`).
   * Email addresses are ASCII (the schema's format), so an ASCII case fold covers all of them.
   */
  collation?: "nocase";
}

/**
 * A type's full-text index (`@search` fields, spec/storage.md "Full-text search"): SQLite keeps
 * an FTS5 table of this name over the columns, PostgreSQL a generated tsvector column with a
 * GIN index of this name. Absent: the type has no searched field.
 */
export interface SearchShape {
  sqlName: string;
  columns: string[];
}

export interface TableShape {
  /** The declared type name (messages speak in the user's names). */
  typeName: string;
  table: string;
  /** Stored fields in declaration order, without `id` (the store mints it; always an integer). */
  columns: ColumnShape[];
  indexes: IndexShape[];
  /**
   * A link type's endpoint columns. Its rows live only as long as both endpoints: deleting
   * either endpoint row deletes them in the same transaction (spec/storage.md, "Link tables").
   */
  link?: { from: string; to: string };
  /** `@renamed_from("Old")`: the type's name before; a migration moves that type's table to this one. */
  renamedFrom?: string;
  search?: SearchShape;
}

export interface StorageShape {
  format: number;
  tables: TableShape[];
}

/** The table that keeps the stored shape in every store's database. */
export const metaTable = "_wo_meta";

export function deriveShape(catalog: Catalog): StorageShape {
  const byName = new Map(catalog.types.map((t) => [t.name, t] as const));
  return { format: shapeFormat, tables: catalog.types.map((type) => deriveTable(type, byName)) };
}

function deriveTable(type: CatalogType, byName: Map<string, CatalogType>): TableShape {
  const columns = type.fields.filter((f) => f.isStored && f.name !== "id").map((f) => deriveColumn(f, byName));
  const indexes: IndexShape[] = [];
  for (const c of columns) {
    if (c.isUnique) {
      const index: IndexShape = { sqlName: `${type.table}__${c.name}__unique`, columns: [c.name], isUnique: true };
      if (c.type.kind === "scalar" && isScalarName(c.type.scalar) && scalars[c.type.scalar].uniqueIgnoresCase)
        index.collation = "nocase";
      indexes.push(index);
    }
  }
  for (const ix of type.indexes) {
    indexes.push({ sqlName: `${type.table}__${ix.name}`, columns: [...ix.columns], isUnique: false });
  }
  const searched = type.fields.filter((f) => f.isSearched && f.isStored).map((f) => f.name);
  const optional = {
    ...(type.renamedFrom === undefined ? {} : { renamedFrom: type.renamedFrom }),
    ...(searched.length === 0 ? {} : { search: { sqlName: `${type.table}__search`, columns: searched } }),
  };
  if (!type.link) return { typeName: type.name, table: type.table, columns, indexes, ...optional };
  // One link per pair of rows; the unique index also finds a row's links from the `from` side,
  // the second index from the `to` side.
  const { fromField: from, toField: to } = type.link;
  indexes.push({ sqlName: `${type.table}__link__unique`, columns: [from, to], isUnique: true });
  indexes.push({ sqlName: `${type.table}__link__${to}`, columns: [to], isUnique: false });
  return { typeName: type.name, table: type.table, columns, indexes, link: { from, to }, ...optional };
}

function deriveColumn(field: CatalogField, byName: Map<string, CatalogType>): ColumnShape {
  const column: ColumnShape = {
    name: field.name,
    type: describeFieldTypeIn(field.type, byName),
    isOptional: field.isOptional,
    isUnique: field.isUnique,
  };
  const def = storedDefault(field.default);
  if (def) column.default = def;
  if (field.renamedFrom !== undefined) column.renamedFrom = field.renamedFrom;
  if (field.check) column.check = field.check;
  const inner = checksWithin(field.type);
  if (inner.length > 0) column.innerChecks = inner;
  return column;
}

function storedDefault(def: FieldDefault | undefined): StoredDefault | undefined {
  if (!def || def.kind === "computed") return undefined;
  if (def.kind === "now") return { kind: "now" };
  return { kind: "literal", value: def.value };
}

/** What kind of value a column of this type holds. */
export function valueKind(type: TypeDesc): ValueKind {
  switch (type.kind) {
    case "scalar":
      // A shape read from an older database may name a scalar this version does not have.
      return isScalarName(type.scalar) ? scalars[type.scalar].storage : "text";
    case "union":
      return "text";
    case "ref":
      return "integer";
    case "array":
    case "struct":
    case "json":
      return "json";
  }
}
