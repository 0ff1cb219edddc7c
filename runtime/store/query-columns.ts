// What a store's list query may name, the same for every store: `id` or a stored column whose
// values compare as scalars (a JSON column holds a struct or an array and cannot).

import { StoreQueryError } from "../../model/store.js";
import { valueKind, type ColumnShape, type TableShape } from "../../model/storage-shape.js";

/** The `id` column every table has, as a query names it. */
export const idColumn: ColumnShape = {
  name: "id",
  type: { kind: "scalar", scalar: "Id" },
  isOptional: false,
  isUnique: true,
};

/** The column `name` of a `where` or `sort`; StoreQueryError, in the user's words, when it cannot be one. */
export function queryColumn(
  t: { readonly shape: TableShape; readonly columns: ReadonlyMap<string, ColumnShape> },
  name: string,
): ColumnShape {
  const column = name === "id" ? idColumn : t.columns.get(name);
  if (column === undefined || valueKind(column.type) === "json") {
    throw new StoreQueryError(
      t.shape.table,
      name,
      `'${name}' is not a field you can filter or sort ${t.shape.typeName} by.`,
    );
  }
  return column;
}
