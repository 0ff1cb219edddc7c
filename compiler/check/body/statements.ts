// Statements of a body and the flat scope they build: `let` and `for` bindings, which names are
// certainly bound after an `if` or a loop (WO5023), rebinding with `=`, `+=`, `-=` (WO5027),
// conditions, and the statements refused with the reason (WO5025). Writes are in writes.ts,
// `return` in returns.ts.

import type { AssignStmt, BinaryExpr, Block, NameExpr, ObjectExpr, Stmt } from "../../ast.js";
import { didYouMean } from "../did-you-mean.js";
import { describeType, isAssignable, isText, nonNull, unknownType, type ValueType } from "../method-types.js";
import { reportUnexecuted } from "../unexecuted.js";
import type { BodyCheck } from "./context.js";
import { alwaysReturns, checkReturn, stmtAlwaysReturns } from "./returns.js";
import { insert, link, rowTarget, update } from "./writes.js";

export function block(check: BodyCheck, b: Block, depth: number): void {
  for (const s of b.statements) stmt(check, s, depth);
}

function stmt(check: BodyCheck, s: Stmt, depth: number): void {
  const { bag, catalog, method, skipped } = check;
  switch (s.kind) {
    case "LetStmt": {
      // `let o = insert T { … }` binds the row as stored (its id, defaults and all).
      const t = s.value.kind === "InsertStmt" ? insert(check, s.value) : check.expr(s.value);
      bind(check, s.name.text, t, depth === 0);
      check.bound.add(s.name.text);
      return;
    }
    case "InsertStmt":
      insert(check, s);
      return;
    case "ForStmt": {
      const t = check.expr(s.iterable);
      const element: ValueType =
        t.k === "rows"
          ? t.projection
            ? { k: "row", type: t.type, projection: t.projection }
            : { k: "row", type: t.type }
          : t.k === "array"
            ? t.element
            : unknownType;
      if (t.k !== "rows" && t.k !== "array" && t.k !== "unknown") {
        bag.report("WO5026", s.iterable.span, {
          what: "'for … in'",
          expected: "rows or a list",
          found: describeType(t),
        });
      }
      // The loop may run zero times: nothing bound inside it is certainly bound after it.
      const before = check.bound;
      check.bound = new Set(before);
      bind(check, s.variable.text, element, false);
      check.bound.add(s.variable.text);
      block(check, s.body, depth + 1);
      check.bound = before;
      return;
    }
    case "AssignStmt":
      assign(check, s);
      return;
    case "ReturnStmt":
      checkReturn(check, s);
      return;
    case "AssertStmt": {
      check.expr(s.condition);
      const message = s.abortExpr ? check.expr(s.abortExpr) : undefined;
      if (message && s.abortExpr && !isText(message) && message.k !== "unknown") {
        bag.report("WO5026", s.abortExpr.span, {
          what: "An abort message",
          expected: "text",
          found: describeType(message),
        });
      }
      return;
    }
    case "IfStmt": {
      check.expr(s.condition);
      // After the `if`, a name is bound when every branch that carries on past it bound it.
      const before = check.bound;
      const branches: { names: Set<string>; returns: boolean }[] = [];
      check.bound = new Set(before);
      block(check, s.then, depth + 1);
      branches.push({ names: check.bound, returns: alwaysReturns(s.then) });
      check.bound = new Set(before);
      if (s.else?.kind === "Block") block(check, s.else, depth + 1);
      else if (s.else) stmt(check, s.else, depth + 1);
      branches.push({
        names: check.bound,
        returns: s.else ? (s.else.kind === "Block" ? alwaysReturns(s.else) : stmtAlwaysReturns(s.else)) : false,
      });
      const live = branches.filter((b) => !b.returns);
      check.bound =
        live.length === 0 ? before : new Set([...live[0]!.names].filter((n) => live.every((b) => b.names.has(n))));
      return;
    }
    case "UpdateStmt":
      update(check, s);
      return;
    case "DeleteStmt":
      rowTarget(check, s.target, "delete");
      return;
    case "ExprStmt":
      // A call of a free fn for what it does (or `receive(sub)`, which takes a delta); any other
      // value would be thrown away.
      if (s.expr.kind === "MethodCallExpr") {
        check.expr(s.expr);
        return;
      }
      if (s.expr.kind === "CallExpr") {
        check.expr(s.expr);
        const callee = s.expr.callee.text;
        if (
          callee !== "print" &&
          callee !== "receive" &&
          !catalog.functions?.some((f) => f.name === callee) &&
          !skipped.has(callee)
        )
          bag.report("WO5025", s.span, unsupportedStatement(s));
        return;
      }
      bag.report("WO5025", s.span, unsupportedStatement(s));
      return;
    case "ExpectAbortStmt":
      if (method.isTest) {
        // Like an `if` branch: what the block binds is not certainly bound after it.
        const before = check.bound;
        check.bound = new Set(before);
        block(check, s.body, depth + 1);
        check.bound = before;
        return;
      }
      bag.report("WO5025", s.span, unsupportedStatement(s));
      return;
    case "LinkStmt":
      link(check, s);
      return;
    case "AsSessionStmt":
      if (!s.principal && !s.row && s.identity?.text !== "anonymous") {
        reportUnexecuted(bag, s);
        return;
      }
      if (!method.isTest) {
        bag.report("WO5025", s.span, unsupportedStatement(s));
        return;
      }
      if (s.principal) asSession(check, s.principal);
      if (s.row) sessionRow(check, s.row);
      {
        // Like `expect_abort`: what the block binds is not certainly bound after it.
        const before = check.bound;
        check.bound = new Set(before);
        block(check, s.body, depth + 1);
        check.bound = before;
      }
      return;
  }
}

