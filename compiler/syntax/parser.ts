// The `.wo` grammar (spec/language.md, "Grammar") as a chevrotain parser that builds the AST
// (compiler/ast.ts) directly. Quoted section names in comments are that chapter's subsections.
//
// Why EmbeddedActionsParser rather than CstParser + visitor: the AST is the only product, and
// building it in the rules keeps each construct's grammar and its node side by side instead of
// describing every shape twice. Semantic code runs inside ACTION() (skipped while chevrotain
// records the grammar), and every builder tolerates a child that error recovery left undefined.
//
// Owns: token sequences → AST nodes, syntax errors (chevrotain's, turned into WO1003 by
// parse.ts), and the few checks that are about how something is written (hyphenated names,
// `[T?]`, chained comparisons, `= x` together with `@default(x)`).
// Leaves to segment.ts how a file is cut into top-level chunks (each chunk is parsed on its
// own, which is what makes recovery "go on with the next declaration"), and to raw-forms.ts the
// constructs captured as raw token runs (defaults, annotation arguments, policies, triggers).
// Leaves to the checker whether names resolve and values fit.
//
// The parser is built once (grammar analysis is the expensive part) and reused for every chunk.

import {
  EmbeddedActionsParser,
  isRecognitionException,
  tokenMatcher,
  type IToken,
  type TokenType,
} from "./chevrotain.js";
import type {
  Annotation,
  Block,
  DefaultExpr,
  DeleteStmt,
  Expr,
  FieldDecl,
  FnDecl,
  IfStmt,
  InsertStmt,
  MainBlock,
  Member,
  Name,
  NameExpr,
  Param,
  ReturnType,
  SelectExpr,
  ServiceDecl,
  Stmt,
  TestBlock,
  TypeDecl,
  TypeExpr,
  UpdateStmt,
  BinaryOp,
  AssertStmt,
  AsSessionStmt,
  AssignStmt,
  ExpectAbortStmt,
  ExprStmt,
  ForStmt,
  LinkStmt,
  LiveExpr,
  ObjectExpr,
} from "../ast.js";
import { isReal, tokenEnd, type ParseContext } from "./parse-context.js";
import { defaultFrom, literalFrom, policyFrom, rowExprTokens, tableFrom, triggerFrom, unquote } from "./raw-forms.js";
import * as T from "./tokens.js";

type RawMode = "default" | "line" | "paren" | "trigger" | "policyHead";

/** What the statement position accepts, for WO1003. */
const STATEMENT_EXPECTED = "a statement (let, insert, return, assert, if, for, update, delete, link or a call)";

type CmpOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

const cmpOps: TokenType[] = [T.EqEq, T.NotEq, T.LtEq, T.Lt, T.GtEq, T.Gt];
const isOpen = (t: IToken) => t.tokenType === T.LCurly || t.tokenType === T.LParen || t.tokenType === T.LBracket;
const isClose = (t: IToken) => t.tokenType === T.RCurly || t.tokenType === T.RParen || t.tokenType === T.RBracket;
const defined = <X>(xs: (X | undefined)[]): X[] => xs.filter((x): x is X => x !== undefined && x !== null);

/**
 * Expression nodes inside one another (WO1013). Far beyond what a person writes, far below what
 * exhausts the stack of the checker, the emitters or TypeScript's transpiler.
 */
export const MAX_EXPR_DEPTH = 200;

export class WoParser extends EmbeddedActionsParser {
  /** Set by parse.ts before each chunk. */
  ctx!: ParseContext;

  constructor() {
    super(T.allTokens, {
      recoveryEnabled: true,
      // LL(1) plus explicit GATEs where two tokens decide (`name :` starts a field, `f (` a
      // call, `select T {` a select). Deeper automatic lookahead makes grammar analysis explode
      // because raw runs accept any token: the paths to compare multiply with each extra token.
      maxLookahead: 1,
      errorMessageProvider: expectedOnlyMessages,
    });
    this.performSelfAnalysis();
  }

  /** Parsing the condition of `if`/`for`: there a `{` opens the block, never an object literal. */
  private inBlockHead = false;

  private blockHead<R>(parse: () => R): R {
    this.ACTION(() => (this.inBlockHead = true));
    const result = parse();
    this.ACTION(() => (this.inBlockHead = false));
    return result;
  }

  private is(i: number, type: TokenType): boolean {
    return tokenMatcher(this.LA(i), type);
  }

  /**
   * The `}` that ends a declaration or block. A missing one is reported here instead of letting
   * chevrotain throw, so the declaration keeps everything parsed so far (an unclosed body is
   * the most common mistake and is always noticed at the end of its chunk).
   */
  private closeBrace(): void {
    this.ACTION(() => {
      if (!this.is(1, T.RCurly)) this.reportExpected("'}'");
    });
    this.OPTION9(() => this.CONSUME9(T.RCurly));
  }

  /** WO1003 at the next token; a chunk's end of input is the next declaration's first token. */
  private reportExpected(expected: string): void {
    const next = this.LA(1);
    const found = next.tokenType.name === "EOF" ? this.ctx.chunkNext : next;
    const span = found ? this.ctx.span(found) : this.ctx.spanAt(this.ctx.text.length, this.ctx.text.length);
    this.ctx.diags.report("WO1003", span, {
      expected: this.ctx.expectedText(expected, this.input, span.offset),
      found: this.ctx.describe(found),
    });
  }

  /**
   * A rule that never re-syncs on its own: its errors travel up to the enclosing statement,
   * field, service or fn, which skip to the next line. (Re-syncing here would stop at once,
   * because the catch-all alternatives put every token in every follow set.)
   */
  // biome-ignore lint/suspicious/noExplicitAny: any function type, as chevrotain's RULE takes it
  private innerRule<F extends (...args: any[]) => any>(name: string, impl: F) {
    return this.RULE(name, impl, { resyncEnabled: false });
  }

  /**
   * A rule an error stops in. It gives up its node at the token it cannot accept and lets its
   * caller go on from there: the loops around it (type body, struct, block) turn that token
   * into "Expected a member/statement" and skip its line, so one bad expression never ends the
   * whole method. chevrotain's own re-sync would have to find the token in the rule's follow
   * set, and its answer for a rule misses category matches; catching the error here uses only
   * its public API (the error is already in `errors` when it is thrown). When the rule is the
   * chunk's own (a top-level `fn`), parse.ts drops the "not all input parsed" that follows.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any function type, as chevrotain's RULE takes it
  private lineRule<F extends (...args: any[]) => any>(name: string, impl: F) {
    const stopsHere = (...args: Parameters<F>): unknown => {
      try {
        return impl(...args);
      } catch (e) {
        if (!isRecognitionException(e as Error)) throw e;
        return undefined;
      }
    };
    return this.RULE(name, stopsHere as unknown as F);
  }

  /** Index in `input` of the next token to parse: after a complete chunk, what is left over. */
  nextTokenIndex(): number {
    const at = this.input.indexOf(this.LA(1));
    return at < 0 ? this.input.length : at;
  }

  /** Runs `build` and returns its node, or undefined when it used a recovery-invented token. */
  private whole<N>(holesBefore: number, node: N | undefined): N | undefined {
    return this.ctx.holes > holesBefore ? undefined : node;
  }

  private isCmpOp(i: number): boolean {
    return cmpOps.some((op) => this.is(i, op));
  }

  /** A member, field or statement ends here ("Fields and type expressions", "Functions and blocks"). */
  private atLineEnd(): boolean {
    return (
      this.is(1, T.NL) ||
      this.is(1, T.Comma) ||
      this.is(1, T.RCurly) ||
      this.is(1, T.Semi) ||
      this.LA(1).tokenType.name === "EOF"
    );
  }

