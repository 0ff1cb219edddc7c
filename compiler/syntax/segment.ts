// Cuts a file's token list into top-level chunks, one per declaration, before the grammar runs.
//
// Why: each chunk is then parsed on its own, so a syntax error in one declaration never eats
// the next one (one run reports every error), and opaque regions (`##ui` blocks, top-level
// policies, `on startup`) never reach the grammar. The rules follow the reference skipper
// (spec/language.md, "Top-level items"):
//
// - `type`/`class` (with leading `@annotations`), `fn`, `main`, `test` chunks end after the `}`
//   that closes their body. A line that starts with `type`, `class` or `##` (not followed by
//   `:`, which would be a field called `type`) always starts a new chunk, even inside an
//   unclosed body: the missing `}` is then reported at that token, where the reader sees it.
//   Inside `fn`/`main`/`test` bodies, `fn`, `main`, `test`, `policy`, `on` and `@` at the start
//   of a line do the same (no statement starts with them).
// - `##marker` blocks, `policy Name` blocks and `on startup` run until the next line that
//   starts a top-level item.
// - Anything else is one stray chunk up to that point, reported once.
//
// Also owns the nesting cap: a chunk nested deeper than MAX_DEPTH brackets is reported (WO1004)
// and not parsed, so 10,000 `[` never reach a recursive-descent parser.

import { tokenMatcher, type IToken, type TokenType } from "./chevrotain.js";
import type { ParseContext } from "./parse-context.js";
import * as T from "./tokens.js";

export const MAX_DEPTH = 100;

export type ChunkKind = "type" | "fn" | "main" | "test" | "block" | "policy" | "on" | "stray";

export interface Chunk {
  kind: ChunkKind;
  tokens: IToken[];
  /** The first token after the chunk (undefined at end of file): what "found" means at its end. */
  next: IToken | undefined;
  /** True when nesting was too deep; the chunk was reported and must not be parsed. */
  isTooDeep: boolean;
}

const is = (t: IToken | undefined, type: TokenType) => t !== undefined && tokenMatcher(t, type);

const itemStarts: TokenType[] = [T.Type, T.Class, T.BlockMarker, T.Fn, T.Main, T.Test, T.Policy, T.On, T.At];
const kindOf = (t: IToken): ChunkKind => {
  if (is(t, T.Type) || is(t, T.Class) || is(t, T.At)) return "type";
  if (is(t, T.Fn)) return "fn";
  if (is(t, T.Main)) return "main";
  if (is(t, T.Test)) return "test";
  if (is(t, T.BlockMarker)) return "block";
  if (is(t, T.Policy)) return "policy";
  if (is(t, T.On)) return "on";
  return "stray";
};

/**
 * Yields chunks one at a time and forgets each chunk's tokens once the caller asks for the next
 * one (`tokens` is cleared behind it), so a 10 MB file never holds all its tokens and all its
 * AST at once. Only the token before the current position is ever looked back at.
 */
export function* segment(tokens: (IToken | undefined)[], ctx: ParseContext): Generator<Chunk> {
  let forgetFrom = 0;
  const emit = (chunk: Chunk, end: number) => {
    for (let j = forgetFrom; j < end - 1; j++) tokens[j] = undefined;
    forgetFrom = Math.max(end - 1, 0);
    return chunk;
  };
  const atLineStart = (i: number) => i === 0 || tokens[i - 1]?.tokenType === T.NL;
  /** A line-start token from `set` that is not a field name (`type: Text`). */
  const startsItem = (i: number, set: TokenType[]) =>
    atLineStart(i) && set.some((s) => is(tokens[i], s)) && !is(tokens[i + 1], T.Colon);

  let i = 0;
  while (i < tokens.length) {
    if (is(tokens[i], T.NL)) {
      i++;
      continue;
    }
    const start = i;
    const kind = kindOf(tokens[i]!);
    let depth = 0;
    let isTooDeep = false;
    let hasBody = false;
    // Which line-start tokens end this chunk even at depth > 0.
    const hardStops = kind === "type" ? [T.Type, T.Class, T.BlockMarker, T.Main, T.Test] : itemStarts;
    i++;
    if (kind === "type" && is(tokens[start], T.At)) {
      // `@ann(...)` lines before `type`/`class` belong to the declaration.
      // (`type` inside the parentheses, as in `@table(index: [type])`, is a column name.)
      // An unclosed `(` still ends at a line that starts with `type`/`class`.
      for (; i < tokens.length; i++) {
        const isDecl = is(tokens[i], T.Type) || is(tokens[i], T.Class);
        if (isDecl && (depth === 0 || startsItem(i, [T.Type, T.Class]))) break;
        if (depth === 0 && (is(tokens[i], T.LCurly) || (startsItem(i, itemStarts) && !is(tokens[i], T.At)))) break;
        depth = Math.max(0, depth + delta(tokens[i]!));
      }
      depth = 0;
      if (!is(tokens[i], T.Type) && !is(tokens[i], T.Class)) {
        // Annotations not followed by a declaration: the parser reports what it expected.
        yield emit({ kind, tokens: tokens.slice(start, i) as IToken[], next: tokens[i], isTooDeep }, start);
        continue;
      }
    }
    const keywordAt = is(tokens[start], T.At) ? i : start;
    if (keywordAt === i) i++;
    for (; i < tokens.length; i++) {
      const t = tokens[i]!;
      const bracketed = kind === "type" || kind === "fn" || kind === "main" || kind === "test";
      if (bracketed ? startsItem(i, hardStops) : depth === 0 && startsItem(i, itemStarts)) break;
      if (kind === "policy" && depth === 0 && atLineStart(i) && !(is(t, T.AnyWord) && is(tokens[i + 1], T.Colon)))
        break;
      const d = delta(t);
      depth += d;
      if (depth > MAX_DEPTH && !isTooDeep) {
        isTooDeep = true;
        ctx.diags.report("WO1004", ctx.span(t), { max: String(MAX_DEPTH) });
      }
      if (d > 0 && is(t, T.LCurly)) hasBody = true;
      if (depth <= 0 && d < 0) {
        depth = 0;
        if (bracketed && hasBody) {
          i++;
          break;
        }
        if (kind === "stray") continue;
      }
    }
    yield emit({ kind, tokens: tokens.slice(start, i) as IToken[], next: tokens[i], isTooDeep }, start);
  }
}

// Brackets are never categories, so identity comparison is enough (this runs for every token).
function delta(t: IToken): number {
  const type = t.tokenType;
  if (type === T.LCurly || type === T.LParen || type === T.LBracket) return 1;
  if (type === T.RCurly || type === T.RParen || type === T.RBracket) return -1;
  return 0;
}
