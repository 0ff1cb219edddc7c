// Expressions of a body: each gets a value type (recorded in the typing for the emitter), and
// the operators' rules are checked — comparisons (WO5011, WO5020), arithmetic and text joins
// (WO5012), literals within the exact integer range (WO5024), names in scope or bare variants
// (WO5001, WO5023), indexing and list elements (WO5026). Reads and calls are in queries.ts and
// calls.ts.

import type { Expr } from "../../ast.js";
import { didYouMean } from "../did-you-mean.js";
import {
  describeType,
  isAssignable,
  isComparable,
  isNumeric,
  isOrderable,
  isText,
  nonNull,
  oneRowSelectHint,
  orNull,
  unknownType,
  type ValueType,
} from "../method-types.js";
import { call, methodCall } from "./calls.js";
import { typeEach } from "./each.js";
import type { BodyCheck } from "./context.js";
import { isLiteral } from "./literals.js";
import { member, select, subscription } from "./queries.js";
import { checkVariantLiteral } from "./variants.js";
import { reportLoneParam } from "./session.js";

/** Types `e`, records its type, and reports what is wrong in it. */
export function typeExpr(check: BodyCheck, e: Expr): ValueType {
  const t = exprUncached(check, e);
  check.typing.exprTypes.set(e, t);
  return t;
}

function isScalar(t: ValueType): boolean {
  return (
    t.k === "int" ||
    t.k === "float" ||
    t.k === "text" ||
    t.k === "union" ||
    t.k === "bool" ||
    t.k === "null" ||
    t.k === "unknown"
  );
}

function exprUncached(check: BodyCheck, e: Expr): ValueType {
  const { bag, scope, typing } = check;
  switch (e.kind) {
    case "LiteralExpr":
      switch (e.literal.literalType) {
        case "int":
          // Beyond ±(2^53 − 1) the literal would already be a different number at run time.
          if (!Number.isSafeInteger(e.literal.value)) bag.report("WO5024", e.span, { value: String(e.literal.value) });
          return { k: "int", name: "Int" };
        case "float":
          return { k: "float" };
        case "string":
          return { k: "text", name: "Text" };
        case "bool":
          return { k: "bool" };
        case "null":
          return { k: "null" };
      }
      return unknownType;
    case "NameExpr": {
      if (e.name.text.startsWith("$")) return reportLoneParam(check, e.name);
      const found = scope.get(e.name.text);
      if (!found && check.variants.has(e.name.text)) {
        // A bare variant (`Admin`) is its text; where it goes, the union's variants are checked.
        typing.names.set(e, { kind: "variant", value: e.name.text });
        return { k: "union", variants: [e.name.text] };
      }
      if (!found) {
        bag.report("WO5001", e.name.span, { name: e.name.text, hint: didYouMean(e.name.text, scope.keys()) });
        return unknownType;
      }
      typing.names.set(e, found.binding);
      if (found.binding.kind === "updated") check.updatedReads++;
      if (found.binding.kind === "let" && !check.bound.has(e.name.text)) {
        bag.report("WO5023", e.name.span, { name: e.name.text });
      }
      return found.type;
    }
    case "MemberExpr":
      return member(check, e);
    case "CallExpr":
      return call(check, e);
    case "SelectExpr":
      return select(check, e);
    case "UnaryExpr": {
      const t = check.expr(e.operand);
      if (e.op === "not") return { k: "bool" };
      if (!isNumeric(t)) bag.report("WO5012", e.operand.span, { op: "-", found: describeType(t) });
      return t.k === "float" ? { k: "float" } : { k: "int", name: t.k === "int" ? t.name : "Int" };
    }
    case "IndexExpr": {
      const list = check.expr(e.object);
      const index = check.expr(e.index);
      if (index.k !== "int" && index.k !== "unknown") {
        bag.report("WO5026", e.index.span, { what: "An index", expected: "an integer", found: describeType(index) });
      }
      if (list.k === "rows")
        return list.projection
          ? { k: "row", type: list.type, projection: list.projection }
          : { k: "row", type: list.type };
      if (list.k === "array") return list.element;
      if (list.k !== "unknown")
        bag.report("WO5026", e.object.span, {
          what: "Indexing",
          expected:
            list.k === "row" && e.object.kind === "SelectExpr"
              ? `rows or a list (${oneRowSelectHint})`
              : "rows or a list",
          found: describeType(list),
        });
      return unknownType;
    }
    case "ObjectExpr":
      // Typed against the struct or row it goes into (fitLiteral); WO5025 where none is expected.
      for (const entry of e.entries) check.expr(entry.value);
      return unknownType;
    case "ListExpr": {
      const items = e.items.map((item) => check.expr(item));
      const element = items.find((t) => t.k !== "null" && t.k !== "unknown") ?? unknownType;
      e.items.forEach((item, i) => {
        if (!isLiteral(item) && !isAssignable(items[i]!, orNull(element))) {
          bag.report("WO5026", item.span, {
            what: "A list element",
            expected: describeType(element),
            found: describeType(items[i]!),
          });
        }
      });
      const hasNull = items.some((t) => t.k === "null");
      return { k: "array", element: hasNull ? orNull(element) : element };
    }
    case "MethodCallExpr":
      return methodCall(check, e);
    case "LiveExpr":
      return subscription(check, e);
    case "EachExpr":
      return typeEach(check, e);
    case "BinaryExpr": {
      const l = check.expr(e.left);
      const r = check.expr(e.right);
      switch (e.op) {
        case "and":
        case "or":
          return { k: "bool" };
        case "==":
        case "!=":
          checkVariantLiteral(check, l, e.right);
          checkVariantLiteral(check, r, e.left);
          if (!isComparable(l, r))
            bag.report("WO5011", e.span, { left: describeType(l), right: describeType(r), op: e.op });
          return { k: "bool" };
        case "<":
        case "<=":
        case ">":
        case ">=":
          if (!isOrderable(nonNull(l), nonNull(r)))
            bag.report("WO5011", e.span, { left: describeType(l), right: describeType(r), op: e.op });
          return { k: "bool" };
        default: {
          // `"short of " + p.sku`: `+` with a text operand joins text (scalars only).
          if (e.op === "+" && (isText(l) || isText(r)) && isScalar(l) && isScalar(r))
            return { k: "text", name: "Text" };
          if (!isNumeric(l)) bag.report("WO5012", e.left.span, { op: e.op, found: describeType(l) });
          else if (!isNumeric(r)) bag.report("WO5012", e.right.span, { op: e.op, found: describeType(r) });
          if (l.k === "float" || r.k === "float") return { k: "float" };
          // Money stays Money through arithmetic with plain Ints (`amount * 2`).
          const name =
            [l, r].map((t) => (t.k === "int" ? t.name : "Int")).find((n) => n !== "Int" && n !== "Id") ?? "Int";
          return { k: "int", name: name.startsWith("ref ") ? "Int" : name };
        }
      }
    }
  }
}
