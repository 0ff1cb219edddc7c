// Method bodies: resolve every name, field, type and function a body uses, give every
// expression a value type, and report what cannot run — each at the line:col of the mistake.
//
// Owns: the WO5xxx diagnostics and the typing the method emitter reuses (`typeMethod`), so the
// emitter and the checker can never disagree about what `self.prices` or `count(x)` means.
// Leaves to the declaration checker (check/*): parameter and return type names, duplicate
// methods, `id` parameters and exposure; a body is typed against the catalog it built.
// The work is split by concept under body/: statements and scope, writes, returns,
// expressions, calls, store reads (queries), literals and bare union variants.
//
// Scope (spec/language.md, "Scope and names"): one flat scope per call of
// `self`, parameters and `let` bindings; a `let` may rebind a name, and a binding made inside
// an `if` stays visible after it.

import type { Catalog, CatalogMethod, CatalogType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import type { BodyCheck, MethodTyping } from "./body/context.js";
import { typeExpr } from "./body/expressions.js";
import { checkResult } from "./body/returns.js";
import { block } from "./body/statements.js";
import { unionVariants } from "./body/variants.js";
import type { SkippedFunctions } from "./functions.js";
import { fieldValueType, returnValueType } from "./method-types.js";

export type { MethodTyping, NameBinding, RefRead, RelationRead } from "./body/context.js";

/** An object literal where no struct or row value is expected: WO5025 with this reason. */
const strayObjectLiteral = {
  what: "An object literal '{ … }'",
  why: "it is built only where a struct or row value is expected (a field, a parameter, a return value, a list element)",
};

/** Check every method body of every type. Call once the catalog's types and fields exist. */
export function checkMethodBodies(catalog: Catalog, bag: DiagnosticBag, skipped: SkippedFunctions = new Map()): void {
  for (const type of catalog.types) {
    for (const method of type.methods) typeMethod(catalog, type, method, bag, skipped);
  }
}

/**
 * Types one body: a class method (`owner` its class, `self` in scope) or a free fn (`owner`
 * undefined). `skipped` names the free fns and methods that are not executed, for WO5028 at
 * their calls.
 */
export function typeMethod(
  catalog: Catalog,
  owner: CatalogType | undefined,
  method: CatalogMethod,
  bag: DiagnosticBag,
  skipped: SkippedFunctions = new Map(),
): MethodTyping {
  const check: BodyCheck = {
    catalog,
    owner,
    method,
    bag,
    skipped,
    typing: {
      exprTypes: new Map(),
      names: new Map(),
      relations: new Map(),
      objectFields: new Map(),
      methodCalls: new Map(),
      rowIds: new Set(),
      refReads: new Map(),
      lets: new Map(),
      reassigned: new Set(),
      compound: new Map(),
      rowUpdates: new Map(),
      linkTypes: new Map(),
    },
    scope: new Map(),
    variants: unionVariants(catalog),
    fitted: new Set(),
    declared: method.returns ? returnValueType(catalog, method.returns) : undefined,
    bound: new Set<string>([...(owner ? ["self"] : []), ...method.params.map((p) => p.name)]),
    returnedKeys: [],
    updatedReads: 0,
    expr: (e) => typeExpr(check, e),
  };
  if (owner) check.scope.set("self", { binding: { kind: "self" }, type: { k: "row", type: owner.name } });
  for (const p of method.params) {
    check.scope.set(p.name, { binding: { kind: "param", name: p.name }, type: fieldValueType(catalog, p.type) });
  }
  block(check, method.body, 0);
  for (const e of check.typing.exprTypes.keys()) {
    if (e.kind === "ObjectExpr" && !check.fitted.has(e)) bag.report("WO5025", e.span, strayObjectLiteral);
  }
  checkResult(check);
  return check.typing;
}
