// Per-file state shared by the grammar (parser.ts), the top-level segmenter (segment.ts) and the
// readers of raw token runs (raw-forms.ts): the file, its text, where diagnostics go, and how a
// token becomes a Span or a Name.
//
// Owns: token → Span/Name conversion (the lexer tracks only start positions; a token ends at
// startOffset + image length, exclusive),
// readable token descriptions for "Expected X but found Y", doc comments, the checks every
// declared name gets (no hyphens, not a reserved name).

import { EOF, tokenMatcher, type IToken } from "./chevrotain.js";
import type { Name, Span } from "../ast.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { snakeCase } from "../../model/naming.js";
import { SourceFile } from "../source.js";
import { LCurly, NL, RCurly } from "./tokens.js";

/**
 * Names no declaration may take (spec/language.md, "Reserved names"): the members every
 * JavaScript object inherits, plus `prototype`. As a JSON key (`"__proto__"`), an object-literal
 * key or a lookup in a plain object they mean something else than a name, so a field, type or
 * parameter called one of them would break the API rather than name a value.
 */
export const reservedNames: ReadonlySet<string> = new Set([
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "prototype",
  "toLocaleString",
  "toString",
  "valueOf",
]);

export class ParseContext {
  readonly source: SourceFile;
  readonly diags = new DiagnosticBag();
  /** Line → comment text, for `--` comments that are alone on their line. */
  private readonly commentLines = new Map<number, string>();
  /** Where tokens invented by error recovery (no offset) are placed: the current chunk's end. */
  fallbackOffset = 0;
  /**
   * Names built from tokens that error recovery invented. A node that gained a hole is dropped
   * (its error is already reported), so the checker never sees a field of type ''.
   */
  holes = 0;
  /** The first token after the chunk being parsed (undefined at end of file). */
  chunkNext: IToken | undefined;

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.source = new SourceFile(file, text);
  }

  get text(): string {
    return this.source.text;
  }

  addCommentLine(line: number, text: string): void {
    this.commentLines.set(line, text);
  }

  /**
   * The `--` lines directly above the declaration at `span` (no blank line between), joined by
   * "\n". Only a declaration that starts its line has one: in `a: { b: Int, c: Int }` the
   * comment above documents `a`, not the nested `b` and `c` on the same line.
   */
  docAbove(span: { line: number; offset: number }): string | undefined {
    const line = span.line;
    const lineStart = this.source.lineStarts[line - 1];
    if (lineStart === undefined || this.text.slice(lineStart, span.offset).trim() !== "") return undefined;
    const lines: string[] = [];
    for (let l = line - 1; this.commentLines.has(l); l--) lines.unshift(this.commentLines.get(l)!);
    return lines.length > 0 ? lines.join("\n") : undefined;
  }

  /**
   * `expected` as a WO1003 message shows it. A missing `'}'` also says where the `{` it would
   * close was opened: the innermost `{` among `tokens` still open before `offset` (an error at
   * end of file or at the next declaration is otherwise far from the brace).
   */
  expectedText(expected: string, tokens: readonly IToken[], offset: number): string {
    if (expected !== "'}'") return expected;
    const open: IToken[] = [];
    for (const t of tokens) {
      if (!isReal(t)) continue;
      if (t.startOffset >= offset) break;
      if (t.tokenType === LCurly) open.push(t);
      else if (t.tokenType === RCurly) open.pop();
    }
    const at = open.at(-1);
    return at ? `'}' (the '{' opened at line ${at.startLine} is never closed)` : expected;
  }

  spanAt(offset: number, end: number): Span {
    const pos = this.source.positionAt(offset);
    return { file: this.file, offset, end: Math.max(end, offset), line: pos.line, col: pos.col };
  }

  /** Span from the start of `first` to the end of `last` (default: `first`). */
  span(first: IToken | undefined, last: IToken | undefined = first): Span {
    const start = isReal(first) ? first!.startOffset : this.fallbackOffset;
    const end = isReal(last) ? tokenEnd(last!) : isReal(first) ? tokenEnd(first!) : start;
    if (isReal(first)) {
      return {
        file: this.file,
        offset: start,
        end: Math.max(end, start),
        line: first!.startLine!,
        col: first!.startColumn!,
      };
    }
    return this.spanAt(start, Math.max(end, start));
  }

  /**
   * A Name from a token. `what` names the role ("type", "field", …) of a declared name, which
   * must not contain hyphens (spec/language.md, "Identifiers": `order-board` lexes as one
   * word, but a field or type called that would not survive the JSON/SQL/tool-name mapping)
   * nor be one of the reservedNames.
   */
  name(tok: IToken | undefined, what?: string): Name {
    if (!isReal(tok)) this.holes++;
    const text = isReal(tok) ? tok!.image : "";
    const span = this.span(tok);
    // A field keeps its hyphen (the JSON key, the column; generated code quotes it): the
    // language accepts `first-name: Text`. Other declared names stay without one.
    if (what !== undefined && what !== "field" && text.includes("-")) {
      this.diags.report("WO1005", span, { name: text, what, suggestion: text.replace(/-/g, "_") });
    } else if (what !== undefined) {
      // A type's snake_case form is a key too (tool names, schemas.rows, the default table):
      // `__Proto__` becomes `__proto__`.
      const reserved = reservedNames.has(text)
        ? text
        : what === "type" && reservedNames.has(snakeCase(text))
          ? snakeCase(text)
          : undefined;
      if (reserved !== undefined) {
        const why = `JavaScript objects have a built-in member named '${reserved}', which JSON keys and generated code cannot use as a plain name`;
        this.diags.report("WO2022", span, { name: text, what: `${/^[aeio]/.test(what) ? "an" : "a"} ${what}`, why });
      }
    }
    return { text, span };
  }

  /** Source text from the first to the last token, exactly as written. */
  textOf(tokens: IToken[]): string {
    const real = tokens.filter((t) => isReal(t) && !tokenMatcher(t, NL));
    if (real.length === 0) return "";
    return this.text.slice(real[0]!.startOffset, tokenEnd(real[real.length - 1]!));
  }

  /** How a token reads in "but found …". */
  describe(tok: IToken | undefined): string {
    if (!tok || tok.tokenType === EOF || !isReal(tok)) return "end of file";
    if (tokenMatcher(tok, NL)) return "end of line";
    // `//` from C, JavaScript or Rust: a comment in wo starts with `--`.
    if (tok.image === "/" && this.text[tok.startOffset + 1] === "/") return "'//' (a comment in wo starts with '--')";
    const image = tok.image.length > 24 ? `${tok.image.slice(0, 24)}…` : tok.image;
    return `'${image.replace(/\n/g, "\\n")}'`;
  }
}

/** Tokens made up by chevrotain's error recovery have NaN offsets. */
export function isReal(tok: IToken | undefined): boolean {
  return tok !== undefined && tok.tokenType !== EOF && Number.isFinite(tok.startOffset) && !tok.isInsertedInRecovery;
}

/** Exclusive end offset. An unterminated string's image was given a closing quote it lacks. */
export function tokenEnd(tok: IToken): number {
  return Math.min(tok.startOffset + tok.image.length, (tok as { realEnd?: number }).realEnd ?? Infinity);
}
