// What a checked method body can do, read from its AST: which statements it holds (at any
// depth of `if`/`else` and `for`) and whether it does integer arithmetic. The method emitter, the MCP tool
// annotations and the OpenAPI statuses all ask; one reading keeps their answers in agreement.

import type { Block, Expr, Stmt } from "../ast.js";
import type { Catalog } from "../catalog.js";

export const writeStatements: Stmt["kind"][] = ["InsertStmt", "UpdateStmt", "DeleteStmt", "LinkStmt"];

/**
 * Whether any statement of `block`, in any branch or loop, is one of `kinds` (`let o = insert …`
 * counts as an insert). With `catalog`, the bodies of the free fns and methods it calls count
 * too: a method that calls a fn or a method which writes, writes.
 */
export function blockHas(block: Block | undefined, kinds: Stmt["kind"][], catalog?: Catalog): boolean {
  return walk(block, kinds, catalog, new Set());
}

function walk(
  block: Block | undefined,
  kinds: Stmt["kind"][],
  catalog: Catalog | undefined,
  visiting: Set<Block>,
): boolean {
  if (!block || visiting.has(block)) return false;
  visiting.add(block);
  const calls = (e: Expr | undefined): boolean => {
    if (!e || !catalog) return false;
    switch (e.kind) {
      case "CallExpr": {
        const fn = catalog.functions?.find((f) => f.name === e.callee.text);
        return (fn !== undefined && walk(fn.body, kinds, catalog, visiting)) || e.args.some(calls);
      }
      case "MethodCallExpr": {
        // Read without types: any method of that name may be the callee, so any that writes counts.
        const methods = catalog.types.flatMap((t) => t.methods.filter((m) => m.name === e.method.text));
        return methods.some((m) => walk(m.body, kinds, catalog, visiting)) || calls(e.object) || e.args.some(calls);
      }
      default:
        return subexpressions(e).some(calls);
    }
  };
  const stmt = (s: Stmt): boolean => {
    if (kinds.includes(s.kind)) return true;
    switch (s.kind) {
      case "LetStmt":
        return s.value.kind === "InsertStmt"
          ? kinds.includes("InsertStmt") || s.value.entries.some((x) => calls(x.value))
          : calls(s.value);
      case "InsertStmt":
        return s.entries.some((x) => calls(x.value));
      case "UpdateStmt":
        return s.assignments.some((a) => calls(a.value));
      case "ReturnStmt":
        return calls(s.value);
      case "AssertStmt":
        return calls(s.condition) || calls(s.abortExpr);
      case "IfStmt":
        return (
          calls(s.condition) ||
          s.then.statements.some(stmt) ||
          (s.else ? (s.else.kind === "Block" ? s.else.statements.some(stmt) : stmt(s.else)) : false)
        );
      case "ForStmt":
        return calls(s.iterable) || s.body.statements.some(stmt);
      case "ExpectAbortStmt":
        return s.body.statements.some(stmt);
      case "AsSessionStmt":
        return (s.principal ? calls(s.principal) : false) || s.body.statements.some(stmt);
      case "AssignStmt":
        return calls(s.value);
      case "ExprStmt":
        return calls(s.expr);
      case "LinkStmt":
        return calls(s.from) || calls(s.to) || s.entries.some((x) => calls(x.value));
      default:
        return false;
    }
  };
  const found = block.statements.some(stmt);
  visiting.delete(block);
  return found;
}

/** The expressions `e` is made of, one level down: the one place that knows each expression's shape. */
export function subexpressions(e: Expr): Expr[] {
  switch (e.kind) {
    case "CallExpr":
      return e.args;
    case "MethodCallExpr":
      return [e.object, ...e.args];
    case "ObjectExpr":
      return e.entries.map((x) => x.value);
    case "ListExpr":
      return e.items;
    case "BinaryExpr":
      return [e.left, e.right];
    case "UnaryExpr":
      return [e.operand];
    case "MemberExpr":
      return [e.object];
    case "IndexExpr":
      return [e.object, e.index];
    case "SelectExpr":
      return e.predicates.map((p) => p.value);
    case "LiveExpr":
      return [e.query];
    case "EachExpr":
      return [e.list];
    default:
      return [];
  }
}

/** Whether `test` holds for `e` or any expression inside it. */
export function someExpression(e: Expr, test: (x: Expr) => boolean): boolean {
  return test(e) || subexpressions(e).some((x) => someExpression(x, test));
}

const arithmetic = new Set(["+", "-", "*", "/", "%"]);

/** Whether any expression in `node` uses an arithmetic operator (integer results may overflow: a 409). */
export function usesArithmetic(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(usesArithmetic);
  if (node === null || typeof node !== "object") return false;
  const { kind, op } = node as { kind?: unknown; op?: unknown };
  if ((kind === "BinaryExpr" || kind === "UnaryExpr") && typeof op === "string" && arithmetic.has(op)) return true;
  return Object.values(node).some((value) => typeof value === "object" && usesArithmetic(value));
}
