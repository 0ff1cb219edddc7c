// parseSource: one `.wo` file's text → its AST and its syntax diagnostics. Never throws for any
// input (binary garbage, 10 MB, 10,000 nested brackets): every problem becomes a diagnostic.
//
// Pipeline: lex (tokens.ts) → drop comments into SourceFileAst.comments, report lexer errors
// and unterminated strings → collapse NLs → cut into top-level chunks (segment.ts) → parse
// each chunk with the shared parser (parser.ts) or read it by hand (raw-forms.ts).
// Leaves everything about meaning (names, types, services) to compiler/check/.

import type { IToken } from "./chevrotain.js";
import type { Comment, Expr, SourceFileAst, TopItem } from "../ast.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { isReal, ParseContext } from "./parse-context.js";
import { woParser, type WoParser } from "./parser.js";
import { manifestFrom, topPolicyFrom } from "./raw-forms.js";
import { segment, type Chunk } from "./segment.js";
import { readTriggerParts } from "./trigger-parts.js";
import { readRowExprs } from "./row-exprs.js";
import { collapseNewlines, NL, Startup, StringLiteral, Unexpected, UnterminatedString, woLexer } from "./tokens.js";

/** More than this many diagnostics in one file are cut off with WO1010 (garbage input). */
export const MAX_DIAGNOSTICS_PER_FILE = 200;

export function parseSource(file: string, text: string): { ast: SourceFileAst; diagnostics: Diagnostic[] } {
  const ctx = new ParseContext(file, text);
  const ast: SourceFileAst = { kind: "SourceFileAst", file, items: [], comments: [] };
  let lexed: ReturnType<typeof woLexer.tokenize>;
  try {
    lexed = woLexer.tokenize(text);
  } catch (e) {
    // A regex can still run out of stack on pathological input; the file is then unreadable.
    if (!(e instanceof RangeError)) throw e;
    ctx.diags.report("WO1001", ctx.spanAt(0, 1), { char: printable(text[0] ?? "") });
    return { ast, diagnostics: ctx.diags.sorted() };
  }

  // Characters no token can start come from two places (runs of them are Unexpected tokens;
  // a lone `!` or `$` is a chevrotain lexer error); report both in file order, up to the cap.
  const unexpected = [
    ...lexed.errors.map((e) => e.offset),
    ...lexed.tokens.filter((t) => t.tokenType === Unexpected).map((t) => t.startOffset),
  ].sort((a, b) => a - b);
  for (const offset of unexpected.slice(0, MAX_DIAGNOSTICS_PER_FILE + 1)) {
    ctx.diags.report("WO1001", ctx.spanAt(offset, offset + 1), {
      char: printable(String.fromCodePoint(text.codePointAt(offset) ?? 0)),
    });
  }
  for (const c of (lexed.groups.comments ?? []) as IToken[]) {
    const comment: Comment = { text: c.image.slice(2).trim(), span: ctx.span(c) };
    ast.comments.push(comment);
    const lineStart = ctx.source.lineStarts[c.startLine! - 1] ?? 0;
    if (text.slice(lineStart, c.startOffset).trim() === "") ctx.addCommentLine(c.startLine!, comment.text);
  }
  const kept: IToken[] = [];
  for (const t of lexed.tokens) {
    if (t.tokenType === Unexpected) continue;
    if (t.tokenType === UnterminatedString) {
      // Reported at the opening quote (WO1002, spec/diagnostics.md), then parsed as a string
      // running to end of file so the parser does not add a confusing error in front of it.
      ctx.diags.report("WO1002", ctx.spanAt(t.startOffset, t.startOffset + 1), {});
      kept.push({
        ...t,
        tokenType: StringLiteral,
        tokenTypeIdx: StringLiteral.tokenTypeIdx!,
        image: t.image + t.image[0],
        realEnd: t.startOffset + t.image.length,
      } as IToken);
    } else kept.push(t);
  }
  const tokens: (IToken | undefined)[] = collapseNewlines(kept);
  // Only `tokens` may keep tokens alive: segment() forgets them chunk by chunk.
  kept.length = 0;
  lexed.tokens.length = 0;

  for (const chunk of segment(tokens, ctx)) {
    if (ctx.diags.items.length > MAX_DIAGNOSTICS_PER_FILE) break;
    const item = chunk.isTooDeep ? undefined : readChunk(chunk, ctx);
    if (item) ast.items.push(item);
  }

  let diagnostics = ctx.diags.sorted();
  if (diagnostics.length > MAX_DIAGNOSTICS_PER_FILE) {
    diagnostics = diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE);
    ctx.diags.items.length = 0;
    ctx.diags.report("WO1010", diagnostics[diagnostics.length - 1]!.span, { count: String(MAX_DIAGNOSTICS_PER_FILE) });
    diagnostics.push(...ctx.diags.items);
  }
  return { ast, diagnostics };
}

