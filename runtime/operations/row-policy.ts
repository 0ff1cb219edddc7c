// Which rows of a type a caller may read, write or delete: the type's policy lines
// (model/policy.ts) resolved for one principal into one RowCondition. Reads hand it to the store
// as ListQuery.filter (so it is part of the SQL); writes test rows against it. One resolver, so
// every surface answers the same question the same way (spec/policies.md).
//
// The rules, in order:
//   - the owner bypasses policies: every row;
//   - a type without policy lines keeps the rule from before policies: every row for an
//     authenticated caller, none for anonymous (who was refused everything then);
//   - otherwise the OR of the lines that grant the action to this caller (`anyone`; any
//     authenticated caller; `for role R`), each narrowed by its `when`; no such line: no row
//     (default deny);
//   - a top-level `effect: skip-row-filters` block that matches the caller lifts the `when`
//     of reads: every row the caller may read at all.
// A `when` that names a session value the caller has none of (`$session.user` for anonymous)
// grants nothing to that caller, rather than comparing with null.

import type { CatalogType } from "../../model/app.js";
import type {
  BypassPolicy,
  Grantee,
  PolicyAction,
  PolicyExpr,
  PolicyValue,
  RowCondition,
  RowOperand,
} from "../../model/policy.js";
import { isOwner, type Principal } from "../../model/principal.js";

const everyRow: RowCondition = Object.freeze({ kind: "true" });
const noRow: RowCondition = Object.freeze({ kind: "false" });

/** True when the type declares at least one policy line, so default deny applies. */
export function hasPolicies(type: Pick<CatalogType, "policies">): boolean {
  return (type.policies?.length ?? 0) > 0;
}

/** The rows of `type` on which `principal` may perform `action`. */
export function rowCondition(
  type: Pick<CatalogType, "name" | "policies">,
  action: PolicyAction,
  principal: Principal | undefined,
  bypass: readonly BypassPolicy[] = [],
): RowCondition {
  if (isOwner(principal)) return everyRow;
  const who = principal as Principal;
  if (!hasPolicies(type)) return who.via === "anonymous" ? noRow : everyRow;
  const granting = (type.policies ?? []).filter((g) => g.action === action && isGrantee(g.grantee, who));
  if (granting.length === 0) return noRow;
  if (action === "read" && bypass.some((b) => appliesTo(b, type.name) && sessionHolds(b.when, who))) return everyRow;
  const conditions: RowCondition[] = [];
  for (const g of granting) {
    if (g.when === undefined) return everyRow;
    const bound = bindSession(g.when, who);
    if (bound !== undefined) conditions.push(bound);
  }
  if (conditions.length === 0) return noRow;
  return conditions.length === 1 ? conditions[0]! : { kind: "or", items: conditions };
}

/** True when some line grants `action` on `type` to `principal` for at least some rows. */
export function mayAttempt(
  type: Pick<CatalogType, "name" | "policies">,
  action: PolicyAction,
  principal: Principal | undefined,
): boolean {
  return rowCondition(type, action, principal).kind !== "false";
}

function isGrantee(grantee: Grantee, p: Principal): boolean {
  switch (grantee.kind) {
    case "anyone":
      return true;
    case "authenticated":
      return p.via !== "anonymous";
    case "role":
      return p.via !== "anonymous" && p.role === grantee.role;
  }
}

function appliesTo(b: BypassPolicy, typeName: string): boolean {
  return b.appliesTo.includes("*") || b.appliesTo.includes(typeName);
}

/** A bypass block's `when` (session values only); absent: every authenticated caller. */
function sessionHolds(when: PolicyExpr | undefined, p: Principal): boolean {
  if (p.via === "anonymous") return false;
  if (when === undefined) return true;
  const bound = bindSession(when, p);
  return bound !== undefined && evaluateConstant(bound);
}

/** `expr` with `$session.*` replaced by the caller's values; undefined when one of them is absent. */
export function bindSession(expr: PolicyExpr, p: Principal): RowCondition | undefined {
  switch (expr.kind) {
    case "and":
    case "or": {
      const items: RowCondition[] = [];
      for (const item of expr.items) {
        const bound = bindSession(item, p);
        if (bound === undefined) return undefined;
        items.push(bound);
      }
      return { kind: expr.kind, items };
    }
    case "not": {
      const item = bindSession(expr.item, p);
      return item === undefined ? undefined : { kind: "not", item };
    }
    case "truthy": {
      const operand = bindValue(expr.value, p);
      if (operand === undefined) return undefined;
      return operand.kind === "field"
        ? { kind: "truthy", path: operand.path }
        : operand.value === true
          ? everyRow
          : noRow;
    }
    case "compare": {
      const left = bindValue(expr.left, p);
      const right = bindValue(expr.right, p);
      if (left === undefined || right === undefined) return undefined;
      return { kind: "compare", op: expr.op, left, right };
    }
  }
}

function bindValue(v: PolicyValue, p: Principal): RowOperand | undefined {
  switch (v.kind) {
    case "field":
      return { kind: "field", path: v.path };
    case "self":
      return { kind: "field", path: ["id"] };
    case "literal":
      return { kind: "value", value: v.value };
    case "session": {
      const value = v.member === "user" ? p.user : p.role;
      return value === null ? undefined : { kind: "value", value };
    }
  }
}

/** A condition without row fields (a bypass block's), evaluated. Fields count as false. */
function evaluateConstant(c: RowCondition): boolean {
  switch (c.kind) {
    case "true":
      return true;
    case "false":
    case "truthy":
      return false;
    case "and":
      return c.items.every(evaluateConstant);
    case "or":
      return c.items.some(evaluateConstant);
    case "not":
      return !evaluateConstant(c.item);
    case "compare": {
      if (c.left.kind !== "value" || c.right.kind !== "value") return false;
      const [a, b] = [c.left.value, c.right.value] as [never, never];
      switch (c.op) {
        case "==":
          return a === b;
        case "!=":
          return a !== b;
        case "<":
          return a < b;
        case "<=":
          return a <= b;
        case ">":
          return a > b;
        case ">=":
          return a >= b;
      }
    }
  }
}
