// What a checked method body can do, read from its AST: which statements it holds (at any
// depth of `if`/`else` and `for`) and whether it does integer arithmetic. The method emitter, the MCP tool
// annotations and the OpenAPI statuses all ask; one reading keeps their answers in agreement.

import type { Block, Stmt } from "../ast.js";

export const writeStatements: Stmt["kind"][] = ["InsertStmt", "UpdateStmt", "DeleteStmt"];

/** Whether any statement of `block`, in any branch, is one of `kinds`. */
export function blockHas(block: Block | undefined, kinds: Stmt["kind"][]): boolean {
  return (block?.statements ?? []).some((stmt) => stmtHas(stmt, kinds));
}

function stmtHas(stmt: Stmt, kinds: Stmt["kind"][]): boolean {
  if (kinds.includes(stmt.kind)) return true;
  // `let o = insert …` is an insert too; a loop body is part of the body.
  if (stmt.kind === "LetStmt") return stmt.value.kind === "InsertStmt" && kinds.includes("InsertStmt");
  if (stmt.kind === "ForStmt") return blockHas(stmt.body, kinds);
  if (stmt.kind !== "IfStmt") return false;
  if (blockHas(stmt.then, kinds)) return true;
  if (!stmt.else) return false;
  return stmt.else.kind === "Block" ? blockHas(stmt.else, kinds) : stmtHas(stmt.else, kinds);
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