function readChunk(chunk: Chunk, ctx: ParseContext): TopItem | undefined {
  const [first] = chunk.tokens;
  switch (chunk.kind) {
    case "type":
    case "fn":
    case "main":
    case "test":
      return parseChunk(chunk, ctx);
    case "block":
      if (first!.image === "##app") return manifestFrom(ctx, chunk.tokens);
      return {
        kind: "OpaqueBlock",
        marker: ctx.name(first),
        text: ctx.textOf(chunk.tokens.slice(1)),
        span: ctx.span(first, lastReal(chunk.tokens)),
      };
    case "policy":
      return topPolicyFrom(ctx, chunk.tokens, (tokens, next) => parseCondition(ctx, tokens, next ?? chunk.next));
    case "on": {
      const event = chunk.tokens[1];
      if (event?.tokenType !== Startup) {
        ctx.diags.report("WO1003", ctx.span(event ?? first), {
          expected: "'startup' (top-level 'on' only takes 'on startup'; triggers go inside a type)",
          found: ctx.describe(event),
        });
        return undefined;
      }
      return {
        kind: "StartupHook",
        text: ctx.textOf(chunk.tokens.slice(2)),
        span: ctx.span(first, lastReal(chunk.tokens)),
      };
    }
    case "stray":
      ctx.diags.report("WO1003", ctx.span(first), {
        expected: "a declaration (type, class, fn, main, test, policy, on startup or a ##block)",
        found: ctx.describe(first),
      });
      return undefined;
  }
}

/** Runs the grammar over one chunk; its end of input is reported as the token after it. */
function parseChunk(chunk: Chunk, ctx: ParseContext): TopItem | undefined {
  return runRule(chunk, ctx, (parser) => {
    switch (chunk.kind) {
      case "type":
        return parser.typeDecl();
      case "fn":
        return parser.fnDecl();
      case "main":
        return parser.mainBlock();
      default:
        return parser.testBlock();
    }
  });
}

/** A top-level policy's `when:` value (its tokens, then the token after them) as an expression. */
function parseCondition(ctx: ParseContext, tokens: IToken[], next: IToken | undefined): Expr | undefined {
  return runRule({ kind: "policy", tokens, next, isTooDeep: false }, ctx, (parser) => parser.condition());
}

function runRule<N>(chunk: Chunk, ctx: ParseContext, rule: (parser: WoParser) => N | undefined): N | undefined {
  const parser = woParser();
  parser.ctx = ctx;
  ctx.fallbackOffset = chunk.next?.startOffset ?? ctx.text.length;
  ctx.chunkNext = chunk.next;
  parser.input = chunk.tokens;
  const before = ctx.diags.items.length;
  let item: N | undefined;
  try {
    item = rule(parser);
  } catch (e) {
    // Deep unary chains (`- - - … x`) can still exhaust the stack: that is a limit of the input,
    // not a bug, and is reported like too-deep brackets.
    if (!(e instanceof RangeError)) throw e;
    ctx.diags.report("WO1012", ctx.span(chunk.tokens[0]), {});
    return undefined;
  }
  // chevrotain's error is the precise one; a catch-all "Expected a member/statement" that the
  // recovery then produced at the same token is dropped. "Not all input parsed" only follows
  // another error, so it is dropped when there is one.
  const errors = parser.errors.filter((e) => e.name !== "NotAllInputParsedException" || parser.errors.length === 1);
  const spans = errors.map((err) => {
    const found = isReal(err.token) ? err.token : chunk.next;
    return { err, found, span: found ? ctx.span(found) : ctx.spanAt(ctx.text.length, ctx.text.length) };
  });
  const taken = new Set(spans.map((s) => s.span.offset));
  const own = ctx.diags.items.splice(before);
  ctx.diags.items.push(...own.filter((d) => d.code !== "WO1003" || !taken.has(d.span.offset)));
  for (const { err, found, span } of spans) {
    ctx.diags.report("WO1003", span, {
      expected: ctx.expectedText(err.message, chunk.tokens, span.offset),
      found: ctx.describe(found),
    });
  }
  // Leftovers after a complete declaration (only possible after recovery): report once.
  const rest = chunk.tokens.slice(parser.nextTokenIndex()).filter((t) => t.tokenType !== NL);
  if (parser.errors.length === 0 && rest.length > 0) {
    ctx.diags.report("WO1003", ctx.span(rest[0]), { expected: "a new declaration", found: ctx.describe(rest[0]) });
  }
  // The grammar is free again: read the triggers' conditions and actions it skipped.
  const declared = item as TopItem | Expr | undefined;
  if (declared?.kind === "TypeDecl") {
    readTriggerParts(parser, ctx, declared);
    readRowExprs(parser, ctx, declared);
  }
  return item ?? undefined;
}

function lastReal(tokens: IToken[]): IToken | undefined {
  for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i]!.tokenType !== NL) return tokens[i];
  return undefined;
}

function printable(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)
    ? `\\u${code.toString(16).padStart(4, "0")}`
    : ch;
}
