// Completion from the tokens before the cursor. A half-typed line rarely parses, so the
// context comes from the lexer (compiler/syntax/tokens.ts) run over the text up to the cursor,
// and the names offered come from the last check of the app (analysis.ts):
//
//   type position (`name: |`, `ref |`, `multi |`, `via |`, `backlink |`, `[|`, `-> |`,
//   `link |`, `insert |`, `select |`, a parameter's type)     → scalars and declared types
//   `expose |` / `expose list, |`                              → built-in ops, the class's methods
//   `self.|`, `backlink T.|`, `@table(index: [|`,
//   `insert T { |`, `select T { |`, `update … set |`           → field names of that type
//
// Nothing is offered inside comments and strings.

import { tokenMatcher, type IToken, type TokenType } from "../syntax/chevrotain.js";
import { CompletionItemKind, type CompletionItem } from "vscode-languageserver/node";
import type { SourceFileAst, TypeDecl } from "../ast.js";
import { crudOps, isRestOnlyOp, restOnlyOps } from "../catalog.js";
import { scalarNames } from "../../model/scalars.js";
import {
  AnyWord,
  Arrow,
  Backlink,
  Class,
  Colon,
  Comma,
  Expose,
  Fn,
  Identifier,
  LBracket,
  LCurly,
  Link,
  LParen,
  Multi,
  NL,
  RBracket,
  RCurly,
  Ref,
  RParen,
  Set as SetKeyword,
  StringLiteral,
  Type,
  UnterminatedString,
  Via,
  woLexer,
  Dot,
} from "../syntax/tokens.js";
import type { AppAnalysis } from "./analysis.js";
import { fieldsOf, methodsOf } from "./symbols.js";

/** Completions at `offset` of `text`, the current text of the app-relative file `file`. */
export function completionsAt(text: string, offset: number, file: string, analysis: AppAnalysis): CompletionItem[] {
  const before = text.slice(0, offset);
  const lexed = woLexer.tokenize(before);
  const lastComment = (lexed.groups.comments ?? []).at(-1);
  if (lastComment && endOf(lastComment) === offset) return [];
  const tokens = lexed.tokens;
  const last = tokens.at(-1);
  if (last && (is(last, StringLiteral) || is(last, UnterminatedString)) && endOf(last) === offset) return [];
  // The word being typed is replaced by the client; the context is what precedes it.
  if (last && is(last, AnyWord) && endOf(last) === offset) tokens.pop();

  const ast = analysis.files.get(file)?.ast;
  const ctx = new TokenContext(tokens);
  const enclosing = () => (ast ? enclosingType(ast, offset) : undefined);
  const fieldsOfType = (decl: TypeDecl | undefined) => (decl ? fieldItems(decl, analysis) : []);

  const exposed = ctx.exposeList();
  if (exposed) return exposeItems(enclosing(), exposed);
  // Before type positions: `index: [` looks like the start of an array type `tags: [`.
  const owner = ctx.fieldOwner();
  if (owner === "self") return fieldsOfType(enclosing());
  if (owner === "next-type") return fieldsOfType(ast ? nextType(ast, offset) : undefined);
  if (owner) return fieldsOfType(analysis.types.get(owner));
  if (ctx.isTypePosition()) return typeItems(analysis);
  return [];
}

/** Reads the tokens before the cursor from the end. */
class TokenContext {
  private readonly t: IToken[];
  /** Index of the innermost bracket still open at the cursor, or -1. */
  private readonly open: number;

  constructor(tokens: IToken[]) {
    this.t = tokens;
    const stack: number[] = [];
    tokens.forEach((tok, i) => {
      if (is(tok, LParen) || is(tok, LBracket) || is(tok, LCurly)) stack.push(i);
      else if (is(tok, RParen) || is(tok, RBracket) || is(tok, RCurly)) stack.pop();
    });
    this.open = stack.at(-1) ?? -1;
  }

