// Value types of the method language: what an expression in a method body can evaluate to,
// derived from catalog field types, and the rules for comparing, assigning and describing them.
//
// Owns: the small type lattice the method checker (methods.ts) and the method emitter
// (emit/methods.ts) share. Leaves to methods.ts: walking bodies and reporting diagnostics.
//
// Integer-like scalars (Int, Money, Id and `ref T` ids) are one family: method arithmetic is
// integer arithmetic (spec/language.md, "Method language"), and mixing Money with an Int
// literal (`amount * 2`) is the common case, not a mistake.

import type { SelectExpr } from "../ast.js";
import type { Catalog, CatalogField, CatalogType, FieldType } from "../catalog.js";
import { scalars, type ScalarName } from "../../model/scalars.js";
import { typesByName } from "../../model/type-index.js";

export type ValueType =
  | { k: "int"; name: string; nullable?: boolean }
  | { k: "float"; nullable?: boolean }
  | { k: "text"; name: string; nullable?: boolean }
  | { k: "bool"; nullable?: boolean }
  | { k: "union"; variants: string[]; nullable?: boolean }
  | { k: "null" }
  /**
   * One row of a class or type (what `self`, `latest(set)` and `insert` deal in). `selected`:
   * what a one-row select found (selectsOneRow), or none — a field read of none ends the call,
   * as a read through a ref id naming no row does, so its fields are as declared.
   */
  | { k: "row"; type: string; projection?: string[]; nullable?: boolean; selected?: true }
  /** Rows in id order; `projection` limits the keys each row has (`select T { a, b }`). */
  | { k: "rows"; type: string; projection?: string[] }
  | { k: "array"; element: ValueType; nullable?: boolean }
  | { k: "struct"; fields: CatalogField[]; nullable?: boolean }
  /** `subscribe live T{ … }`: only `receive` takes it (spec/language.md, "Live subscriptions"). */
  | { k: "subscription"; type: string; nullable?: boolean }
  /** What `receive(sub)` gives: `.kind` (deltaKinds), `.row` (a T row) and `.rows` ([T]). */
  | { k: "delta"; type: string; nullable?: boolean }
  /** After an error: accepted everywhere so one mistake is reported once. */
  | { k: "unknown" };

export const unknownType: ValueType = { k: "unknown" };

/** The variants of a delta's `kind`; a body's subscription never sends `Snapshot` (spec/language.md). */
export const deltaKinds = ["Snapshot", "Insert", "Update", "Delete"] as const;

/** The scalar's family in the scalar table; int and text keep the scalar's name for messages. */
export function scalarValueType(scalar: ScalarName, nullable = false): ValueType {
  const kind = scalars[scalar].method;
  switch (kind) {
    case "int":
    case "text":
      return { k: kind, name: scalar, nullable };
    case "float":
    case "bool":
      return { k: kind, nullable };
  }
}

export function findType(catalog: Catalog, name: string): CatalogType | undefined {
  return typesByName(catalog).get(name);
}

/** The value a field of that type holds; relations are the rows they lead to. */
export function fieldValueType(catalog: Catalog, type: FieldType, nullable = false): ValueType {
  switch (type.kind) {
    case "scalar":
      return scalarValueType(type.scalar, nullable);
    case "union":
      return { k: "union", variants: type.variants, nullable };
    case "ref":
      return { k: "int", name: `ref ${type.target}`, nullable };
    case "multi":
    case "backlink":
      return { k: "rows", type: type.target };
    case "array":
      return { k: "array", element: fieldValueType(catalog, type.element), nullable };
    case "struct":
      return { k: "struct", fields: type.fields, nullable };
    case "embedded":
      // A declared type named by value: in a method it is a row of that type.
      return findType(catalog, type.type) ? { k: "row", type: type.type, nullable } : unknownType;
  }
}

/** The declared result of a method: `-> T` or `-> [T]` (undefined when there is none). */
export function returnValueType(catalog: Catalog, returns: { type: FieldType; isArray: boolean }): ValueType {
  const element = fieldValueType(catalog, returns.type);
  if (!returns.isArray) return element;
  return element.k === "row" ? { k: "rows", type: element.type } : { k: "array", element };
}

/** What a diagnostic adds when a set is wanted where such a select gave its one row. */
export const oneRowSelectHint = "a select on id or a @unique field is already one row or null; use it as it is";

/**
 * Whether `T{ … }` names at most one row: one of its predicates is `==` on `id` or a `@unique` field
 * (the language's cardinality rule), so its value is `T?`, not rows.
 */
export function selectsOneRow(catalog: Catalog, e: SelectExpr): boolean {
  const type = findType(catalog, e.type.text);
  // `id` is unique without saying so: `T{ id == x }` is the row x names, or null.
  return e.predicates.some(
    (p) => p.op === "==" && (p.column.text === "id" || type?.fields.find((f) => f.name === p.column.text)?.isUnique),
  );
}

