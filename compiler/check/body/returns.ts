// What a body returns: each `return` against the declared `-> T` (WO5007, WO5008), whether
// every path ends in one (WO5021), and — for the method's output schema — which keys the
// returned rows hold when a return gives a projection (spec/language.md, "Return values").

import type { AssertStmt, Block, ReturnStmt, Stmt } from "../../ast.js";
import type { Catalog, CatalogMethod } from "../../catalog.js";
import { describeType, findType, isAssignable, orNull, type ValueType } from "../method-types.js";
import type { BodyCheck } from "./context.js";
import { fitLiteral, isLiteral } from "./literals.js";

export function checkReturn(check: BodyCheck, s: ReturnStmt): void {
  const { bag, catalog, declared, method } = check;
  const t = s.value ? check.expr(s.value) : undefined;
  if (s.value && t && !declared) bag.report("WO5008", s.value.span, { method: method.name });
  if (declared && !s.value) {
    bag.report("WO5007", s.span, { method: method.name, expected: describeType(declared), found: "nothing" });
  } else if (declared && s.value && isLiteral(s.value)) {
    fitLiteral(check, s.value, declared);
  } else if (declared && s.value && t && isProjectionOf(t, declared)) {
    check.returnedKeys.push((t as { projection: string[] }).projection);
  } else if (declared && s.value && t && t.k !== "null" && !isAssignable(t, orNull(declared))) {
    bag.report("WO5007", s.value.span, {
      method: method.name,
      expected: describeType(declared),
      found: describeType(t),
    });
  } else if (declared && s.value && t && (t.k === "row" || t.k === "rows")) {
    const type = findType(catalog, t.type);
    if (type) check.returnedKeys.push(type.fields.filter((f) => f.isStored).map((f) => f.name));
  }
}

/** After the body: WO5021 when a declared result can be missed, and the returned keys recorded. */
export function checkResult(check: BodyCheck): void {
  const { declared, method } = check;
  if (declared && !alwaysReturns(method.body)) {
    check.bag.report("WO5021", method.body.span, { method: method.name, expected: describeType(declared) });
  }
  recordReturnedKeys(check.catalog, method, check.returnedKeys);
}

/** Projected rows of the declared row type: `select Price{ p == x, amount, at }` for `-> [Price]`. */
function isProjectionOf(t: ValueType, declared: ValueType): boolean {
  if ((t.k !== "row" && t.k !== "rows") || !t.projection) return false;
  if (declared.k === "array") return t.k === "rows" && declared.element.k === "row" && declared.element.type === t.type;
  return (
    (declared.k === t.k || (declared.k === "rows" && t.k === "rows")) && "type" in declared && declared.type === t.type
  );
}

/**
 * A method some of whose returns give projected rows: which keys its rows may hold and which
 * every one holds (whole rows hold every stored field). Recomputed on every typing of the body.
 */
function recordReturnedKeys(catalog: Catalog, method: CatalogMethod, returnedKeys: string[][]): void {
  const returned = method.returns?.type;
  const type = returned?.kind === "embedded" ? findType(catalog, returned.type) : undefined;
  const whole = type?.fields.filter((f) => f.isStored).length;
  if (!type || returnedKeys.every((keys) => new Set(keys).size === whole)) {
    delete method.returnsProjection;
    return;
  }
  const fields = type.fields.map((f) => f.name).filter((name) => returnedKeys.some((keys) => keys.includes(name)));
  const required = fields.filter((name) => returnedKeys.every((keys) => keys.includes(name)));
  method.returnsProjection = { fields, required };
}

/** True when every path through the block ends in `return` (or an assert that always aborts). */
export function alwaysReturns(b: Block): boolean {
  return b.statements.some((s) => stmtAlwaysReturns(s));
}

export function stmtAlwaysReturns(s: Stmt): boolean {
  if (s.kind === "ReturnStmt") return true;
  if (s.kind === "AssertStmt") return isFalseLiteral(s);
  if (s.kind !== "IfStmt" || !s.else) return false;
  const otherwise = s.else.kind === "Block" ? alwaysReturns(s.else) : stmtAlwaysReturns(s.else);
  return alwaysReturns(s.then) && otherwise;
}

function isFalseLiteral(s: AssertStmt): boolean {
  return (
    s.condition.kind === "LiteralExpr" && (s.condition.literal.value === false || s.condition.literal.value === null)
  );
}