  /** The i-th token back from the cursor (1 = the one just before it). */
  private back(i: number): IToken | undefined {
    return this.t[this.t.length - i];
  }

  private backIs(i: number, type: TokenType): boolean {
    const tok = this.back(i);
    return tok !== undefined && is(tok, type);
  }

  private backWord(i: number, word: string): boolean {
    const tok = this.back(i);
    return tok !== undefined && is(tok, Identifier) && tok.image === word;
  }

  /** On a `service … expose a, b, |` line: the entries written so far; else undefined. */
  exposeList(): string[] | undefined {
    const entries: string[] = [];
    for (let i = 1; ; i++) {
      const tok = this.back(i);
      if (!tok || is(tok, NL)) return undefined;
      if (is(tok, Expose)) return i === 1 || this.backIs(1, Comma) ? entries : undefined;
      if (is(tok, AnyWord)) entries.push(tok.image);
      else if (!is(tok, Comma)) return undefined;
    }
  }

  isTypePosition(): boolean {
    if ([Ref, Multi, Backlink, Via, Link].some((k) => this.backIs(1, k))) return true;
    if (this.backWord(1, "insert") || this.backWord(1, "select")) return true;
    // `fn m() -> |` and `link A -> |`
    if (this.backIs(1, Arrow)) return this.backIs(2, RParen) || this.backIs(3, Link);
    // `tags: [|` and `fn m() -> [|`
    if (this.backIs(1, LBracket)) return this.backIs(2, Colon) || this.backIs(2, Arrow);
    // `name: |` as a field of a type body or inline struct, or a parameter of a fn
    if (this.backIs(1, Colon) && this.backIs(2, AnyWord)) {
      const lead = this.back(3);
      const startsEntry = !lead || is(lead, NL) || is(lead, Comma) || is(lead, LCurly) || is(lead, LParen);
      return startsEntry && this.open !== -1 && (this.opensTypeBody(this.open) || this.opensParams(this.open));
    }
    return false;
  }

  /**
   * Whose field names go here: a type name, "self" (the type around the cursor), "next-type"
   * (the type an annotation above it belongs to), or undefined when no field is expected.
   */
  fieldOwner(): string | undefined {
    if (this.backIs(1, Dot)) {
      const object = this.back(2);
      if (object && is(object, Identifier) && object.image === "self") return "self";
      if (object && is(object, Identifier) && this.backIs(3, Backlink)) return object.image;
      return undefined;
    }
    const open = this.t[this.open];
    const entryStart = this.backIs(1, NL) || this.backIs(1, Comma) || (open !== undefined && this.back(1) === open);
    // `@table(index: [a, |`
    if (open && is(open, LBracket) && entryStart && this.t[this.open - 1] && is(this.t[this.open - 1]!, Colon)) {
      const key = this.t[this.open - 2];
      const paren = this.t[this.open - 3];
      if (key?.image === "index" && paren && is(paren, LParen) && this.t[this.open - 4]?.image === "table")
        return "next-type";
    }
    // `insert T { |`, `select T { a == 1, |`
    if (open && is(open, LCurly) && entryStart) {
      const type = this.t[this.open - 1];
      const verb = this.t[this.open - 2];
      if (type && is(type, Identifier) && verb && ["insert", "select", "update", "delete"].includes(verb.image))
        return type.image;
    }
    // `update self set a = 1, |` / `update T { … } set |`
    for (let i = 1; ; i++) {
      const tok = this.back(i);
      if (!tok || is(tok, NL)) return undefined;
      if (is(tok, SetKeyword)) {
        if (i !== 1 && !this.backIs(1, Comma)) return undefined;
        const target = this.back(i + 1);
        if (target && target.image === "self") return "self";
        if (target && is(target, RCurly)) return this.typeBeforeBraceEndingAt(this.t.length - i - 1);
        return undefined;
      }
    }
  }

