// The storage shape: how a Catalog is laid out in SQL tables, derived once and stored in the
// database (`_wo_meta`) so the next start can diff old against new (migrate.ts).
//
// Owns: table and column names, the column type and codec of every stored field, unique and
// secondary indexes. Leaves SQL text to ddl.ts, value conversion to row-codec.ts, change
// detection to shape-diff.ts and where refs sit inside a column's type to ref-paths.ts.
//
// The shape is plain JSON. It keeps a structural description of each field's type (not the
// catalog's, which carries source locations) so that a moved declaration is not a change.

import type { Catalog, CatalogField, CatalogType, FieldDefault, FieldType } from "../../model/app.js";
import { StoreOpenError } from "../../model/store.js";
import { describeFieldType, describeFieldTypeIn, type TypeDesc } from "../../model/type-desc.js";

export { describeFieldType, type TypeDesc };

/** Bumped when the layout rules change in a way old databases need converting for. */
export const shapeFormat = 1;

export type SqlType = "INTEGER" | "REAL" | "TEXT";

/** How a value travels between a row (JSON) and its column. */
export type ColumnCodec = "integer" | "real" | "bool" | "text" | "json";

export interface ColumnShape {
  /** The field name as the user wrote it; also the column name (quoted in SQL). */
  name: string;
  sqlType: SqlType;
  codec: ColumnCodec;
  type: TypeDesc;
  isOptional: boolean;
  isUnique: boolean;
  /** Literal and `now` defaults only: computed defaults are never stored. */
  default?: StoredDefault;
}

export type StoredDefault = { kind: "literal"; value: string | number | boolean | null } | { kind: "now" };

export interface IndexShape {
  /** SQL index name: unique across the database, derived from table and index name. */
  sqlName: string;
  columns: string[];
  isUnique: boolean;
  /**
   * "nocase": values compare ignoring ASCII case — a unique Email (`Ada@x.com` is `ada@x.com`).
   * Email addresses are ASCII (the schema's format), so SQLite's NOCASE folds all of them.
   */
  collation?: "nocase";
}

export interface TableShape {
  /** The declared type name (messages speak in the user's names). */
  typeName: string;
  table: string;
  /** Stored fields in declaration order, without `id` (always the INTEGER PRIMARY KEY). */
  columns: ColumnShape[];
  indexes: IndexShape[];
  /**
   * A link type's endpoint columns. Its rows live only as long as both endpoints: deleting
   * either endpoint row deletes them in the same transaction (sqlite-tx.ts).
   */
  link?: { from: string; to: string };
}

export interface StorageShape {
  format: number;
  tables: TableShape[];
}

/** Table names SQLite or wo keep for themselves. */
export function isReservedTable(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("sqlite_") || lower === "_wo_meta";
}

/** Throws StoreOpenError for names SQLite cannot hold (reserved, or equal but for case). */
export function deriveShape(catalog: Catalog): StorageShape {
  const byName = new Map(catalog.types.map((t) => [t.name, t] as const));
  const tables = catalog.types.map((type) => deriveTable(type, byName));
  // SQLite compares table and column names case-insensitively.
  const clash = firstCaseClash(tables.map((t) => t.table));
  if (clash) throw new StoreOpenError(`the tables '${clash[0]}' and '${clash[1]}' differ only in case, which SQLite cannot tell apart; rename one with @table(name: ...)`);
  return { format: shapeFormat, tables };
}

function firstCaseClash(names: string[]): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const n of names) {
    const prior = seen.get(n.toLowerCase());
    if (prior !== undefined) return [prior, n];
    seen.set(n.toLowerCase(), n);
  }
  return undefined;
}

function deriveTable(type: CatalogType, byName: Map<string, CatalogType>): TableShape {
  if (isReservedTable(type.table)) {
    throw new StoreOpenError(`type '${type.name}' uses the table name '${type.table}', which is reserved; choose another with @table(name: ...)`);
  }
  const columns = type.fields.filter((f) => f.isStored && f.name !== "id").map((f) => deriveColumn(f, byName));
  const clash = firstCaseClash(["id", ...columns.map((c) => c.name)]);
  if (clash) throw new StoreOpenError(`the fields '${type.name}.${clash[0]}' and '${type.name}.${clash[1]}' differ only in case, which SQLite cannot tell apart as columns; rename one`);
  const indexes: IndexShape[] = [];
  for (const c of columns) {
    if (c.isUnique) {
      const index: IndexShape = { sqlName: `${type.table}__${c.name}__unique`, columns: [c.name], isUnique: true };
      if (c.type.kind === "scalar" && c.type.scalar === "Email") index.collation = "nocase";
      indexes.push(index);
    }
  }
  for (const ix of type.indexes) {
    indexes.push({ sqlName: `${type.table}__${ix.name}`, columns: [...ix.columns], isUnique: false });
  }
  if (!type.link) return { typeName: type.name, table: type.table, columns, indexes };
  // One link per pair of rows; the unique index also finds a row's links from the `from` side,
  // the second index from the `to` side.
  const { fromField: from, toField: to } = type.link;
  indexes.push({ sqlName: `${type.table}__link__unique`, columns: [from, to], isUnique: true });
  indexes.push({ sqlName: `${type.table}__link__${to}`, columns: [to], isUnique: false });
  return { typeName: type.name, table: type.table, columns, indexes, link: { from, to } };
}

function deriveColumn(field: CatalogField, byName: Map<string, CatalogType>): ColumnShape {
  const type = describeFieldTypeIn(field.type, byName);
  const { sqlType, codec } = storageOf(type);
  const column: ColumnShape = {
    name: field.name,
    sqlType,
    codec,
    type,
    isOptional: field.isOptional,
    isUnique: field.isUnique,
  };
  const def = storedDefault(field.default);
  if (def) column.default = def;
  return column;
}

function storedDefault(def: FieldDefault | undefined): StoredDefault | undefined {
  if (!def || def.kind === "computed") return undefined;
  if (def.kind === "now") return { kind: "now" };
  return { kind: "literal", value: def.value };
}

const scalarStorage: Record<string, { sqlType: SqlType; codec: ColumnCodec }> = {
  Id: { sqlType: "INTEGER", codec: "integer" },
  Int: { sqlType: "INTEGER", codec: "integer" },
  Money: { sqlType: "INTEGER", codec: "integer" },
  Float: { sqlType: "REAL", codec: "real" },
  Bool: { sqlType: "INTEGER", codec: "bool" },
};

export function storageOf(type: TypeDesc): { sqlType: SqlType; codec: ColumnCodec } {
  switch (type.kind) {
    case "scalar":
      // Text, Timestamp, Url, Email, Markdown, SKU, Slug: all text.
      return scalarStorage[type.scalar] ?? { sqlType: "TEXT", codec: "text" };
    case "union":
      return { sqlType: "TEXT", codec: "text" };
    case "ref":
      return { sqlType: "INTEGER", codec: "integer" };
    case "array":
    case "struct":
    case "json":
      return { sqlType: "TEXT", codec: "json" };
  }
}