  // ------------------------------------------------------------------------------------------
  // Raw token runs

  /**
   * Consumes a bracket-balanced run of tokens and returns it. Stops (without consuming) at a
   * closing bracket that would unbalance the run, and at a depth-0 token that ends `mode`:
   * default values end at NL, `,`, `}` or `@`; lines at NL; annotation arguments at `)`;
   * triggers at a NL followed by something that starts the next member ("Services, policies, triggers").
   */
  rawRun = this.RULE("rawRun", (mode: RawMode, startDepth: number) => {
    const tokens: IToken[] = [];
    const state = { depth: startDepth };
    this.MANY({
      GATE: () => !this.rawStops(mode, state.depth),
      DEF: () => {
        const t = this.CONSUME(T.AnyToken);
        this.ACTION(() => {
          tokens.push(t);
          if (isOpen(t)) state.depth++;
          else if (isClose(t)) state.depth--;
        });
      },
    });
    return tokens;
  });

  private rawStops(mode: RawMode, depth: number): boolean {
    const t = this.LA(1);
    if (isClose(t) && depth <= 0) return true;
    if (depth > 0) return false;
    switch (mode) {
      case "default":
        return this.is(1, T.NL) || this.is(1, T.Comma) || this.is(1, T.At);
      case "line":
        return this.is(1, T.NL);
      case "policyHead":
        return this.is(1, T.NL) || this.is(1, T.When);
      case "paren":
        // An unclosed `@table(` stops before a line that starts a declaration.
        return this.is(1, T.NL) && (this.is(2, T.Type) || this.is(2, T.Class)) && !this.is(3, T.Colon);
      case "trigger":
        return this.is(1, T.NL) && this.nextStartsMember();
    }
  }

  /** After a NL in a type body: does the next line start a new member (or close the body)? */
  private nextStartsMember(): boolean {
    const n = this.LA(2);
    if (n.tokenType.name === "EOF" || this.is(2, T.RCurly)) return true;
    if (this.is(2, T.Policy) || this.is(2, T.Service) || this.is(2, T.On) || this.is(2, T.Fn)) return true;
    return this.is(2, T.AnyWord) && this.is(3, T.Colon);
  }

  /** Reports the rest of a line as unexpected and skips it. */
  skipLine = this.RULE("skipLine", (expected: string) => {
    const first = this.CONSUME(T.AnyToken);
    this.SUBRULE(this.rawRun, { ARGS: ["line", isOpen(first) ? 1 : 0] });
    this.ACTION(() =>
      this.ctx.diags.report("WO1003", this.ctx.span(first), { expected, found: this.ctx.describe(first) }),
    );
  });

  /** Stray tokens after a complete member or statement. */
  lineEnd = this.RULE("lineEnd", (expected: string) => {
    this.OPTION({ GATE: () => !this.atLineEnd(), DEF: () => this.SUBRULE(this.skipLine, { ARGS: [expected] }) });
  });

  // ------------------------------------------------------------------------------------------
  // Types and members ("Types")

  typeDecl = this.RULE("typeDecl", (): TypeDecl | undefined => {
    const annotations: (Annotation | undefined)[] = [];
    this.MANY(() => {
      annotations.push(this.SUBRULE(this.annotation));
      this.MANY2(() => this.CONSUME(T.NL));
    });
    const keyword = this.OR([{ ALT: () => this.CONSUME(T.Type) }, { ALT: () => this.CONSUME(T.Class) }]);
    const name = this.CONSUME(T.Identifier);
    const link = this.OPTION(() => {
      const kw = this.CONSUME(T.Link);
      const from = this.CONSUME2(T.Identifier);
      this.CONSUME(T.Arrow);
      const to = this.CONSUME3(T.Identifier);
      return this.ACTION(() => ({ from: this.ctx.name(from), to: this.ctx.name(to), span: this.ctx.span(kw, to) }));
    });
    this.MANY3(() => this.CONSUME2(T.NL));
    this.CONSUME(T.LCurly);
    const members: (Member | undefined)[] = [];
    this.MANY4({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () => {
        this.OR2({
          IGNORE_AMBIGUITIES: true,
          DEF: [
            { ALT: () => this.CONSUME3(T.NL) },
            { ALT: () => this.CONSUME(T.Comma) },
            { GATE: () => this.is(2, T.Colon), ALT: () => members.push(this.SUBRULE(this.fieldDecl)) },
            { ALT: () => members.push(this.SUBRULE(this.serviceDecl)) },
            { ALT: () => members.push(this.SUBRULE(this.policyLine)) },
            { ALT: () => members.push(this.SUBRULE(this.trigger)) },
            { ALT: () => members.push(this.SUBRULE(this.fnDecl)) },
            {
              ALT: () =>
                this.SUBRULE(this.skipLine, {
                  ARGS: ["a member (a field 'name: Type', 'service', 'policy', 'on' or 'fn')"],
                }),
            },
          ],
        });
      },
    });
    this.closeBrace();
    return this.ACTION(() => {
      const ctx = this.ctx;
      const anns = defined(annotations);
      const first = anns[0]?.span ?? ctx.span(keyword);
      const holes = ctx.holes;
      const decl: TypeDecl = {
        kind: "TypeDecl",
        keyword: keyword.image === "class" ? "class" : "type",
        name: ctx.name(name, "type"),
        annotations: anns,
        members: defined(members),
        span: ctx.spanAt(first.offset, ctx.span(this.LA(0)).end),
      };
      if (link) decl.link = link;
      const tables = anns.filter((a) => a.name.text === "table");
      if (tables.length > 1) ctx.diags.report("WO1011", tables[1]!.span, { name: decl.name.text });
      const table = tables[0] as (Annotation & { table?: TypeDecl["table"] }) | undefined;
      if (table?.table) decl.table = table.table;
      for (const a of anns) delete (a as { table?: unknown }).table;
      const doc = ctx.docAbove(first);
      if (doc !== undefined) decl.doc = doc;
      return this.whole(holes, decl);
    });
  });

  /** `@name` or `@name(...)`; `@default(lit)` and `@table(...)` are read here ("Types", "Fields and type expressions"). */
  annotation = this.innerRule("annotation", (): Annotation | undefined => {
    const at = this.CONSUME(T.At);
    const name = this.CONSUME(T.AnyWord);
    const args = this.OPTION(() => {
      const open = this.CONSUME(T.LParen);
      const tokens = this.SUBRULE(this.rawRun, { ARGS: ["paren", 0] });
      // A missing `)` is reported without giving up the declaration that follows.
      this.ACTION(() => {
        if (!this.is(1, T.RParen)) this.reportExpected("')'");
      });
      const close = this.OPTION2(() => this.CONSUME(T.RParen));
      return { open, tokens, close };
    });
    return this.ACTION(() => {
      const ctx = this.ctx;
      const last = args?.close ?? args?.tokens[args.tokens.length - 1] ?? args?.open ?? name;
      const ann: Annotation & { table?: TypeDecl["table"] } = {
        kind: "Annotation",
        name: ctx.name(name),
        span: ctx.span(at, last),
      };
      if (args)
        ann.argsText = ctx.text.slice(tokenEnd(args.open), args.close ? args.close.startOffset : tokenEnd(last));
      if (name.image === "default") {
        const literal = literalFrom(
          ctx,
          (args?.tokens ?? []).filter((t) => t.tokenType !== T.NL),
        );
        if (literal) ann.defaultValue = literal;
        else
          ctx.diags.report("WO1003", ctx.span(args?.tokens[0] ?? last), {
            expected: "one literal in @default(…)",
            found: ctx.describe(args?.tokens[0] ?? args?.close),
          });
      }
      if (name.image === "table") ann.table = tableFrom(ctx, at, args?.tokens ?? [], last);
      if (name.image === "check" && args)
        rowExprTokens.set(
          ann,
          args.tokens.filter((t) => t.tokenType !== T.NL),
        );
      return ann;
    });
  });

