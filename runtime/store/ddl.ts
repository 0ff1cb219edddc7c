// The storage shape (model/storage-shape.ts) as SQLite holds it: the column type of each value
// kind, the names SQLite cannot hold, identifier quoting and the CREATE statements. Shared by
// the first-time setup and by migrations so both produce the same schema.

import { changeLogTable } from "./change-log.js";
import { auditTable } from "./audit-trail.js";
import { StoreOpenError } from "../../model/store.js";
import {
  metaTable,
  valueKind,
  type ColumnShape,
  type IndexShape,
  type StorageShape,
  type TableShape,
  type ValueKind,
} from "../../model/storage-shape.js";

export type SqlType = "INTEGER" | "REAL" | "TEXT";

/** Bools as 0/1; structs and arrays as JSON text (row-codec.ts converts). */
const sqlTypes: Record<ValueKind, SqlType> = {
  integer: "INTEGER",
  float: "REAL",
  bool: "INTEGER",
  text: "TEXT",
  json: "TEXT",
};

export function sqlTypeOf(column: ColumnShape): SqlType {
  return sqlTypes[valueKind(column.type)];
}

/** Table names SQLite or wo keep for themselves. */
export function isReservedTable(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("sqlite_") || lower === metaTable || lower === changeLogTable || lower === auditTable;
}

/**
 * Throws StoreOpenError for names SQLite cannot hold: reserved table names, and tables (or
 * columns of one table) whose names differ only in case, which SQLite compares alike.
 */
export function assertSqliteNames(shape: StorageShape): void {
  for (const t of shape.tables) {
    if (isReservedTable(t.table)) {
      throw new StoreOpenError(
        `type '${t.typeName}' uses the table name '${t.table}', which is reserved; choose another with @table(name: ...)`,
      );
    }
    const clash = firstCaseClash(["id", ...t.columns.map((c) => c.name)]);
    if (clash)
      throw new StoreOpenError(
        `the fields '${t.typeName}.${clash[0]}' and '${t.typeName}.${clash[1]}' differ only in case, which SQLite cannot tell apart as columns; rename one`,
      );
  }
  // A full-text index is a table too (FTS5 adds `_data`, `_idx`, `_content`, `_docsize`, `_config`).
  const tables = new Set(shape.tables.map((t) => t.table.toLowerCase()));
  for (const t of shape.tables) {
    const fts = t.search?.sqlName.toLowerCase();
    const taken =
      fts === undefined ? undefined : [...tables].find((name) => name === fts || name.startsWith(`${fts}_`));
    if (taken !== undefined)
      throw new StoreOpenError(
        `the table name '${taken}' is taken by the full-text index of type '${t.typeName}' (@search); choose another with @table(name: ...)`,
      );
  }
  const clash = firstCaseClash(shape.tables.map((t) => t.table));
  if (clash)
    throw new StoreOpenError(
      `the tables '${clash[0]}' and '${clash[1]}' differ only in case, which SQLite cannot tell apart; rename one with @table(name: ...)`,
    );
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

/** Double-quoted SQL identifier: field names may be keywords (`order`) or carry odd characters. */
export function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function columnDefinition(column: ColumnShape): string {
  return `${quoteId(column.name)} ${sqlTypeOf(column)}`;
}

// AUTOINCREMENT: ids are never reused, even after the newest row is deleted, so an id an
// agent remembers can never silently point at a different row later.
export function createTableSql(table: TableShape): string {
  const columns = ['"id" INTEGER PRIMARY KEY AUTOINCREMENT', ...table.columns.map(columnDefinition)];
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
