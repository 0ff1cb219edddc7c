// SQL text for the storage shape: identifier quoting and the CREATE statements. Shared by the
// first-time setup and by migrations so both produce the same schema.

import type { ColumnShape, IndexShape, TableShape } from "./shape.js";

/** Double-quoted SQL identifier: field names may be keywords (`order`) or carry odd characters. */
export function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function columnDefinition(column: ColumnShape): string {
  return `${quoteId(column.name)} ${column.sqlType}`;
}

// AUTOINCREMENT: ids are never reused, even after the newest row is deleted, so an id an
// agent remembers can never silently point at a different row later.
export function createTableSql(table: TableShape): string {
  const columns = ["\"id\" INTEGER PRIMARY KEY AUTOINCREMENT", ...table.columns.map(columnDefinition)];
  return `CREATE TABLE ${quoteId(table.table)} (${columns.join(", ")})`;
}

export function createIndexSql(table: string, index: IndexShape): string {
  const unique = index.isUnique ? "UNIQUE " : "";
  const collate = index.collation === "nocase" ? " COLLATE NOCASE" : "";
  const cols = index.columns.map((c) => `${quoteId(c)}${collate}`).join(", ");
  return `CREATE ${unique}INDEX IF NOT EXISTS ${quoteId(index.sqlName)} ON ${quoteId(table)} (${cols})`;
}

export function dropIndexSql(index: IndexShape): string {
  return `DROP INDEX IF EXISTS ${quoteId(index.sqlName)}`;
}