  /** `name: TypeExpr [?] {@ann} [= default] {@ann}` ("Fields and type expressions"). */
  fieldDecl = this.lineRule("fieldDecl", (): FieldDecl | undefined => {
    const holes = this.ACTION(() => this.ctx.holes);
    const name = this.CONSUME(T.AnyWord);
    this.CONSUME(T.Colon);
    const type = this.SUBRULE(this.typeExpr);
    const question = this.OPTION(() => this.CONSUME(T.Question));
    const annotations: (Annotation | undefined)[] = [];
    this.MANY(() => annotations.push(this.SUBRULE(this.annotation)));
    const def = this.OPTION2(() => {
      const eq = this.CONSUME(T.Eq);
      const tokens = this.SUBRULE(this.rawRun, { ARGS: ["default", 0] });
      return this.ACTION(() => defaultFrom(this.ctx, eq, tokens, this.LA(1)));
    });
    this.MANY2(() => annotations.push(this.SUBRULE2(this.annotation)));
    this.SUBRULE(this.lineEnd, { ARGS: ["',' or end of line after the field"] });
    return this.ACTION(() => {
      if (!type) return undefined;
      const ctx = this.ctx;
      const anns = defined(annotations);
      const field: FieldDecl = {
        kind: "FieldDecl",
        name: ctx.name(name, "field"),
        type,
        isOptional: question !== undefined,
        annotations: anns,
        span: ctx.span(name, this.LA(0)),
      };
      let defaultExpr: DefaultExpr | undefined = def;
      const annDefault = anns.find((a) => a.name.text === "default" && a.defaultValue);
      if (annDefault && defaultExpr) ctx.diags.report("WO1009", annDefault.span, { name: name.image });
      else if (annDefault)
        defaultExpr = { kind: "LiteralDefault", value: annDefault.defaultValue!, span: annDefault.span };
      if (defaultExpr) field.default = defaultExpr;
      const doc = ctx.docAbove(field.span);
      if (doc !== undefined) field.doc = doc;
      return this.whole(holes, field);
    });
  });

  /** ref, multi, backlink, [T], { fields }, Name or A | B | C ("Fields and type expressions"). */
  typeExpr = this.innerRule("typeExpr", (): TypeExpr | undefined =>
    this.OR({
      ERR_MSG: "a type (a type name, 'ref', 'multi', 'backlink', '[' or '{')",
      DEF: [
        {
          ALT: () => {
            const kw = this.CONSUME(T.Ref);
            const target = this.CONSUME(T.Identifier);
            return this.ACTION(() => ({
              kind: "RefType" as const,
              target: this.ctx.name(target),
              span: this.ctx.span(kw, target),
            }));
          },
        },
        { ALT: () => this.SUBRULE(this.multiType) },
        {
          ALT: () => {
            const kw = this.CONSUME(T.Backlink);
            const target = this.CONSUME2(T.Identifier);
            this.CONSUME(T.Dot);
            const field = this.CONSUME(T.AnyWord);
            return this.ACTION(() => ({
              kind: "BacklinkType" as const,
              target: this.ctx.name(target),
              field: this.ctx.name(field),
              span: this.ctx.span(kw, field),
            }));
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME(T.LBracket);
            const element = this.SUBRULE(this.typeExpr);
            const q = this.OPTION(() => this.CONSUME(T.Question));
            const close = this.CONSUME(T.RBracket);
            return this.ACTION(() => {
              if (q) this.ctx.diags.report("WO1006", this.ctx.span(q), {});
              return element && { kind: "ArrayType" as const, element, span: this.ctx.span(open, close) };
            });
          },
        },
        { ALT: () => this.SUBRULE(this.structType) },
        {
          ALT: () => {
            const first = this.CONSUME3(T.Identifier);
            const rest: IToken[] = [];
            this.MANY(() => {
              this.CONSUME(T.Pipe);
              rest.push(this.CONSUME4(T.Identifier));
            });
            return this.ACTION((): TypeExpr => {
              const ctx = this.ctx;
              if (rest.length === 0) return { kind: "NamedType", name: ctx.name(first), span: ctx.span(first) };
              const variants = [first, ...rest].map((t) => ctx.name(t, "union variant"));
              return { kind: "UnionType", variants, span: ctx.span(first, rest[rest.length - 1]) };
            });
          },
        },
      ],
    }),
  );

  /** `multi T`, `multi T @edge(:LABEL)`, `multi T via L`. */
  multiType = this.innerRule("multiType", (): TypeExpr | undefined => {
    const kw = this.CONSUME(T.Multi);
    const target = this.CONSUME(T.Identifier);
    const extra = this.OPTION({
      GATE: () => !this.is(1, T.At) || this.LA(2).image === "edge",
      DEF: () =>
        this.OR([
          {
            ALT: () => {
              this.CONSUME(T.At);
              this.CONSUME2(T.Identifier);
              this.CONSUME(T.LParen);
              this.CONSUME(T.Colon);
              const label = this.CONSUME(T.AnyWord);
              const close = this.CONSUME(T.RParen);
              return { edge: label, last: close };
            },
          },
          {
            ALT: () => {
              this.CONSUME(T.Via);
              const via = this.CONSUME3(T.Identifier);
              return { via, last: via };
            },
          },
        ]),
    });
    return this.ACTION(() => {
      const ctx = this.ctx;
      const node: TypeExpr = { kind: "MultiType", target: ctx.name(target), span: ctx.span(kw, extra?.last ?? target) };
      if (extra && "edge" in extra) node.edgeLabel = ctx.name(extra.edge);
      if (extra && "via" in extra) node.via = ctx.name(extra.via);
      return node;
    });
  });

