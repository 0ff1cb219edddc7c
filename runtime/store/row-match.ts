// A list query's `where` (store.ts ListQuery) tested against one row in memory: how a live
// stream applies list filters to a change without asking the database. The semantics are the
// store's, operator for operator (spec/storage.md, "Rows"), so a row a stream passes is a row
// the same filter lists:
//   - `== null` / `!= null`: has no value / has a value; `!=` a value also passes a row with none;
//   - an ordering comparison with a row that has no value fails;
//   - text orders by code point (SQLite compares UTF-8 bytes, which is the same order);
//   - `contains`: Unicode lower case on both sides;
//   - an operand on a scalar with one stored form (a Timestamp: UTC) is compared in that form
//     (model/scalars.ts, `canonical`).

import type { CatalogType } from "../../model/app.js";
import { scalars } from "../../model/scalars.js";
import type { ListQuery, Row } from "../../model/store.js";

type Where = NonNullable<ListQuery["where"]>;

/** The columns of `type` whose scalar has one stored form, with the function that gives it. */
export function canonicalForms(type: Pick<CatalogType, "fields">): Map<string, (value: unknown) => unknown> {
  const forms = new Map<string, (value: unknown) => unknown>();
  for (const f of type.fields) {
    const canonical = f.type.kind === "scalar" ? scalars[f.type.scalar].canonical : undefined;
    if (canonical) forms.set(f.name, canonical);
  }
  return forms;
}

/** A predicate for `where`; `forms` (canonicalForms) puts operands in their columns' stored form. */
export function rowFilter(
  where: Where,
  forms: ReadonlyMap<string, (value: unknown) => unknown>,
): (row: Row) => boolean {
  const tests = where.map(({ column, op, value }) => {
    const canonical = forms.get(column);
    const operand = (v: unknown) => (v === undefined ? null : canonical ? canonical(v) : v);
    switch (op) {
      case "==":
      case "!=": {
        const expected = operand(value);
        const isEqual = (row: Row) => (row[column] ?? null) === expected;
        return op === "==" ? isEqual : (row: Row) => !isEqual(row);
      }
      case "in": {
        const values = (Array.isArray(value) ? value : []).map(operand);
        return (row: Row) => values.some((v) => (row[column] ?? null) === v);
      }
      case "contains": {
        const needle = typeof value === "string" ? value.toLowerCase() : "";
        return (row: Row) => {
          const v = row[column];
          return typeof v === "string" && v.toLowerCase().includes(needle);
        };
      }
      default: {
        const bound = operand(value);
        const sign = {
          "<": (c: number) => c < 0,
          "<=": (c: number) => c <= 0,
          ">": (c: number) => c > 0,
          ">=": (c: number) => c >= 0,
        }[op];
        return (row: Row) => {
          const v = row[column];
          return v !== null && v !== undefined && bound !== null && sign(compare(v, bound));
        };
      }
    }
  });
  return (row) => tests.every((test) => test(row));
}

/** SQLite's order across storage classes: numbers (booleans are 0/1) before text. */
function compare(a: unknown, b: unknown): number {
  const x = typeof a === "boolean" ? Number(a) : a;
  const y = typeof b === "boolean" ? Number(b) : b;
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "number") return -1;
  if (typeof y === "number") return 1;
  return compareCodePoints(String(x), String(y));
}

/** Code point order; JavaScript's `<` compares UTF-16 units, which differs above U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
