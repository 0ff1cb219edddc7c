// Which rows a writing method reads, as far as its source says: whether it reads by id only
// (then the store may run it beside other writers, WriteOptions.byKey in model/store.ts) and
// which of those rows are known before the body runs (`self`, and every `select T { id == p }`
// of a parameter `p` the body never reassigns), so the store locks them first, in one order
// for every writer: two opposite transfers then queue on the same first row instead of
// deadlocking. Anything the source cannot bound keeps the method an ordinary write that runs
// alone: a read by another condition (a phantom row could change what it saw), a relation or
// backlink read, a call of a fn or method (their reads are not looked at), a delete (it counts
// referrers), a link, a live query.

import type { Block, Expr, SelectExpr } from "../ast.js";
import type { Catalog, CatalogMethod, CatalogType } from "../catalog.js";
import type { typeMethod } from "../check/methods.js";
import { findType } from "../check/method-types.js";
import { jsName } from "./method-expr.js";
import { jsString } from "./js-literal.js";

/** `[table, id expression]` pairs (TypeScript source) of the rows to lock first, or undefined when not keyed. */
export function keyedLocks(
  catalog: Catalog,
  owner: CatalogType,
  method: CatalogMethod,
  typing: ReturnType<typeof typeMethod>,
): string[] | undefined {
  if (typing.relations.size > 0) return undefined;
  const params = new Set(method.params.map((p) => p.name).filter((n) => !typing.reassigned.has(n)));
  const locks = [`[${jsString(owner.table)}, args.id]`];
  let isKeyed = true;
  const visit = (node: unknown): void => {
    if (!isKeyed || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    const kind = (node as { kind?: unknown }).kind;
    if (kind === "MethodCallExpr" || kind === "LiveExpr" || kind === "DeleteStmt" || kind === "LinkStmt") {
      isKeyed = false;
      return;
    }
    if (
      kind === "CallExpr" &&
      catalog.functions?.some((f) => f.name === (node as Expr & { kind: "CallExpr" }).callee.text)
    ) {
      isKeyed = false;
      return;
    }
    if (kind === "SelectExpr") {
      const s = node as SelectExpr;
      const [p, ...rest] = s.predicates;
      if (p === undefined || rest.length > 0 || p.column.text !== "id" || p.op !== "==") {
        isKeyed = false;
        return;
      }
      const table = findType(catalog, s.type.text)?.table;
      if (table && p.value.kind === "NameExpr" && params.has(p.value.name.text))
        locks.push(`[${jsString(table)}, ${jsName(p.value.name.text)}]`);
    }
    for (const value of Object.values(node)) if (typeof value === "object") visit(value);
  };
  visit(method.body satisfies Block | undefined);
  return isKeyed ? [...new Set(locks)] : undefined;
}