  /** `{ a: T, b: U }`: fields separated by `,` or line breaks ("Fields and type expressions"). */
  structType = this.innerRule("structType", (): TypeExpr | undefined => {
    const open = this.CONSUME(T.LCurly);
    const fields: (FieldDecl | undefined)[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () =>
        this.OR({
          IGNORE_AMBIGUITIES: true,
          DEF: [
            { ALT: () => this.CONSUME(T.NL) },
            { ALT: () => this.CONSUME(T.Comma) },
            { GATE: () => this.is(2, T.Colon), ALT: () => fields.push(this.SUBRULE(this.fieldDecl)) },
            { ALT: () => this.SUBRULE(this.skipLine, { ARGS: ["a field 'name: Type'"] }) },
          ],
        }),
    });
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() => ({
      kind: "StructType" as const,
      fields: defined(fields),
      span: this.ctx.span(open, close),
    }));
  });

  /** `service rest|mcp|graphql|native "P" expose a, b` ("Services, policies, triggers"). */
  serviceDecl = this.lineRule("serviceDecl", (): ServiceDecl | undefined => {
    const holes = this.ACTION(() => this.ctx.holes);
    const kw = this.CONSUME(T.Service);
    const kind = this.CONSUME(T.AnyWord);
    const path = this.CONSUME(T.StringLiteral);
    this.MANY(() => this.CONSUME(T.NL));
    this.CONSUME(T.Expose);
    const expose: IToken[] = [this.CONSUME(T.Identifier)];
    this.MANY2(() => {
      this.CONSUME(T.Comma);
      expose.push(this.CONSUME2(T.Identifier));
    });
    const last = this.LA(0);
    this.SUBRULE(this.lineEnd, { ARGS: ["',' or end of line after the expose list"] });
    return this.ACTION(() => {
      const ctx = this.ctx;
      return this.whole(holes, {
        kind: "ServiceDecl" as const,
        serviceKind: ctx.name(kind),
        path: { value: isReal(path) ? unquote(path.image) : "", span: ctx.span(path) },
        expose: expose.map((t) => ctx.name(t)),
        span: ctx.span(kw, last),
      });
    });
  });

  /**
   * `policy <action> [anyone] [for role R] [when <expr>]`: the head is read by hand
   * (raw-forms.ts), the condition with the expression grammar, so the checker types it like a
   * method body's (compiler/check/policies.ts).
   */
  policyLine = this.lineRule("policyLine", () => {
    const kw = this.CONSUME(T.Policy);
    const head = this.SUBRULE(this.rawRun, { ARGS: ["policyHead", 0] });
    const when = this.OPTION(() => {
      const keyword = this.CONSUME(T.When);
      const condition = this.OPTION2({ GATE: () => !this.atLineEnd(), DEF: () => this.SUBRULE(this.expr) });
      return { keyword, condition };
    });
    const rest = this.SUBRULE2(this.rawRun, { ARGS: ["line", 0] });
    return this.ACTION(() => policyFrom(this.ctx, kw, head, when, rest));
  });

  trigger = this.RULE("trigger", () => {
    const kw = this.CONSUME(T.On);
    const tokens = this.SUBRULE(this.rawRun, { ARGS: ["trigger", 0] });
    return this.ACTION(() => triggerFrom(this.ctx, kw, tokens));
  });

  // ------------------------------------------------------------------------------------------
  // Functions and blocks ("Functions and blocks")

  fnDecl = this.lineRule("fnDecl", (): FnDecl | undefined => {
    const kw = this.CONSUME(T.Fn);
    const name = this.CONSUME(T.Identifier);
    this.CONSUME(T.LParen);
    const params: (Param | undefined)[] = [];
    const state = { needComma: false };
    this.MANY({
      GATE: () => !this.is(1, T.RParen),
      DEF: () =>
        this.OR([
          { ALT: () => this.CONSUME(T.NL) },
          {
            ALT: () => {
              this.CONSUME(T.Comma);
              this.ACTION(() => (state.needComma = false));
            },
          },
          {
            ALT: () => {
              const p = this.SUBRULE(this.param);
              this.ACTION(() => {
                if (state.needComma && p)
                  this.ctx.diags.report("WO1003", p.span, {
                    expected: "',' between parameters",
                    found: `'${p.name.text}'`,
                  });
                state.needComma = true;
                params.push(p);
              });
            },
          },
        ]),
    });
    this.CONSUME(T.RParen);
    const returnType = this.OPTION(() => {
      this.CONSUME(T.Arrow);
      return this.SUBRULE(this.returnType);
    });
    const txn = this.OPTION2(() => {
      const inKw = this.CONSUME(T.In);
      const txnKw = this.CONSUME(T.Txn);
      const mode = this.OPTION3(() =>
        this.OR2([{ ALT: () => this.CONSUME(T.Snapshot) }, { ALT: () => this.CONSUME(T.Serializable) }]),
      );
      return this.ACTION(() => ({
        mode: (mode?.image ?? "default") as "default" | "snapshot" | "serializable",
        span: this.ctx.span(inKw, mode ?? txnKw),
      }));
    });
    this.MANY2(() => this.CONSUME2(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => {
      if (!body) return undefined;
      const ctx = this.ctx;
      if (!isReal(name)) return undefined;
      const fn: FnDecl = {
        kind: "FnDecl",
        name: ctx.name(name, "method"),
        params: defined(params),
        body,
        span: ctx.span(kw, this.LA(0)),
      };
      if (returnType) fn.returnType = returnType;
      if (txn) fn.txn = txn;
      const doc = ctx.docAbove(fn.span);
      if (doc !== undefined) fn.doc = doc;
      return fn;
    });
  });

  /** `name: Type` — one bare type name ("Functions and blocks"). */
  param = this.innerRule("param", (): Param | undefined => {
    const name = this.CONSUME(T.Identifier);
    this.CONSUME(T.Colon);
    const ref = this.OPTION(() => this.CONSUME(T.Ref));
    const type = this.CONSUME2(T.Identifier);
    return this.ACTION(() => {
      const holes = this.ctx.holes;
      const param: Param = {
        kind: "Param",
        name: this.ctx.name(name, "parameter"),
        type: this.ctx.name(type),
        span: this.ctx.span(name, type),
      };
      // Only a parameter that starts its own line has a doc (docAbove): on the `fn` line, the
      // comment above is the method's.
      const doc = this.ctx.docAbove(param.span);
      if (doc !== undefined) param.doc = doc;
      if (ref) param.isRef = true;
      return this.whole(holes, param);
    });
  });

  returnType = this.innerRule("returnType", (): ReturnType | undefined =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Identifier);
          return this.ACTION(() => ({ name: this.ctx.name(t), isArray: false, span: this.ctx.span(t) }));
        },
      },
      {
        ALT: () => {
          const open = this.CONSUME(T.LBracket);
          const t = this.CONSUME2(T.Identifier);
          const close = this.CONSUME(T.RBracket);
          return this.ACTION(() => ({ name: this.ctx.name(t), isArray: true, span: this.ctx.span(open, close) }));
        },
      },
    ]),
  );

  block = this.RULE("block", (): Block | undefined => {
    const open = this.CONSUME(T.LCurly);
    const statements: (Stmt | undefined)[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () =>
        this.OR({
          // A statement's error alternative starts with any token; NL and ';' are tried first.
          IGNORE_AMBIGUITIES: true,
          DEF: [
            { ALT: () => this.CONSUME(T.NL) },
            { ALT: () => this.CONSUME(T.Semi) },
            { ALT: () => statements.push(this.SUBRULE(this.statement)) },
          ],
        }),
    });
    this.closeBrace();
    return this.ACTION(() => ({
      kind: "Block" as const,
      statements: defined(statements),
      span: this.ctx.span(open, this.LA(0)),
    }));
  });

  statement = this.lineRule("statement", (): Stmt | undefined => {
    const holes = this.ACTION(() => {
      this.inBlockHead = false; // in case an error left a block head
      return this.ctx.holes;
    });
    const stmt = this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.letStmt) },
        {
          GATE: () => this.LA(1).image === "insert" && this.is(2, T.Identifier),
          ALT: () => this.SUBRULE(this.insertStmt),
        },
        { ALT: () => this.SUBRULE(this.returnStmt) },
        { ALT: () => this.SUBRULE(this.assertStmt) },
        { ALT: () => this.SUBRULE(this.ifStmt) },
        {
          GATE: () => this.LA(1).image === "update" && this.is(2, T.Identifier),
          ALT: () => this.SUBRULE(this.updateStmt),
        },
        {
          GATE: () => this.LA(1).image === "delete" && this.is(2, T.Identifier),
          ALT: () => this.SUBRULE(this.deleteStmt),
        },
        { ALT: () => this.SUBRULE(this.forStmt) },
        { GATE: () => this.is(1, T.Link), ALT: () => this.SUBRULE(this.linkStmt) },
        {
          GATE: () => this.LA(1).image === "unlink" && this.is(2, T.Identifier),
          ALT: () => this.SUBRULE2(this.linkStmt),
        },
        { GATE: () => this.LA(1).image === "expect_abort", ALT: () => this.SUBRULE(this.expectAbortStmt) },
        { ALT: () => this.SUBRULE(this.asSessionStmt) },
        { GATE: () => this.is(1, T.Identifier) || this.is(1, T.Contains), ALT: () => this.SUBRULE(this.exprStmt) },
        {
          ALT: () => {
            this.SUBRULE(this.skipLine, { ARGS: [STATEMENT_EXPECTED] });
            return undefined;
          },
        },
      ],
    });
    this.SUBRULE(this.lineEnd, { ARGS: ["end of statement (a line break or ';')"] });
    return this.ACTION(() => this.whole(holes, stmt));
  });

  /** `let x = e` / `let x = insert T { … }`. Like a field name, a binding may be a keyword (`let live = …`). */
  letStmt = this.innerRule("letStmt", () => {
    const kw = this.CONSUME(T.Let);
    const name = this.CONSUME(T.AnyWord);
    this.CONSUME(T.Eq);
    const value = this.OR({
      ERR_MSG: "an expression",
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => this.LA(1).image === "insert" && this.is(2, T.Identifier),
          ALT: () => this.SUBRULE(this.insertStmt),
        },
        { ALT: () => this.SUBRULE(this.expr) },
      ],
    });
    return this.ACTION(
      () =>
        value && {
          kind: "LetStmt" as const,
          name: this.ctx.name(name, "variable"),
          value,
          span: this.ctx.span(kw, this.LA(0)),
        },
    );
  });

  /** `for x in e { … }`. */
  forStmt = this.innerRule("forStmt", (): ForStmt | undefined => {
    const kw = this.CONSUME(T.For);
    const variable = this.CONSUME(T.AnyWord);
    this.CONSUME(T.In);
    const iterable = this.blockHead(() => this.SUBRULE(this.expr));
    this.MANY(() => this.CONSUME(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => {
      if (!iterable || !body) return undefined;
      return {
        kind: "ForStmt" as const,
        variable: this.ctx.name(variable, "variable"),
        iterable,
        body,
        span: this.ctx.span(kw, this.LA(0)),
      };
    });
  });

  /** A call on its own line, or an assignment `target = e` / `+=` / `-=`. */
  exprStmt = this.innerRule("exprStmt", (): AssignStmt | ExprStmt | undefined => {
    const target = this.SUBRULE(this.postfix);
    const assign = this.OPTION(() => {
      const op = this.OR([
        { ALT: () => this.CONSUME(T.Eq) },
        { ALT: () => this.CONSUME(T.PlusEq) },
        { ALT: () => this.CONSUME(T.MinusEq) },
      ]);
      this.MANY(() => this.CONSUME(T.NL));
      const value = this.SUBRULE(this.expr);
      return { op, value };
    });
    return this.ACTION(() => {
      if (!target) return undefined;
      const span = this.ctx.spanAt(target.span.offset, this.ctx.span(this.LA(0)).end);
      if (assign)
        return (
          assign.value && {
            kind: "AssignStmt" as const,
            target,
            op: assign.op.image as AssignStmt["op"],
            value: assign.value,
            span,
          }
        );
      return { kind: "ExprStmt" as const, expr: target, span };
    });
  });

  /** `link a -[E { f: e }]-> b`, `link a -[:LABEL]-> b`, `unlink a -[E]-> b`; may span lines. */
  linkStmt = this.innerRule("linkStmt", (): LinkStmt | undefined => {
    const kw = this.OR([{ ALT: () => this.CONSUME(T.Link) }, { ALT: () => this.CONSUME(T.Identifier) }]);
    const from = this.SUBRULE(this.postfix);
    this.MANY(() => this.CONSUME(T.NL));
    this.CONSUME(T.Minus);
    this.CONSUME(T.LBracket);
    const label = this.OPTION(() => this.CONSUME(T.Colon));
    const edge = this.CONSUME2(T.AnyWord);
    const entries = this.OPTION2(() => this.SUBRULE(this.objectLiteral));
    this.CONSUME(T.RBracket);
    this.CONSUME(T.Arrow);
    this.MANY2(() => this.CONSUME2(T.NL));
    const to = this.SUBRULE2(this.postfix);
    return this.ACTION(() => {
      if (!from || !to) return undefined;
      return {
        kind: "LinkStmt" as const,
        remove: kw.image === "unlink",
        from,
        edge: this.ctx.name(edge),
        isLabel: label !== undefined,
        entries: entries?.kind === "ObjectExpr" ? entries.entries : [],
        to,
        span: this.ctx.span(kw, this.LA(0)),
      };
    });
  });

  /** `expect_abort ["message"] { … }`. */
  expectAbortStmt = this.innerRule("expectAbortStmt", (): ExpectAbortStmt | undefined => {
    const kw = this.CONSUME(T.Identifier);
    const message = this.OPTION(() => this.CONSUME(T.StringLiteral));
    this.MANY(() => this.CONSUME(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => {
      if (!body) return undefined;
      const node: ExpectAbortStmt = { kind: "ExpectAbortStmt", body, span: this.ctx.span(kw, this.LA(0)) };
      if (message) node.message = { value: unquote(message.image), span: this.ctx.span(message) };
      return node;
    });
  });

  /** `as session { user: …, role: … } { … }`, or `as session who { … }` (who: a name or a `$binding`). */
  asSessionStmt = this.innerRule("asSessionStmt", (): AsSessionStmt | undefined => {
    const kw = this.CONSUME(T.As);
    const session = this.CONSUME(T.Identifier);
    const who = this.OR([
      { ALT: () => this.CONSUME2(T.Identifier) },
      { ALT: () => this.CONSUME(T.Param) },
      { ALT: () => this.SUBRULE(this.objectLiteral) },
    ]);
    this.MANY(() => this.CONSUME(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => {
      if (!body || !who) return undefined;
      if (session.image !== "session")
        this.ctx.diags.report("WO1003", this.ctx.span(session), {
          expected: "'session'",
          found: this.ctx.describe(session),
        });
      const span = this.ctx.span(kw, this.LA(0));
      if ("kind" in who && who.kind === "ObjectExpr")
        return { kind: "AsSessionStmt" as const, principal: who, body, span };
      const identity = { text: (who as IToken).image, span: this.ctx.span(who as IToken) };
      if (identity.text.startsWith("$")) {
        const name = { text: identity.text.slice(1), span: identity.span };
        const row = { kind: "NameExpr" as const, name, span: identity.span };
        return { kind: "AsSessionStmt" as const, identity, row, body, span };
      }
      return { kind: "AsSessionStmt" as const, identity, body, span };
    });
  });

  insertStmt = this.innerRule("insertStmt", (): InsertStmt | undefined => {
    const kw = this.CONSUME(T.Identifier);
    const type = this.CONSUME2(T.Identifier);
    this.CONSUME(T.LCurly);
    const entries: ({ name: Name; value: Expr; span: ReturnType["span"] } | undefined)[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () =>
        this.OR({
          IGNORE_AMBIGUITIES: true,
          DEF: [
            { ALT: () => this.CONSUME(T.NL) },
            { ALT: () => this.CONSUME(T.Comma) },
            {
              GATE: () => this.is(2, T.Colon),
              ALT: () => {
                const field = this.CONSUME(T.AnyWord);
                this.CONSUME(T.Colon);
                const value = this.SUBRULE(this.expr);
                this.ACTION(() =>
                  entries.push(value && { name: this.ctx.name(field), value, span: this.ctx.span(field, this.LA(0)) }),
                );
              },
            },
            { ALT: () => this.SUBRULE(this.skipLine, { ARGS: ["an entry 'field: value'"] }) },
          ],
        }),
    });
    this.CONSUME(T.RCurly);
    return this.ACTION(() => ({
      kind: "InsertStmt" as const,
      type: this.ctx.name(type),
      entries: defined(entries),
      span: this.ctx.span(kw, this.LA(0)),
    }));
  });

  returnStmt = this.innerRule("returnStmt", () => {
    const kw = this.CONSUME(T.Return);
    const value = this.OPTION({ GATE: () => !this.atLineEnd(), DEF: () => this.SUBRULE(this.expr) });
    return this.ACTION(() => {
      const node = { kind: "ReturnStmt" as const, span: this.ctx.span(kw, this.LA(0)) };
      return value ? { ...node, value } : node;
    });
  });

  /** `assert c [otherwise abort [message]]`; `otherwise` may start the next line. */
  assertStmt = this.innerRule("assertStmt", () => {
    const kw = this.CONSUME(T.Assert);
    const condition = this.SUBRULE(this.expr);
    const message = this.OPTION({
      GATE: () => this.is(1, T.Otherwise) || (this.is(1, T.NL) && this.is(2, T.Otherwise)),
      DEF: () => {
        this.OPTION3(() => this.CONSUME(T.NL));
        this.CONSUME(T.Otherwise);
        this.CONSUME(T.Abort);
        return this.OPTION2({ GATE: () => !this.atLineEnd(), DEF: () => this.SUBRULE2(this.expr) });
      },
    });
    return this.ACTION(() => {
      if (!condition) return undefined;
      const node: AssertStmt = { kind: "AssertStmt", condition, span: this.ctx.span(kw, this.LA(0)) };
      if (message?.kind === "LiteralExpr" && message.literal.literalType === "string") {
        node.abortMessage = { value: message.literal.value as string, span: message.span };
      } else if (message) {
        node.abortExpr = message;
      }
      return node;
    });
  });

  ifStmt = this.innerRule("ifStmt", (): IfStmt | undefined => {
    const kw = this.CONSUME(T.If);
    const condition = this.blockHead(() => this.SUBRULE(this.expr));
    this.MANY(() => this.CONSUME(T.NL));
    const then = this.SUBRULE(this.block);
    const otherwise = this.OPTION({
      GATE: () => this.is(1, T.Else) || (this.is(1, T.NL) && this.is(2, T.Else)),
      DEF: () => {
        this.OPTION2(() => this.CONSUME2(T.NL));
        this.CONSUME(T.Else);
        this.MANY2(() => this.CONSUME3(T.NL));
        return this.OR([{ ALT: () => this.SUBRULE(this.ifStmt) }, { ALT: () => this.SUBRULE2(this.block) }]);
      },
    });
    return this.ACTION(() => {
      if (!condition || !then) return undefined;
      const node: IfStmt = { kind: "IfStmt", condition, then, span: this.ctx.span(kw, this.LA(0)) };
      if (otherwise) node.else = otherwise;
      return node;
    });
  });

  /** `update T{ p }.f = e`, `update T{ p } set a = b, …`, `update self set a = b`. */
  updateStmt = this.innerRule("updateStmt", (): UpdateStmt | undefined => {
    const kw = this.CONSUME(T.Identifier);
    const target = this.SUBRULE(this.dmlTarget);
    this.OPTION({ GATE: () => this.is(1, T.NL) && this.is(2, T.Set), DEF: () => this.CONSUME(T.NL) });
    const assignments = this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Dot);
          const a = this.SUBRULE(this.assignment);
          return [a];
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Set);
          const list = [this.SUBRULE2(this.assignment)];
          this.MANY(() => {
            this.CONSUME(T.Comma);
            this.MANY2(() => this.CONSUME2(T.NL));
            list.push(this.SUBRULE3(this.assignment));
          });
          return list;
        },
      },
    ]);
    return this.ACTION(() => {
      if (!target) return undefined;
      return {
        kind: "UpdateStmt" as const,
        target,
        assignments: defined(assignments ?? []),
        span: this.ctx.span(kw, this.LA(0)),
      };
    });
  });

  assignment = this.innerRule("assignment", () => {
    const field = this.CONSUME(T.AnyWord);
    const path: IToken[] = [];
    this.MANY(() => {
      this.CONSUME(T.Dot);
      path.push(this.CONSUME2(T.AnyWord));
    });
    const op = this.OR([
      { ALT: () => this.CONSUME(T.Eq) },
      { ALT: () => this.CONSUME(T.PlusEq) },
      { ALT: () => this.CONSUME(T.MinusEq) },
    ]);
    const value = this.SUBRULE(this.expr);
    return this.ACTION(() => {
      if (!value) return undefined;
      const a: UpdateStmt["assignments"][number] = {
        field: this.ctx.name(field),
        value,
        span: this.ctx.span(field, this.LA(0)),
      };
      if (path.length > 0) a.path = path.map((t) => this.ctx.name(t));
      if (op.image === "+=" || op.image === "-=") a.op = op.image;
      return a;
    });
  });

  deleteStmt = this.innerRule("deleteStmt", (): DeleteStmt | undefined => {
    const kw = this.CONSUME(T.Identifier);
    const target = this.SUBRULE(this.dmlTarget);
    return this.ACTION(() => target && { kind: "DeleteStmt" as const, target, span: this.ctx.span(kw, this.LA(0)) });
  });

  /** `T{ predicates }` (a select without the word) or a name such as `self`. */
  dmlTarget = this.innerRule("dmlTarget", (): SelectExpr | NameExpr | undefined =>
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { GATE: () => this.is(2, T.LCurly), ALT: () => this.SUBRULE(this.selectBody) },
        {
          ALT: () => {
            const t = this.CONSUME(T.Identifier);
            return this.ACTION(() => ({ kind: "NameExpr" as const, name: this.ctx.name(t), span: this.ctx.span(t) }));
          },
        },
      ],
    }),
  );

  // ------------------------------------------------------------------------------------------
  // Expressions, lowest precedence first ("Expressions"; `not` binds tighter than comparisons)

  expr = this.innerRule("expr", (): Expr | undefined => {
    let left = this.SUBRULE(this.andExpr);
    this.MANY(() => {
      this.CONSUME(T.Or);
      this.MANY2(() => this.CONSUME(T.NL));
      const right = this.SUBRULE2(this.andExpr);
      left = this.ACTION(() => this.binary("or", left, right));
    });
    return left;
  });

  andExpr = this.innerRule("andExpr", (): Expr | undefined => {
    let left = this.SUBRULE(this.cmpExpr);
    this.MANY(() => {
      this.CONSUME(T.And);
      this.MANY2(() => this.CONSUME(T.NL));
      const right = this.SUBRULE2(this.cmpExpr);
      left = this.ACTION(() => this.binary("and", left, right));
    });
    return left;
  });

  /** Non-associative: `a < b < c` is reported (WO1008) instead of silently meaning `(a < b) < c`. */
  cmpExpr = this.innerRule("cmpExpr", (): Expr | undefined => {
    let left = this.SUBRULE(this.addExpr);
    this.OPTION(() => {
      const op = this.SUBRULE(this.cmpOp);
      const right = this.SUBRULE2(this.addExpr);
      left = this.ACTION(() => this.binary(op.image as BinaryOp, left, right));
    });
    this.MANY({
      GATE: () => this.isCmpOp(1),
      DEF: () => {
        const op = this.SUBRULE2(this.cmpOp);
        this.SUBRULE3(this.addExpr);
        this.ACTION(() => this.ctx.diags.report("WO1008", this.ctx.span(op), { op: op.image }));
      },
    });
    return left;
  });

  cmpOp = this.innerRule("cmpOp", (): IToken => this.OR(cmpOps.map((op) => ({ ALT: () => this.CONSUME(op) }))));

  addExpr = this.innerRule("addExpr", (): Expr | undefined => {
    let left = this.SUBRULE(this.mulExpr);
    this.MANY(() => {
      const op = this.OR([{ ALT: () => this.CONSUME(T.Plus) }, { ALT: () => this.CONSUME(T.Minus) }]);
      this.MANY2(() => this.CONSUME(T.NL));
      const right = this.SUBRULE2(this.mulExpr);
      left = this.ACTION(() => this.binary(op.image as BinaryOp, left, right));
    });
    return left;
  });

  mulExpr = this.innerRule("mulExpr", (): Expr | undefined => {
    let left = this.SUBRULE(this.unary);
    this.MANY(() => {
      const op = this.OR([
        { ALT: () => this.CONSUME(T.Star) },
        { ALT: () => this.CONSUME(T.Slash) },
        { ALT: () => this.CONSUME(T.Percent) },
      ]);
      this.MANY2(() => this.CONSUME(T.NL));
      const right = this.SUBRULE2(this.unary);
      left = this.ACTION(() => this.binary(op.image as BinaryOp, left, right));
    });
    return left;
  });

  unary = this.innerRule("unary", (): Expr | undefined =>
    this.OR({
      ERR_MSG: "an expression",
      DEF: [
        {
          ALT: () => {
            const op = this.OR2([{ ALT: () => this.CONSUME(T.Minus) }, { ALT: () => this.CONSUME(T.Not) }]);
            const operand = this.SUBRULE(this.unary);
            return this.ACTION(() => {
              if (!operand) return undefined;
              const span = this.ctx.spanAt(this.ctx.span(op).offset, operand.span.end);
              return this.nested(
                { kind: "UnaryExpr" as const, op: op.image === "-" ? ("-" as const) : ("not" as const), operand, span },
                [operand],
              );
            });
          },
        },
        { ALT: () => this.SUBRULE(this.postfix) },
      ],
    }),
  );

  /** `.field`, `.method(args)`, `.*` and `[index]` after a primary. */
  postfix = this.innerRule("postfix", (): Expr | undefined => {
    let object = this.SUBRULE(this.primary);
    this.MANY(() =>
      this.OR([
        {
          ALT: () => {
            this.CONSUME(T.Dot);
            const member = this.CONSUME(T.AnyWord);
            const args = this.OPTION(() => this.SUBRULE(this.argList));
            object = this.ACTION(() => {
              if (!object) return undefined;
              const span = this.ctx.spanAt(object.span.offset, this.ctx.span(this.LA(0)).end);
              if (args)
                return this.nested(
                  { kind: "MethodCallExpr" as const, object, method: this.ctx.name(member), args, span },
                  [object, ...args],
                );
              return this.nested({ kind: "MemberExpr" as const, object, member: this.ctx.name(member), span }, [
                object,
              ]);
            });
          },
        },
        {
          ALT: () => {
            const star = this.CONSUME(T.DotStar);
            object = this.ACTION(() => {
              if (!object) return undefined;
              const span = this.ctx.spanAt(object.span.offset, this.ctx.span(star).end);
              return this.nested({ kind: "EachExpr" as const, list: object, span }, [object]);
            });
          },
        },
        {
          ALT: () => {
            this.CONSUME(T.LBracket);
            const index = this.SUBRULE(this.expr);
            const close = this.CONSUME(T.RBracket);
            object = this.ACTION(() => {
              if (!object || !index) return undefined;
              const span = this.ctx.spanAt(object.span.offset, this.ctx.span(close).end);
              return this.nested({ kind: "IndexExpr" as const, object, index, span }, [object, index]);
            });
          },
        },
      ]),
    );
    return object;
  });

  /** `( [e {, e}] )`; line breaks are allowed between arguments. */
  argList = this.innerRule("argList", (): Expr[] => {
    this.CONSUME(T.LParen);
    const args: (Expr | undefined)[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RParen),
      DEF: () =>
        this.OR([
          { ALT: () => this.CONSUME(T.NL) },
          { ALT: () => this.CONSUME(T.Comma) },
          { ALT: () => args.push(this.SUBRULE(this.expr)) },
        ]),
    });
    this.CONSUME(T.RParen);
    return defined(args);
  });

  /** `{ f: e, … }`; entries are separated by commas or line breaks. */
  objectLiteral = this.innerRule("objectLiteral", (): Expr | undefined => {
    const open = this.CONSUME(T.LCurly);
    const entries: ObjectExpr["entries"] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () =>
        this.OR([
          { ALT: () => this.CONSUME(T.NL) },
          { ALT: () => this.CONSUME(T.Comma) },
          {
            ALT: () => {
              const field = this.CONSUME(T.AnyWord);
              this.CONSUME(T.Colon);
              this.MANY2(() => this.CONSUME2(T.NL));
              const value = this.SUBRULE(this.expr);
              this.ACTION(() => {
                if (value)
                  entries.push({
                    name: this.ctx.name(field),
                    value,
                    span: this.ctx.spanAt(this.ctx.span(field).offset, value.span.end),
                  });
              });
            },
          },
        ]),
    });
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() =>
      this.nested(
        { kind: "ObjectExpr" as const, entries, span: this.ctx.span(open, close) },
        entries.map((e) => e.value),
      ),
    );
  });

  /** `[e, …]`; items are separated by commas or line breaks. */
  listLiteral = this.innerRule("listLiteral", (): Expr | undefined => {
    const open = this.CONSUME(T.LBracket);
    const items: (Expr | undefined)[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RBracket),
      DEF: () =>
        this.OR([
          { ALT: () => this.CONSUME(T.NL) },
          { ALT: () => this.CONSUME(T.Comma) },
          { ALT: () => items.push(this.SUBRULE(this.expr)) },
        ]),
    });
    const close = this.CONSUME(T.RBracket);
    return this.ACTION(() => {
      const given = defined(items);
      return this.nested({ kind: "ListExpr" as const, items: given, span: this.ctx.span(open, close) }, given);
    });
  });

  /** `T{` with no space between: a query without the word `select` (`Order{ id == o.id }.lines`). */
  private atBareQuery(): boolean {
    const type = this.LA(1);
    const brace = this.LA(2);
    return (
      this.is(1, T.Identifier) && this.is(2, T.LCurly) && brace.startOffset === type.startOffset + type.image.length
    );
  }

  primary = this.innerRule("primary", (): Expr | undefined =>
    this.OR({
      ERR_MSG: "an expression",
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.literalExpr(this.CONSUME(T.IntLiteral)) },
        { ALT: () => this.literalExpr(this.CONSUME(T.FloatLiteral)) },
        { ALT: () => this.literalExpr(this.CONSUME(T.StringLiteral)) },
        { ALT: () => this.literalExpr(this.CONSUME(T.True)) },
        { ALT: () => this.literalExpr(this.CONSUME(T.False)) },
        { ALT: () => this.literalExpr(this.CONSUME(T.Null)) },
        {
          ALT: () => {
            this.CONSUME(T.LParen);
            const inner = this.SUBRULE(this.expr);
            this.CONSUME(T.RParen);
            return inner;
          },
        },
        {
          GATE: () => this.LA(1).image === "select" && this.is(2, T.Identifier) && this.is(3, T.LCurly),
          ALT: () => {
            const kw = this.CONSUME(T.Identifier);
            const select = this.SUBRULE(this.selectBody);
            return this.ACTION(
              () => select && { ...select, span: this.ctx.spanAt(this.ctx.span(kw).offset, select.span.end) },
            );
          },
        },
        { GATE: () => this.is(2, T.LParen), ALT: () => this.SUBRULE(this.call) },
        { GATE: () => this.atBareQuery(), ALT: () => this.SUBRULE2(this.selectBody) },
        { GATE: () => !this.inBlockHead, ALT: () => this.SUBRULE(this.objectLiteral) },
        { ALT: () => this.SUBRULE(this.listLiteral) },
        {
          // `LIVE select T{…}` / `subscribe live T{…}`
          GATE: () =>
            (this.is(1, T.Live) && this.LA(2).image === "select") ||
            (this.LA(1).image === "subscribe" && this.is(2, T.Live)),
          ALT: () => {
            const first = this.OR2([{ ALT: () => this.CONSUME(T.Live) }, { ALT: () => this.CONSUME3(T.Identifier) }]);
            this.OPTION({ GATE: () => this.is(1, T.Live), DEF: () => this.CONSUME2(T.Live) });
            const query = this.SUBRULE(this.primary);
            return this.ACTION(() => {
              if (!query) return undefined;
              const form: LiveExpr["form"] = first.image === "subscribe" ? "subscribe live" : "LIVE";
              return this.nested(
                {
                  kind: "LiveExpr" as const,
                  form,
                  query,
                  span: this.ctx.spanAt(this.ctx.span(first).offset, query.span.end),
                },
                [query],
              );
            });
          },
        },
        {
          ALT: () => {
            const t = this.OR4([{ ALT: () => this.CONSUME2(T.Identifier) }, { ALT: () => this.CONSUME3(T.Live) }]);
            return this.ACTION(() => ({ kind: "NameExpr" as const, name: this.ctx.name(t), span: this.ctx.span(t) }));
          },
        },
        {
          // `$session` (of `$session.user`): a name no binding can have; the checker knows it.
          ALT: () => {
            const t = this.CONSUME(T.Param);
            return this.ACTION(() => ({ kind: "NameExpr" as const, name: this.ctx.name(t), span: this.ctx.span(t) }));
          },
        },
      ],
    }),
  );

  private literalExpr(tok: IToken): Expr | undefined {
    return this.ACTION(() => {
      const literal = literalFrom(this.ctx, [tok]);
      return literal && { kind: "LiteralExpr" as const, literal, span: literal.span };
    });
  }

  call = this.innerRule("call", (): Expr | undefined => {
    const callee = this.OR([{ ALT: () => this.CONSUME(T.Identifier) }, { ALT: () => this.CONSUME(T.Contains) }]);
    const args = this.SUBRULE(this.argList);
    return this.ACTION(() => {
      const given = args ?? [];
      return this.nested(
        {
          kind: "CallExpr" as const,
          callee: this.ctx.name(callee),
          args: given,
          span: this.ctx.span(callee, this.LA(0)),
        },
        given,
      );
    });
  });

  /** `T { col == e, col2 >= e, projected, … }` — shared by `select` and `update`/`delete` targets. */
  selectBody = this.innerRule("selectBody", (): SelectExpr | undefined => {
    const type = this.CONSUME(T.Identifier);
    this.CONSUME(T.LCurly);
    const predicates: SelectExpr["predicates"] = [];
    const projection: Name[] = [];
    this.MANY({
      GATE: () => !this.is(1, T.RCurly),
      DEF: () =>
        this.OR([
          { ALT: () => this.CONSUME(T.NL) },
          { ALT: () => this.CONSUME(T.Comma) },
          {
            ALT: () => {
              const column = this.CONSUME(T.AnyWord);
              const pred = this.OPTION(() => {
                const op = this.SUBRULE(this.cmpOp);
                const value = this.SUBRULE(this.addExpr);
                return { op, value };
              });
              this.ACTION(() => {
                const name = this.ctx.name(column);
                if (!pred) projection.push(name);
                else if (pred.value) {
                  predicates.push({
                    column: name,
                    op: pred.op.image as CmpOp,
                    value: pred.value,
                    span: this.ctx.spanAt(name.span.offset, pred.value.span.end),
                  });
                }
              });
            },
          },
        ]),
    });
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() =>
      this.nested(
        {
          kind: "SelectExpr" as const,
          type: this.ctx.name(type),
          predicates,
          projection,
          span: this.ctx.span(type, close),
        },
        predicates.map((p) => p.value),
      ),
    );
  });

  private binary(op: BinaryOp, left: Expr | undefined, right: Expr | undefined): Expr | undefined {
    if (!left || !right) return undefined;
    return this.nested(
      { kind: "BinaryExpr", op, left, right, span: this.ctx.spanAt(left.span.offset, right.span.end) },
      [left, right],
    );
  }

  /** How many operators, members, calls and selects each expression node holds inside one another. */
  private readonly depths = new WeakMap<Expr, number>();

  /**
   * `node` (built from `children`) when it nests at most MAX_EXPR_DEPTH deep; otherwise WO1013
   * at its start, and undefined with a hole so its statement is dropped. The checker and the
   * emitters walk expressions recursively: a 6,000-term `1 + 1 + …`, which this grammar reads
   * in a loop, must end as a diagnostic there, not as a stack overflow further on.
   */
  private nested<E extends Expr>(node: E, children: readonly Expr[]): E | undefined {
    let depth = 1;
    for (const child of children) depth = Math.max(depth, (this.depths.get(child) ?? 0) + 1);
    if (depth > MAX_EXPR_DEPTH) {
      this.ctx.diags.report("WO1013", node.span, { max: String(MAX_EXPR_DEPTH) });
      this.ctx.holes++;
      return undefined;
    }
    this.depths.set(node, depth);
    return node;
  }

  // ------------------------------------------------------------------------------------------
  // Top-level blocks

  /** A top-level policy's `when:` value: one expression and nothing after it. */
  condition = this.RULE("condition", (): Expr | undefined => this.SUBRULE(this.expr));

  mainBlock = this.RULE("mainBlock", (): MainBlock | undefined => {
    const kw = this.CONSUME(T.Main);
    this.MANY(() => this.CONSUME(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => body && { kind: "MainBlock" as const, body, span: this.ctx.span(kw, this.LA(0)) });
  });

  testBlock = this.RULE("testBlock", (): TestBlock | undefined => {
    const kw = this.CONSUME(T.Test);
    const title = this.CONSUME(T.StringLiteral);
    this.MANY(() => this.CONSUME(T.NL));
    const body = this.SUBRULE(this.block);
    return this.ACTION(() => {
      if (!body) return undefined;
      return {
        kind: "TestBlock" as const,
        title: { value: unquote(title.image), span: this.ctx.span(title) },
        body,
        span: this.ctx.span(kw, this.LA(0)),
      };
    });
  });
}

