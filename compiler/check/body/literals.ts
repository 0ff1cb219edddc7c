// Object `{ … }` and list `[ … ]` literals, typed against the struct, row or list they go into
// (spec/language.md, "Constructs of the full language"): the first misfit is WO5029 at the
// entry or element that does not fit (WO5020 for a variant, WO5016 for a repeated field).

import type { Expr } from "../../ast.js";
import {
  describeType,
  fieldValueType,
  findType,
  isAssignable,
  isRowOf,
  nonNull,
  unknownType,
  type ValueType,
} from "../method-types.js";
import type { BodyCheck } from "./context.js";
import { variantText } from "./variants.js";

export function isLiteral(e: Expr): boolean {
  return e.kind === "ObjectExpr" || e.kind === "ListExpr";
}

/**
 * A literal `{ … }` or `[ … ]` against the type it goes into, member by member: the first
 * misfit is WO5029 at the entry or element that does not fit (or WO5020 for a variant).
 */
export function fitLiteral(check: BodyCheck, value: Expr, want: ValueType): void {
  const { bag, catalog, typing } = check;
  if (value.kind === "ObjectExpr") check.fitted.add(value);
  const target = nonNull(want);
  if (target.k === "unknown") {
    return;
  }
  if (value.kind === "ListExpr") {
    if (target.k !== "array" && target.k !== "rows") {
      bag.report("WO5029", value.span, {
        what: "The list literal",
        expected: describeType(want),
        why: "it is not a list",
      });
      return;
    }
    const element: ValueType = target.k === "rows" ? { k: "row", type: target.type } : target.element;
    for (const item of value.items) fitValue(check, item, element);
    return;
  }
  if (value.kind !== "ObjectExpr") return;
  const declaredFields =
    target.k === "struct"
      ? target.fields
      : target.k === "row" && !target.projection
        ? findType(catalog, target.type)?.fields
        : undefined;
  const fields = declaredFields?.filter((f) => f.isStored && f.name !== "id" && f.default?.kind !== "computed");
  if (!fields) {
    bag.report("WO5029", value.span, {
      what: "The object literal",
      expected: describeType(want),
      why: "it is not a struct or a row",
    });
    return;
  }
  const given = new Set<string>();
  for (const entry of value.entries) {
    const field = fields.find((f) => f.name === entry.name.text);
    if (!field) {
      bag.report("WO5029", entry.name.span, {
        what: "The object literal",
        expected: describeType(want),
        why: `'${entry.name.text}' is not one of its fields`,
      });
      return;
    }
    if (given.has(field.name)) {
      bag.report("WO5016", entry.name.span, { field: field.name });
      return;
    }
    given.add(field.name);
    // A row where a `ref T` goes is its id, as in an insert (writes.ts checkStore).
    const t = check.typing.exprTypes.get(entry.value);
    if (field.type.kind === "ref" && t && isRowOf(t, field.type.target)) typing.rowIds.add(entry.value);
    else fitValue(check, entry.value, fieldValueType(catalog, field.type, field.isOptional));
  }
  // Left out, a field gets what `insert` gives it (emit/method-expr.ts omittedFieldValue).
  const missing = fields.find(
    (f) => !f.isOptional && f.default === undefined && f.type.kind !== "array" && !given.has(f.name),
  );
  if (missing) {
    bag.report("WO5029", value.span, {
      what: "The object literal",
      expected: describeType(want),
      why: `field '${missing.name}' is missing`,
    });
    return;
  }
  // A field left out gets its default, else null (it is optional), as `insert` does.
  typing.objectFields.set(value, fields);
}

/** One entry or element of a literal: nested literals recurse, variants are checked. */
function fitValue(check: BodyCheck, value: Expr, want: ValueType): void {
  if (isLiteral(value)) return fitLiteral(check, value, want);
  const t = check.typing.exprTypes.get(value) ?? unknownType;
  const text = variantText(check, value);
  if (nonNull(want).k === "union" && text !== undefined) {
    const variants = (nonNull(want) as { variants: string[] }).variants;
    if (!variants.includes(text))
      check.bag.report("WO5020", value.span, { value: text, variants: variants.join(" | ") });
    return;
  }
  // A computed Text is not checked against a union inside a literal: write a variant.
  const fits = nonNull(want).k === "union" ? t.k === "union" || t.k === "unknown" || t.k === "null" : true;
  if (!fits || !isAssignable(t, want))
    check.bag.report("WO5029", value.span, {
      what: "The value",
      expected: describeType(want),
      why: `it is ${describeType(t)}`,
    });
}