  /** `type T {`, `class T {`, `type L link A -> B {` (newlines before `{` allowed), or `field: {`. */
  private opensTypeBody(i: number): boolean {
    let j = i - 1;
    while (j >= 0 && is(this.t[j]!, NL)) j--;
    const a = this.t[j];
    if (!a) return false;
    if (is(a, Colon)) return true;
    if (!is(a, Identifier)) return false;
    const b = this.t[j - 1];
    return (
      (b !== undefined && (is(b, Type) || is(b, Class))) ||
      (b !== undefined && is(b, Arrow) && this.t[j - 3] !== undefined && is(this.t[j - 3]!, Link))
    );
  }

  /** `fn name(` */
  private opensParams(i: number): boolean {
    const fn = this.t[i - 2];
    return fn !== undefined && is(fn, Fn);
  }

  /** For `T { … }` whose `}` is token `close`: `T`. */
  private typeBeforeBraceEndingAt(close: number): string | undefined {
    let depth = 0;
    for (let j = close; j >= 0; j--) {
      const tok = this.t[j]!;
      if (is(tok, RCurly)) depth++;
      else if (is(tok, LCurly) && --depth === 0) {
        const type = this.t[j - 1];
        return type && is(type, Identifier) ? type.image : undefined;
      }
    }
    return undefined;
  }
}

function typeItems(analysis: AppAnalysis): CompletionItem[] {
  return [
    ...[...analysis.types.values()].map((decl) => ({
      label: decl.name.text,
      kind: CompletionItemKind.Class,
      detail: decl.link
        ? `${decl.keyword} ${decl.name.text} link ${decl.link.from.text} -> ${decl.link.to.text}`
        : `${decl.keyword} ${decl.name.text}`,
      ...(decl.doc ? { documentation: decl.doc } : {}),
    })),
    ...scalarNames.map((name) => ({ label: name, kind: CompletionItemKind.TypeParameter, detail: "scalar" })),
  ];
}

function fieldItems(decl: TypeDecl, analysis: AppAnalysis): CompletionItem[] {
  const text = analysis.files.get(decl.name.span.file)?.source.text ?? "";
  return fieldsOf(decl).map((f) => ({
    label: f.name.text,
    kind: CompletionItemKind.Field,
    detail: text.slice(f.type.span.offset, f.type.span.end).replace(/\s+/g, " ") + (f.isOptional ? "?" : ""),
    ...(f.doc ? { documentation: f.doc } : {}),
  }));
}

function exposeItems(decl: TypeDecl | undefined, written: string[]): CompletionItem[] {
  // `me` (the caller's own row) is offered last, after the REST-only `subscribe`.
  const builtins: CompletionItem[] = [...crudOps, ...restOnlyOps, "me"].map((op) => ({
    label: op,
    kind: CompletionItemKind.Keyword,
    detail: isRestOnlyOp(op) ? "built-in operation (REST only)" : "built-in operation",
  }));
  const methods: CompletionItem[] = (decl ? methodsOf(decl) : []).map((fn) => ({
    label: fn.name.text,
    kind: CompletionItemKind.Method,
    detail: `method of ${decl!.name.text}`,
    ...(fn.doc ? { documentation: fn.doc } : {}),
  }));
  return [...builtins, ...methods].filter((item) => !written.includes(item.label));
}

/** The type declared around `offset`: the last one whose name comes before it. */
function enclosingType(ast: SourceFileAst, offset: number): TypeDecl | undefined {
  let found: TypeDecl | undefined;
  for (const item of ast.items) if (item.kind === "TypeDecl" && item.name.span.offset < offset) found = item;
  return found;
}

/** The first type declared after `offset` (the one an annotation at `offset` belongs to). */
function nextType(ast: SourceFileAst, offset: number): TypeDecl | undefined {
  for (const item of ast.items) if (item.kind === "TypeDecl" && item.name.span.offset > offset) return item;
  return undefined;
}

function is(token: IToken, type: TokenType): boolean {
  return tokenMatcher(token, type);
}

function endOf(token: IToken): number {
  return token.startOffset + token.image.length;
}
