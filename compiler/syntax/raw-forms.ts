// Readers for the constructs the grammar captures as a balanced run of raw tokens and
// interprets by hand: defaults, annotation arguments (`@default`, `@table`), policy lines,
// triggers (spec/language.md, "Types", "Fields and type expressions", "Services, policies,
// triggers"), top-level `policy` blocks, `on startup` and `##app`.
//
// Why by hand: these forms are either open-ended text the runtime does not execute (trigger
// actions, computed defaults use `.*`, `Type{…}` and aggregates the method
// grammar lacks) or tiny key/value shapes whose errors read better when reported per key.
// Each reader gets the tokens and returns an AST node; problems go to ctx.diags.

import { tokenMatcher, type IToken, type TokenType } from "./chevrotain.js";
import type {
  AppManifest,
  DefaultExpr,
  Expr,
  Literal,
  Name,
  PolicyLine,
  Span,
  TableAnnotation,
  TopPolicy,
  Trigger,
  TriggerAction,
} from "../ast.js";
import type { ParseContext } from "./parse-context.js";
import {
  AnyWord,
  Anyone,
  Call,
  Colon,
  Comma,
  Do,
  Emit,
  Enqueue,
  False,
  FloatLiteral,
  For,
  Identifier,
  IntLiteral,
  LBracket,
  LCurly,
  LParen,
  Minus,
  NL,
  Null,
  RBracket,
  RCurly,
  Role,
  RParen,
  Set as SetKw,
  StringLiteral,
  True,
  When,
} from "./tokens.js";

const is = (t: IToken | undefined, type: TokenType) => t !== undefined && tokenMatcher(t, type);
const opens = (t: IToken) => is(t, LCurly) || is(t, LParen) || is(t, LBracket);
const closes = (t: IToken) => is(t, RCurly) || is(t, RParen) || is(t, RBracket);

