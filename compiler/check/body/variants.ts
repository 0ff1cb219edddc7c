// Union variants written bare in a body (`status = Paid`): which names are variants, the text a
// value stands for, and the check that it is one of the variants of the union it meets
// (spec/language.md, "Scope and names"; WO5020).

import type { Expr } from "../../ast.js";
import type { Catalog, FieldType } from "../../catalog.js";
import { deltaKinds, type ValueType } from "../method-types.js";
import type { BodyCheck } from "./context.js";

/**
 * Every variant name of every union in the program, and the kinds of a live delta
 * (`delta.kind == Insert`): the names a body may write bare.
 */
export function unionVariants(catalog: Catalog): Set<string> {
  const names = new Set<string>(deltaKinds);
  const visit = (t: FieldType): void => {
    if (t.kind === "union") for (const v of t.variants) names.add(v);
    else if (t.kind === "array") visit(t.element);
    else if (t.kind === "struct") for (const f of t.fields) visit(f.type);
  };
  for (const type of catalog.types) {
    for (const f of type.fields) visit(f.type);
    for (const m of type.methods) for (const p of m.params) visit(p.type);
  }
  for (const fn of catalog.functions ?? []) for (const p of fn.params) visit(p.type);
  return names;
}

/** The text of a string literal or of a bare variant name, else undefined. */
export function variantText(check: BodyCheck, e: Expr): string | undefined {
  if (e.kind === "LiteralExpr") return typeof e.literal.value === "string" ? e.literal.value : undefined;
  const b = e.kind === "NameExpr" ? check.typing.names.get(e) : undefined;
  return b?.kind === "variant" ? b.value : undefined;
}

/** `other` compared with a union value must be one of its variants when it is a text or a variant. */
export function checkVariantLiteral(check: BodyCheck, side: ValueType, other: Expr): void {
  const text = variantText(check, other);
  if (side.k !== "union" || text === undefined) return;
  if (!side.variants.includes(text))
    check.bag.report("WO5020", other.span, { value: text, variants: side.variants.join(" | ") });
}
