// `list.*` in an aggregate (spec/language.md, "Aggregates over list items"): inside the first
// argument of `sum`, `count`, `len` or `contains`, `xs.*` stands for each element of the list
// `xs` in turn (a list field, a path to one, or a relation): the argument is evaluated once per
// element and the aggregate takes the values, so `sum(lines.*.qty * lines.*.price)` adds each
// line's qty × price. Every `.*` of one argument goes over the same list (WO5033 otherwise).

import type { EachExpr, Expr } from "../../ast.js";
import { describeType, unknownType, type ValueType } from "../method-types.js";
import type { BodyCheck } from "./context.js";

/** The built-ins whose first argument may go over a list's elements with `.*`. */
export const eachAggregates: ReadonlySet<string> = new Set(["sum", "count", "len", "contains"]);

/** Every `xs.*` inside `e`, in source order. */
export function eachesIn(e: Expr): EachExpr[] {
  const out: EachExpr[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    if ((node as { kind?: unknown }).kind === "EachExpr") out.push(node as EachExpr);
    for (const [key, value] of Object.entries(node)) if (key !== "span" && typeof value === "object") visit(value);
  };
  visit(e);
  return out;
}

/** `a.b.c` for a path of names (what `.*` follows); undefined for anything else. */
export function pathOf(e: Expr): string | undefined {
  if (e.kind === "NameExpr") return e.name.text;
  if (e.kind === "MemberExpr") {
    const head = pathOf(e.object);
    return head === undefined ? undefined : `${head}.${e.member.text}`;
  }
  return undefined;
}

/**
 * Types an aggregate's first argument that holds `.*`: the list of its values, one per element
 * of the list the `.*` follow. Undefined when `arg` has none (the caller types it as usual).
 */
export function typeEachArgument(check: BodyCheck, arg: Expr): ValueType | undefined {
  const eaches = eachesIn(arg);
  if (eaches.length === 0) return undefined;
  const first = eaches[0]!;
  const bad = (at: EachExpr, why: string) => {
    check.bag.report("WO5033", at.span, { why });
    return unknownType;
  };
  if (check.each !== undefined) return bad(first, "inside an aggregate that already goes over a list's items");
  const path = pathOf(first.list);
  if (path === undefined) return bad(first, "follows a path to a list (a list field, `self.lines`, `order.items`)");
  const list = check.expr(first.list);
  const element: ValueType | undefined =
    list.k === "array"
      ? list.element
      : list.k === "rows"
        ? list.projection
          ? { k: "row", type: list.type, projection: list.projection }
          : { k: "row", type: list.type }
        : list.k === "unknown"
          ? unknownType
          : undefined;
  if (element === undefined) return bad(first, `follows a list, but '${path}' is ${describeType(list)}`);
  check.each = { path, element };
  try {
    return { k: "array", element: check.expr(arg) };
  } finally {
    check.each = undefined;
  }
}

/** `xs.*` itself: the element of the list its aggregate goes over. */
export function typeEach(check: BodyCheck, e: EachExpr): ValueType {
  const path = pathOf(e.list);
  if (check.each === undefined) {
    check.bag.report("WO5033", e.span, {
      why: "is read only in the first argument of an aggregate (sum, count, len, contains), e.g. `sum(lines.*.qty * lines.*.price)`",
    });
    return unknownType;
  }
  if (path !== check.each.path) {
    check.bag.report("WO5033", e.span, {
      why: `goes over '${path ?? "an expression"}' where this aggregate goes over '${check.each.path}': one argument goes over one list`,
    });
    return unknownType;
  }
  return check.each.element;
}