/** `"a\"b"` → `a"b`: `\n`, `\t` are control characters, any other `\c` is `c` (spec/language.md, "Literals"). */
export function unquote(image: string): string {
  return image.slice(1, -1).replace(/\\([\s\S])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
}

/** A literal when `tokens` is exactly one (a string, number, `-number`, `true`, `false`, `null`). */
export function literalFrom(ctx: ParseContext, tokens: IToken[]): Literal | undefined {
  const [a, b] = tokens;
  if (tokens.length === 2 && is(a, Minus) && (is(b, IntLiteral) || is(b, FloatLiteral))) {
    const inner = literalFrom(ctx, [b!])!;
    return { ...inner, value: -(inner.value as number), span: ctx.span(a, b) };
  }
  if (tokens.length !== 1 || !a) return undefined;
  const span = ctx.span(a);
  if (is(a, StringLiteral)) return { kind: "Literal", value: unquote(a.image), literalType: "string", span };
  if (is(a, IntLiteral)) return { kind: "Literal", value: Number(a.image), literalType: "int", span };
  if (is(a, FloatLiteral)) return { kind: "Literal", value: Number(a.image), literalType: "float", span };
  if (is(a, True)) return { kind: "Literal", value: true, literalType: "bool", span };
  if (is(a, False)) return { kind: "Literal", value: false, literalType: "bool", span };
  if (is(a, Null)) return { kind: "Literal", value: null, literalType: "null", span };
  return undefined;
}

/** Classifies the tokens after `=` (spec/language.md, "Defaults"); anything but a literal, `now`, or a bare word is computed. */
export function defaultFrom(ctx: ParseContext, eq: IToken, tokens: IToken[], next: IToken): DefaultExpr | undefined {
  const real = tokens.filter((t) => !is(t, NL));
  if (real.length === 0) {
    ctx.diags.report("WO1003", ctx.span(eq), { expected: "a default value after '='", found: ctx.describe(next) });
    return undefined;
  }
  const span = ctx.span(real[0], real[real.length - 1]);
  const literal = literalFrom(ctx, real);
  if (literal) return { kind: "LiteralDefault", value: literal, span };
  const [a, b, c] = real;
  const isNow = is(a, Identifier) && a!.image === "now";
  if (isNow && (real.length === 1 || (real.length === 3 && is(b, LParen) && is(c, RParen)))) {
    return { kind: "NowDefault", span };
  }
  if (real.length === 1 && is(a, Identifier)) return { kind: "VariantDefault", name: ctx.name(a, "variant"), span };
  const computed: DefaultExpr = { kind: "ComputedDefault", text: ctx.textOf(real), span };
  rowExprTokens.set(computed, real);
  return computed;
}

/**
 * The tokens of a computed default and of a `@check(…)`'s arguments, read as an expression once
 * the type body around them is parsed (compiler/syntax/row-exprs.ts).
 */
export const rowExprTokens = new WeakMap<object, IToken[]>();

/** Splits tokens at depth-0 commas, dropping newlines at the edges of each part. */
function splitTopLevel(tokens: IToken[]): { part: IToken[]; comma?: IToken }[] {
  const parts: { part: IToken[]; comma?: IToken }[] = [];
  let current: IToken[] = [];
  let depth = 0;
  for (const t of tokens) {
    if (opens(t)) depth++;
    else if (closes(t)) depth--;
    if (depth === 0 && is(t, Comma)) {
      parts.push({ part: current, comma: t });
      current = [];
    } else if (!is(t, NL)) current.push(t);
  }
  parts.push({ part: current });
  return parts;
}

/** `@table(name: "x", index: [a, b], index: [c])` (spec/language.md, "Types"). `at` is the `@`, `close` the `)`. */
export function tableFrom(ctx: ParseContext, at: IToken, args: IToken[], last: IToken): TableAnnotation {
  const table: TableAnnotation = { kind: "TableAnnotation", indexes: [], unknownKeys: [], span: ctx.span(at, last) };
  const parts = splitTopLevel(args);
  parts.forEach(({ part }, i) => {
    // A trailing comma leaves one empty part at the end, which is allowed.
    if (part.length === 0) {
      if (i < parts.length - 1) {
        ctx.diags.report("WO1003", ctx.span(parts[i]!.comma), {
          expected: "a @table argument (name: or index:)",
          found: "','",
        });
      }
      return;
    }
    const [key, colon, ...value] = part;
    if (!is(key, AnyWord) || !is(colon, Colon)) {
      const bad = (is(key, AnyWord) ? colon : key) ?? last;
      ctx.diags.report("WO1003", ctx.span(bad), {
        expected: is(key, AnyWord) ? "':'" : "a @table argument (name: or index:)",
        found: ctx.describe(bad),
      });
      return;
    }
    if (key!.image === "name") {
      if (value.length !== 1 || !is(value[0], StringLiteral)) {
        ctx.diags.report("WO1003", ctx.span(value[0] ?? colon), {
          expected: "a string after 'name:'",
          found: ctx.describe(value[0]),
        });
      } else if (table.storageName) {
        ctx.diags.report("WO1007", ctx.span(key), {});
      } else {
        table.storageName = { value: unquote(value[0]!.image), span: ctx.span(value[0]) };
      }
    } else if (key!.image === "index") {
      const index = indexColumns(ctx, colon!, value);
      if (index) table.indexes.push(index);
    } else {
      table.unknownKeys.push(ctx.name(key));
    }
  });
  return table;
}

/** `[a, b]`: at least one column, no trailing comma (spec/language.md, "Types"). */
function indexColumns(ctx: ParseContext, colon: IToken, value: IToken[]): { columns: Name[]; span: Span } | undefined {
  const expect = (tok: IToken | undefined, expected: string) => {
    ctx.diags.report("WO1003", ctx.span(tok ?? colon), { expected, found: ctx.describe(tok) });
    return undefined;
  };
  if (!is(value[0], LBracket)) return expect(value[0], "'[' after 'index:'");
  const columns: Name[] = [];
  let i = 1;
  for (;;) {
    // Keyword field names are allowed (`role: Text`), so index columns may be keywords too.
    if (!is(value[i], AnyWord)) return expect(value[i], "an index column");
    columns.push(ctx.name(value[i]));
    i++;
    if (is(value[i], Comma)) i++;
    else if (is(value[i], RBracket)) break;
    else return expect(value[i], "',' or ']'");
  }
  if (i !== value.length - 1) return expect(value[i + 1], "',' or ')'");
  return { columns, span: ctx.span(value[0], value[i]) };
}

/**
 * `policy <action> [anyone] [for role R] [when <expr>]` (spec/policies.md); `policy` itself is
 * `kw`, `head` the tokens before `when`, `rest` what follows the condition on its line.
 */
export function policyFrom(
  ctx: ParseContext,
  kw: IToken,
  head: IToken[],
  when: { keyword: IToken; condition: Expr | undefined } | undefined,
  rest: IToken[],
): PolicyLine | undefined {
  const [action] = head;
  if (!is(action, AnyWord)) {
    ctx.diags.report("WO1003", ctx.span(action ?? when?.keyword ?? kw), {
      expected: "a policy action (read, write, delete)",
      found: ctx.describe(action ?? when?.keyword),
    });
    return undefined;
  }
  const lastToken = rest[rest.length - 1] ?? when?.keyword ?? head[head.length - 1] ?? kw;
  const end = Math.max(ctx.span(lastToken).end, when?.condition?.span.end ?? 0);
  const line: PolicyLine = {
    kind: "PolicyLine",
    action: ctx.name(action),
    isAnyone: false,
    span: ctx.spanAt(ctx.span(kw).offset, end),
  };
  let i = 1;
  if (is(head[i], Anyone)) {
    line.isAnyone = true;
    i++;
  }
  if (is(head[i], For)) {
    if (!is(head[i + 1], Role) || !is(head[i + 2], Identifier)) {
      const bad = is(head[i + 1], Role) ? head[i + 2] : head[i + 1];
      ctx.diags.report("WO1003", ctx.span(bad ?? head[i]), {
        expected: is(head[i + 1], Role) ? "a role name" : "'role'",
        found: ctx.describe(bad ?? when?.keyword),
      });
      return undefined;
    }
    line.role = ctx.name(head[i + 2]);
    i += 3;
  }
  if (i < head.length) {
    ctx.diags.report("WO1003", ctx.span(head[i]), {
      expected: "'anyone', 'for role …', 'when …' or end of line",
      found: ctx.describe(head[i]),
    });
    return undefined;
  }
  if (when) {
    if (!when.condition) {
      ctx.diags.report("WO1003", ctx.span(when.keyword), {
        expected: "a condition after 'when'",
        found: ctx.describe(rest[0]),
      });
      return undefined;
    }
    line.when = when.condition;
    line.whenText = ctx.text.slice(when.condition.span.offset, when.condition.span.end);
  }
  if (rest.length > 0) {
    ctx.diags.report("WO1003", ctx.span(rest[0]), {
      expected: when ? "'and', 'or' or end of line after the condition" : "end of line",
      found: ctx.describe(rest[0]),
    });
    return undefined;
  }
  return line;
}

/** `on <event> [when <text>] do <action> { do <action> }` (spec/language.md, "Services, policies, triggers"); `on` itself is `kw`. */
export function triggerFrom(ctx: ParseContext, kw: IToken, tokens: IToken[]): Trigger | undefined {
  const real = tokens.filter((t) => !is(t, NL));
  const [event] = real;
  if (!is(event, AnyWord)) {
    ctx.diags.report("WO1003", ctx.span(event ?? kw), {
      expected: "a trigger event (create, update, delete)",
      found: ctx.describe(event),
    });
    return undefined;
  }
  const trigger: Trigger = {
    kind: "Trigger",
    event: ctx.name(event),
    actions: [],
    span: ctx.span(kw, real[real.length - 1]),
  };
  // Cut the rest at depth-0 `when` / `do`.
  const pieces: { head: IToken; body: IToken[] }[] = [];
  let depth = 0;
  for (const t of real.slice(1)) {
    if (depth === 0 && (is(t, When) || is(t, Do))) pieces.push({ head: t, body: [] });
    else if (pieces.length === 0) {
      ctx.diags.report("WO1003", ctx.span(t), { expected: "'when' or 'do'", found: ctx.describe(t) });
      return undefined;
    } else pieces[pieces.length - 1]!.body.push(t);
    if (opens(t)) depth++;
    else if (closes(t)) depth--;
  }
  for (const [i, piece] of pieces.entries()) {
    const text = ctx.textOf(piece.body);
    if (text === "" || (is(piece.head, When) && i !== 0)) {
      ctx.diags.report("WO1003", ctx.span(piece.body[0] ?? piece.head), {
        expected: text === "" ? `text after '${piece.head.image}'` : "'do'",
        found: ctx.describe(text === "" ? piece.body[0] : piece.head),
      });
      return undefined;
    }
    if (is(piece.head, When)) trigger.whenText = text;
    else
      trigger.actions.push({
        text,
        verb: actionVerb(piece.body[0]!),
        span: ctx.span(piece.body[0], piece.body[piece.body.length - 1]),
      });
  }
  // Read into expressions and statements once the chunk's parse is over (trigger-parts.ts).
  triggerTokens.set(trigger, {
    when: pieces.find((p) => is(p.head, When))?.body,
    actions: pieces.filter((p) => is(p.head, Do)).map((p) => p.body),
  });
  if (trigger.actions.length === 0) {
    const end = ctx.span(real[real.length - 1]).end;
    ctx.diags.report("WO1003", ctx.spanAt(end, end), { expected: "'do' and an action", found: "end of line" });
    return undefined;
  }
  return trigger;
}

/**
 * The tokens of each trigger's `when` and actions, kept until the shared parser is free to read
 * them (it is in the middle of the type body when triggerFrom runs).
 */
export const triggerTokens = new WeakMap<Trigger, { when?: IToken[]; actions: IToken[][] }>();

function actionVerb(first: IToken): TriggerAction["verb"] {
  if (is(first, SetKw)) return "set";
  if (is(first, Call)) return "call";
  if (is(first, Emit)) return "emit";
  if (is(first, Enqueue)) return "enqueue";
  return "statement";
}

/** Splits a chunk into lines (depth-0 NLs), each a non-empty token list. */
function linesOf(tokens: IToken[]): IToken[][] {
  const lines: IToken[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (depth <= 0 && is(t, NL)) lines.push([]);
    else lines[lines.length - 1]!.push(t);
    if (opens(t)) depth++;
    else if (closes(t)) depth--;
  }
  return lines.filter((l) => l.length > 0);
}

/** `key: value` lines; a line that is not `key:` continues the previous entry (##app `styles:`). */
function entriesFrom(ctx: ParseContext, tokens: IToken[], continuation: boolean) {
  const entries: { key: Name; valueText: string; span: Span }[] = [];
  for (const line of linesOf(tokens)) {
    const [key, colon] = line;
    if (is(key, AnyWord) && is(colon, Colon)) {
      entries.push({
        key: ctx.name(key),
        valueText: ctx.textOf(line.slice(2)),
        span: ctx.span(key, line[line.length - 1]),
      });
    } else if (continuation && entries.length > 0) {
      const entry = entries[entries.length - 1]!;
      const text = ctx.textOf(line);
      entry.valueText = entry.valueText === "" ? text : `${entry.valueText}\n${text}`;
      entry.span = ctx.spanAt(entry.span.offset, ctx.span(line[line.length - 1]).end);
    } else {
      ctx.diags.report("WO1003", ctx.span(is(key, AnyWord) ? colon : key), {
        expected: is(key, AnyWord) ? "':'" : "'key: value'",
        found: ctx.describe(is(key, AnyWord) ? colon : key),
      });
    }
  }
  return entries;
}

/**
 * Top-level `policy Name` followed by `key: value` lines (applies_to, when, effect);
 * `parseCondition` reads the `when:` value with the expression grammar (parse.ts).
 */
export function topPolicyFrom(
  ctx: ParseContext,
  tokens: IToken[],
  parseCondition: (tokens: IToken[], next: IToken | undefined) => Expr | undefined,
): TopPolicy | undefined {
  const [kw, name] = tokens;
  if (!is(name, Identifier)) {
    ctx.diags.report("WO1003", ctx.span(name ?? kw), { expected: "a policy name", found: ctx.describe(name) });
    return undefined;
  }
  const top: TopPolicy = {
    kind: "TopPolicy",
    name: ctx.name(name),
    entries: entriesFrom(ctx, tokens.slice(2), false),
    span: ctx.span(kw, tokens[tokens.length - 1]),
  };
  const lines = linesOf(tokens.slice(2));
  const at = lines.findIndex((l) => is(l[0], AnyWord) && l[0]!.image === "when" && is(l[1], Colon));
  if (at >= 0) {
    const value = lines[at]!.slice(2);
    if (value.length > 0) top.when = parseCondition(value, lines[at + 1]?.[0]);
  }
  return top;
}

/** `##app` followed by `key: value` lines; other lines continue the previous entry. */
export function manifestFrom(ctx: ParseContext, tokens: IToken[]): AppManifest {
  return {
    kind: "AppManifest",
    entries: entriesFrom(ctx, tokens.slice(1), true),
    span: ctx.span(tokens[0], tokens[tokens.length - 1]),
  };
}
