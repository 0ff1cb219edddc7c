// `@check(…)` on a field: the comparison form (`@check(> 0)`, `@check(!= "")`) becomes the
// field's FieldCheck (model/field-check.ts), enforced on every write; the boolean-expression
// form (`@check(self.end > self.start)`) is typed and compiled by row-exprs.ts. A field inside
// a struct or a list's items takes one too (model/check-paths.ts finds it in the stored value).
// Which scalars take which comparison: numbers (Int, Money, Float) every operator, text
// scalars `!=` only (JSON Schema cannot order text); the others none (spec/language.md, "Checks").

import type { Annotation } from "../ast.js";
import type { FieldType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { describeType } from "./context.js";
import { checkOps, isOrderingOp, type FieldCheck } from "../../model/field-check.js";
import { scalars } from "../../model/scalars.js";
import { article } from "../../model/words.js";

const numberText = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const stringText = /^"(?:[^"\\]|\\.)*"$/;

/** The check `a` declares on `field`, or undefined (reported, or a warning for an expression). */
export function fieldCheck(a: Annotation, field: string, type: FieldType, bag: DiagnosticBag): FieldCheck | undefined {
  const text = (a.argsText ?? "").trim();
  const op = checkOps.find((o) => text.startsWith(o));
  if (op === undefined) {
    if (text === "") bag.report("WO2045", a.span, { field, why: "needs a comparison, e.g. @check(> 0)" });
    // A boolean expression is typed and compiled with the row's other expressions (row-exprs.ts);
    // text the method grammar cannot read stays unenforced.
    else if (!a.expr) bag.report("WO2108", a.span, { name: "check(…) with an expression wo cannot read" });
    return undefined;
  }
  const refuse = (why: string): undefined => {
    bag.report("WO2045", a.span, { field, why });
    return undefined;
  };
  const literal = text.slice(op.length).trim();
  const scalar = type.kind === "scalar" ? type.scalar : undefined;
  const method = scalar === undefined || scalar === "Id" ? undefined : scalars[scalar].method;
  if (method === "int" || method === "float") {
    if (!numberText.test(literal))
      return refuse(
        `compares ${article(scalar!)} ${scalar} with a number, e.g. @check(${op} 0); got ${literal || "nothing"}`,
      );
    const value = Number(literal);
    if (method === "int" && !Number.isSafeInteger(value))
      return refuse(`compares ${article(scalar!)} ${scalar} with a whole number within ±(2^53 − 1); got ${literal}`);
    if (!Number.isFinite(value)) return refuse(`compares with a finite number; got ${literal}`);
    return { op, value };
  }
  if (method === "text" && scalar !== "Timestamp") {
    if (isOrderingOp(op))
      return refuse(
        `on ${article(scalar!)} ${scalar} takes only != (text has no order a schema can check), e.g. @check(!= "")`,
      );
    if (!stringText.test(literal))
      return refuse(
        `compares ${article(scalar!)} ${scalar} with a string, e.g. @check(!= ""); got ${literal || "nothing"}`,
      );
    try {
      return { op, value: JSON.parse(literal) as string };
    } catch {
      return refuse(`compares with a string in double quotes; got ${literal}`);
    }
  }
  const what =
    scalar === undefined
      ? `a field of type ${describeType(type)}`
      : scalar === "Id"
        ? "an id"
        : `${article(scalar)} ${scalar} field`;
  return refuse(`cannot be a comparison on ${what}: only Int, Money, Float and text fields take one`);
}
