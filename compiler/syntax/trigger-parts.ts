// A trigger's `when` and actions, read with the shared grammar once the type body around them
// has been parsed (spec/language.md, "Triggers"). The raw reader (raw-forms.ts `triggerFrom`)
// cuts a trigger at its `when` and `do` words while the parser is inside the type body; the
// pieces are read here, so a condition or an action is the same expression or statement a
// method body would hold, with its own positions, and its syntax errors are reported where
// they are.
//
// `set self.f = e` (or `set f = e`) becomes `update self set f = e`, `call f(a)` the call
// `f(a)`, and any other action must be a write statement (`update T{ … }.f = e`, `insert`,
// `delete`, `link`). `emit "name"(a, b)` keeps the event's name and argument expressions,
// `enqueue "name" with { k: e }` the job's name and its fields.

import type { IToken } from "./chevrotain.js";
import type { EmitAction, EnqueueAction, Expr, Span, Stmt, TypeDecl, UpdateStmt } from "../ast.js";
import type { ParseContext } from "./parse-context.js";
import type { WoParser } from "./parser.js";
import { triggerTokens } from "./raw-forms.js";

/** Reads the `when` and actions of every trigger of `decl`, in place. */
export function readTriggerParts(parser: WoParser, ctx: ParseContext, decl: TypeDecl): void {
  for (const m of decl.members) {
    if (m.kind !== "Trigger") continue;
    const parts = triggerTokens.get(m);
    if (!parts) continue;
    if (parts.when) m.when = readWith(parser, ctx, parts.when, "a condition after 'when'", () => parser.expr());
    m.actions.forEach((action, i) => {
      const tokens = parts.actions[i]!;
      switch (action.verb) {
        case "set":
          action.run = setAction(parser, ctx, tokens);
          return;
        case "call": {
          const stmt = readWith(parser, ctx, tokens.slice(1), "a call after 'call': f(args)", () => parser.exprStmt());
          if (stmt && !isCall(stmt)) report(ctx, tokens[1], "a call after 'call': f(args)");
          else action.run = stmt;
          return;
        }
        case "statement": {
          const stmt = readWith(parser, ctx, tokens, expectedAction, () => parser.statement());
          if (stmt && !isCall(stmt) && !writes.includes(stmt.kind)) report(ctx, tokens[0], expectedAction);
          else action.run = stmt;
          return;
        }
        case "emit": {
          const emit = emitAction(parser, ctx, tokens);
          if (emit) action.emit = emit;
          return;
        }
        case "enqueue": {
          const enqueue = enqueueAction(parser, ctx, tokens);
          if (enqueue) action.enqueue = enqueue;
          return;
        }
        default:
          return;
      }
    });
    triggerTokens.delete(m);
  }
}

const expectedAction = "an action after 'do': set, call, emit, enqueue or a write (update, insert, delete, link)";
const writes: Stmt["kind"][] = ["UpdateStmt", "InsertStmt", "DeleteStmt", "LinkStmt"];

function isCall(s: Stmt): boolean {
  return s.kind === "ExprStmt" && (s.expr.kind === "CallExpr" || s.expr.kind === "MethodCallExpr");
}

/** `set self.f = e` / `set f = e` → `update self set f = e` (the set is checked like that update). */
function setAction(parser: WoParser, ctx: ParseContext, tokens: IToken[]): UpdateStmt | undefined {
  const expected = "'self.field = value' after 'set'";
  const stmt = readWith(parser, ctx, tokens.slice(1), expected, () => parser.exprStmt());
  if (!stmt) return undefined;
  const field = stmt.kind === "AssignStmt" && stmt.op === "=" ? fieldOfSelf(stmt.target) : undefined;
  if (!field || stmt.kind !== "AssignStmt") {
    report(ctx, tokens[1], expected);
    return undefined;
  }
  const at = ctx.span(tokens[0]);
  return {
    kind: "UpdateStmt",
    target: { kind: "NameExpr", name: { text: "self", span: at }, span: at },
    assignments: [{ field, value: stmt.value, span: stmt.span }],
    span: ctx.span(tokens[0], tokens[tokens.length - 1]),
  };
}

