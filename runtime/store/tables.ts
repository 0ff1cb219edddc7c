// The per-table facts a connection needs at run time, built once from the storage shape:
// the SELECT list (id first, then fields in declaration order), the row codec, which columns
// a `where` may name, and who refers to whom. Prepared statements live per connection
// (connection.ts) because a statement belongs to the connection that prepared it.

import { quoteId } from "./ddl.js";
import { refPaths, type RefStep } from "../../model/ref-paths.js";
import { createRowCodec, type RowCodec } from "./row-codec.js";
import type { ColumnShape, StorageShape, TableShape } from "../../model/storage-shape.js";

export interface TableInfo {
  shape: TableShape;
  quoted: string;
  /** `"id", "title", …` in row key order. */
  selectList: string;
  codec: RowCodec;
  /** The statement of a get by id: its cache key and SQL, made once (a GET by id runs it every time). */
  byId: { key: string; sql: () => string };
  columns: Map<string, ColumnShape>;
  /** Places elsewhere (or here) that hold ids of this table's rows: a column, or a path inside one. */
  referrers: { table: string; column: string; steps: RefStep[] }[];
  /** Link tables' endpoint columns that hold ids of this table's rows: their rows go with the row. */
  links: { table: string; column: string }[];
}

export type TableRegistry = Map<string, TableInfo>;

export function buildTableRegistry(shape: StorageShape): TableRegistry {
  const registry: TableRegistry = new Map();
  for (const t of shape.tables) {
    const quoted = quoteId(t.table);
    const selectList = ["id", ...t.columns.map((c) => c.name)].map(quoteId).join(", ");
    const byIdSql = `SELECT ${selectList} FROM ${quoted} WHERE "id" = ?`;
    registry.set(t.table, {
      shape: t,
      quoted,
      selectList,
      codec: createRowCodec(t),
      byId: { key: `get:${t.table}`, sql: () => byIdSql },
      columns: new Map(t.columns.map((c) => [c.name, c])),
      referrers: [],
      links: [],
    });
  }
  for (const t of shape.tables) {
    for (const c of t.columns) {
      const isEndpoint = t.link !== undefined && (c.name === t.link.from || c.name === t.link.to);
      for (const { table, steps } of refPaths(c.type)) {
        const target = registry.get(table);
        if (isEndpoint) target?.links.push({ table: t.table, column: c.name });
        else target?.referrers.push({ table: t.table, column: c.name, steps });
      }
    }
  }
  return registry;
}