/**
 * chevrotain's messages become only the "expected" half of WO1003; parse.ts adds "but found …"
 * itself, because a chunk's end-of-input really is the next declaration's first token.
 */
const expectedOnlyMessages = {
  buildMismatchTokenMessage: ({ expected }: { expected: TokenType }) => labelOf(expected),
  buildNotAllInputParsedMessage: () => "end of declaration",
  buildNoViableAltMessage: ({
    expectedPathsPerAlt,
    customUserDescription,
  }: {
    expectedPathsPerAlt: TokenType[][][];
    customUserDescription?: string;
  }) =>
    customUserDescription ??
    oneOf(
      expectedPathsPerAlt
        .flat()
        .map((path) => path[0])
        .filter((t): t is TokenType => t !== undefined),
    ),
  buildEarlyExitMessage: ({
    expectedIterationPaths,
    customUserDescription,
  }: {
    expectedIterationPaths: TokenType[][];
    customUserDescription?: string;
  }) =>
    customUserDescription ??
    oneOf(expectedIterationPaths.map((path) => path[0]).filter((t): t is TokenType => t !== undefined)),
};

function labelOf(t: TokenType): string {
  return t.LABEL ?? t.name;
}

function oneOf(types: TokenType[]): string {
  const labels = [...new Set(types.map(labelOf))];
  if (labels.length <= 1) return labels[0] ?? "something else";
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`;
}

let shared: WoParser | undefined;
/** The one parser instance (grammar analysis runs once per process). */
export function woParser(): WoParser {
  shared ??= new WoParser();
  return shared;
}