/** The string literal after an action's verb (`emit "name"`, `enqueue "name"`), or reported. */
function quotedName(
  parser: WoParser,
  ctx: ParseContext,
  tokens: IToken[],
  expected: string,
): { name: string; nameSpan: Span } | undefined {
  const nameToken = tokens[1];
  const name = nameToken && readWith(parser, ctx, [nameToken], expected, () => parser.expr());
  if (!nameToken || !name || name.kind !== "LiteralExpr" || typeof name.literal.value !== "string") {
    if (!nameToken || name) report(ctx, nameToken, expected);
    return undefined;
  }
  return { name: name.literal.value, nameSpan: name.span };
}

/** `emit "name"` or `emit "name"(a, b)`: the name is a string literal, the arguments expressions. */
function emitAction(parser: WoParser, ctx: ParseContext, tokens: IToken[]): EmitAction | undefined {
  const name = quotedName(parser, ctx, tokens, `an event name after 'emit', in quotes: emit "name"(args)`);
  if (!name) return undefined;
  const rest = tokens.slice(2);
  const args =
    rest.length === 0 ? [] : readWith(parser, ctx, rest, "the event's arguments: (a, b)", () => parser.argList());
  if (!args) return undefined;
  return { ...name, args };
}

/** `enqueue "name"` or `enqueue "name" with { k: e, … }`: the name is a string literal. */
function enqueueAction(parser: WoParser, ctx: ParseContext, tokens: IToken[]): EnqueueAction | undefined {
  const name = quotedName(
    parser,
    ctx,
    tokens,
    `a job name after 'enqueue', in quotes: enqueue "name" with { field: value }`,
  );
  if (!name) return undefined;
  const rest = tokens.slice(2);
  if (rest.length === 0) return { ...name, fields: [] };
  const withExpected = "'with { field: value, … }' after the job's name";
  if (rest[0]!.image !== "with" || rest.length === 1) {
    report(ctx, rest[0], withExpected);
    return undefined;
  }
  const fields = readWith(parser, ctx, rest.slice(1), withExpected, () => parser.expr());
  if (!fields) return undefined;
  if (fields.kind !== "ObjectExpr") {
    report(ctx, rest[1], withExpected);
    return undefined;
  }
  return { ...name, fields: fields.entries };
}

/** `f` or `self.f`: the field a `set` names; undefined for anything else. */
function fieldOfSelf(target: Expr) {
  if (target.kind === "NameExpr" && target.name.text !== "self") return target.name;
  if (target.kind === "MemberExpr" && target.object.kind === "NameExpr" && target.object.name.text === "self")
    return target.member;
  return undefined;
}

/** Runs `rule` over exactly `tokens`; a syntax error (or a token left over) is reported and gives undefined. */
export function readWith<T>(
  parser: WoParser,
  ctx: ParseContext,
  tokens: IToken[],
  expected: string,
  rule: () => T | undefined,
): T | undefined {
  if (tokens.length === 0) return undefined; // raw-forms.ts reported the missing text
  const last = tokens[tokens.length - 1]!;
  ctx.fallbackOffset = last.startOffset + last.image.length;
  parser.input = tokens;
  const before = ctx.diags.items.length;
  let node: T | undefined;
  try {
    node = rule();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    ctx.diags.report("WO1012", ctx.span(tokens[0]), {});
    return undefined;
  }
  const error = parser.errors[0];
  const rest = tokens[parser.nextTokenIndex()];
  if (error || rest) {
    ctx.diags.items.splice(before);
    const atEnd = error !== undefined && Number.isNaN(error.token.startOffset);
    const at = error && !atEnd ? error.token : rest;
    const leftOver = !error || error.name === "NotAllInputParsedException";
    if (atEnd && !rest) {
      const end = ctx.span(last).end;
      ctx.diags.report("WO1003", ctx.spanAt(end, end), { expected: error.message, found: "end of line" });
    } else report(ctx, at ?? last, leftOver ? expected : ctx.expectedText(error.message, tokens, at?.startOffset ?? 0));
    return undefined;
  }
  return ctx.diags.items.length > before ? undefined : node;
}

function report(ctx: ParseContext, at: IToken | undefined, expected: string): void {
  ctx.diags.report("WO1003", ctx.span(at), { expected, found: ctx.describe(at) });
}