/**
 * Whether `t` is a whole row of `type`, which is its id where a `ref type` goes. A row that may
 * be none (`T{ id == i }`, a `T?`) is too: none there ends the call, unless the ref is optional
 * (spec/language.md, "Statements").
 */
export function isRowOf(t: ValueType, type: string): boolean {
  return t.k === "row" && !t.projection && t.type === type;
}

export function isNullable(t: ValueType): boolean {
  return t.k === "null" || ("nullable" in t && t.nullable === true);
}

export function nonNull(t: ValueType): ValueType {
  return "nullable" in t && t.nullable ? { ...t, nullable: false } : t;
}

/** How a type reads in a message: `Money`, `Text?`, `row of Price`, `[Price]`, `"A" | "B"`. */
export function describeType(t: ValueType): string {
  const q = isNullable(t) && t.k !== "null" ? "?" : "";
  switch (t.k) {
    case "int":
    case "text":
      return t.name + q;
    case "float":
      return `Float${q}`;
    case "bool":
      return `Bool${q}`;
    case "union":
      return t.variants.join(" | ") + q;
    case "null":
      return "null";
    case "row":
      return t.projection ? `a ${t.type} { ${t.projection.join(", ")} } row${q}` : `a ${t.type} row${q}`;
    case "rows":
      return t.projection ? `[${t.type} { ${t.projection.join(", ")} }]` : `[${t.type}]`;
    case "array":
      return `[${describeType(t.element)}]${q}`;
    case "struct":
      return `{ ${t.fields.map((f) => f.name).join(", ")} }${q}`;
    case "subscription":
      return `a subscription to ${t.type}`;
    case "delta":
      return `a delta of ${t.type}`;
    case "unknown":
      return "unknown";
  }
}

export function isNumeric(t: ValueType): boolean {
  return t.k === "int" || t.k === "float" || t.k === "unknown";
}

function isTextLike(t: ValueType): boolean {
  return t.k === "text" || t.k === "union";
}

/** `==`/`!=` make sense between these two types (structural JSON equality at run time). */
export function isComparable(a: ValueType, b: ValueType): boolean {
  if (a.k === "unknown" || b.k === "unknown" || a.k === "null" || b.k === "null") return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (isTextLike(a) && isTextLike(b)) return true;
  if (a.k === "bool" && b.k === "bool") return true;
  if (a.k === "row" && b.k === "row") return a.type === b.type;
  if (a.k === "rows" && b.k === "rows") return a.type === b.type;
  if (a.k === "array" && b.k === "array") return isComparable(a.element, b.element);
  return a.k === "struct" && b.k === "struct";
}

/** `<`, `<=`, `>`, `>=`: numbers numerically, text (timestamps included) by code unit order. */
export function isOrderable(a: ValueType, b: ValueType): boolean {
  if (a.k === "unknown" || b.k === "unknown") return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  return a.k === "text" && b.k === "text";
}

/**
 * A value of type `value` may be stored in / returned as `target`. Union membership of a
 * string literal is checked by the caller (it needs the literal).
 */
export function isAssignable(value: ValueType, target: ValueType): boolean {
  if (value.k === "unknown" || target.k === "unknown") return true;
  if (value.k === "null") return isNullable(target);
  if (isNullable(value) && !isNullable(target)) return false;
  switch (target.k) {
    case "int":
      return value.k === "int";
    case "float":
      return value.k === "int" || value.k === "float";
    case "text":
      return isTextLike(value);
    case "union":
      // A Text value is checked against the variants when it is stored (emit/methods.ts).
      return value.k === "text" || (value.k === "union" && value.variants.every((v) => target.variants.includes(v)));
    case "bool":
      return value.k === "bool";
    case "row":
      return value.k === "row" && value.type === target.type && value.projection === undefined;
    case "rows":
      return value.k === "rows" && value.type === target.type && value.projection === undefined;
    case "array":
      if (value.k === "rows")
        return target.element.k === "row" && target.element.type === value.type && !value.projection;
      return value.k === "array" && isAssignable(value.element, target.element);
    case "struct":
      return value.k === "struct" || value.k === "row";
    case "subscription":
    case "delta":
      return value.k === target.k && value.type === target.type;
    case "null":
      return false;
  }
}

/** Text or a union value (a variant is its text): what `+` joins and abort messages take. */
export function isText(t: ValueType): boolean {
  return t.k === "text" || t.k === "union";
}

/** Method results are always nullable (spec/schemas.md, "Operation outputs"). */
export function orNull(t: ValueType): ValueType {
  return t.k === "unknown" || t.k === "null" || t.k === "rows" ? t : { ...t, nullable: true };
}