const sessionKeys = ["user", "role"];

/** `{ user: …, role: … }` of `as session`: the user an id or a text, the role a text; either may be left out or null. */
function asSession(check: BodyCheck, principal: ObjectExpr): void {
  const seen = new Set<string>();
  for (const entry of principal.entries) {
    const key = entry.name.text;
    const t = check.expr(entry.value);
    if (!sessionKeys.includes(key) || seen.has(key)) {
      check.bag.report("WO5032", entry.name.span, {
        name: key,
        hint: seen.has(key) ? " It is given twice." : didYouMean(key, sessionKeys),
      });
      continue;
    }
    seen.add(key);
    const fits = t.k === "unknown" || t.k === "null" || isText(t) || (key === "user" && t.k === "int");
    if (!fits)
      check.bag.report("WO5026", entry.value.span, {
        what: `The session's ${key}`,
        expected: key === "user" ? "an id or a text" : "a text",
        found: describeType(t),
      });
  }
}

/** `as session $a`: `a` must be a row (its id is the user, its `role` field, if any, the role). */
function sessionRow(check: BodyCheck, row: NameExpr): void {
  const t = check.expr(row);
  if (t.k !== "row" && t.k !== "unknown")
    check.bag.report("WO5026", row.span, { what: "The session's caller", expected: "a row", found: describeType(t) });
}

function unsupportedStatement(s: Stmt): { what: string; why: string } {
  switch (s.kind) {
    case "ForStmt":
      return { what: "'for … in …'", why: "loops are not compiled yet" };
    case "AssignStmt":
      return { what: `Assignment '${s.op}'`, why: "rebind with 'let', or change a row with 'update … set'" };
    case "ExprStmt":
      return {
        what: "A call on its own line",
        why: "its value would be discarded; calls of methods and functions are not compiled yet",
      };
    case "AsSessionStmt":
      return { what: "'as session'", why: "it belongs in a 'test' block" };
    default:
      return { what: "'expect_abort'", why: "it belongs in a 'test' block" };
  }
}

/** Record a `let` (or loop variable) binding of `name` to a value of type `t`. */
function bind(check: BodyCheck, name: string, t: ValueType, isTopLevel: boolean): void {
  const { scope, typing } = check;
  const prior = typing.lets.get(name);
  typing.lets.set(name, {
    count: (prior?.count ?? 0) + 1,
    isTopLevelOnly: (prior?.isTopLevelOnly ?? true) && isTopLevel,
    type: prior && !sameShape(prior.type, t) ? unknownType : t,
  });
  if (scope.get(name)?.binding.kind === "param") typing.reassigned.add(name);
  scope.set(name, { binding: { kind: "let", name }, type: t });
}

/** `x = e`, `x += e`, `x -= e` on a parameter or `let` name; fields change through `update`. */
function assign(check: BodyCheck, s: AssignStmt): void {
  const { bag, scope, typing } = check;
  if (s.target.kind !== "NameExpr" || s.target.name.text === "self") {
    check.expr(s.value);
    const what = s.target.kind === "NameExpr" ? "Assignment to 'self'" : "Assignment to a field";
    bag.report("WO5025", s.target.span, { what, why: "change a row with 'update … set f = …'" });
    return;
  }
  const name = s.target.name.text;
  const held = check.expr(s.target);
  if (held.k === "unknown" && !scope.has(name)) {
    check.expr(s.value);
    return;
  }
  let value: ValueType;
  if (s.op === "=") {
    value = check.expr(s.value);
  } else {
    const arithmetic: BinaryExpr = {
      kind: "BinaryExpr",
      op: s.op === "+=" ? "+" : "-",
      left: s.target,
      right: s.value,
      span: s.span,
    };
    typing.compound.set(s, arithmetic);
    value = check.expr(arithmetic);
  }
  if (value.k !== "unknown" && !isAssignable(value, held)) {
    bag.report("WO5027", s.value.span, { name, expected: describeType(held), found: describeType(value) });
  }
  typing.reassigned.add(name);
}

function sameShape(a: ValueType, b: ValueType): boolean {
  // Int and Money rebind each other freely: both are integers at run time.
  if (a.k === "int" && b.k === "int") return true;
  return a.k === b.k && describeType(nonNull(a)) === describeType(nonNull(b));
}
