// The token vocabulary of `.wo` (spec/language.md, "Lexical structure") and the one Lexer.
//
// Owns: token types, their order, their readable labels (used in "Expected X but found Y"),
// and the NL-collapsing pass. Leaves every grammar decision to parser.ts.
//
// Order matters: chevrotain takes the FIRST token type whose pattern matches, not the longest.
// So comments come before `-`, multi-character operators before their prefixes, `##` before
// `#`, Float before Int, and keywords before Identifier (every keyword also matches
// Identifier; `longer_alt` turns `types`, `index`, `online` back into identifiers).

import { createToken, Lexer, type IToken, type TokenType } from "./chevrotain.js";

// Categories: a token type with no pattern that others belong to.
/** Every identifier-shaped token: Identifier plus all keywords (field-name position accepts these). */
export const AnyWord = createToken({ name: "AnyWord", pattern: Lexer.NA, label: "a name" });
/** Every real token; raw "capture until" loops consume this. */
export const AnyToken = createToken({ name: "AnyToken", pattern: Lexer.NA, label: "a token" });

// The hyphen rule (spec/language.md, "Identifiers"): `-` continues an identifier only before a letter,
// so `order-board` is one token while `A->B`, `x-1` and `a--b` lex as a reader expects.
export const Identifier = createToken({
  name: "Identifier",
  // Same language as /[A-Za-z_](?:[A-Za-z0-9_]|-(?=[A-Za-z]))*/, without a lookahead per character.
  pattern: /[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*/,
  start_chars_hint: [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"],
  categories: [AnyWord, AnyToken],
  label: "a name",
});

const plain = (name: string, pattern: RegExp, label: string, extra: Partial<Parameters<typeof createToken>[0]> = {}) =>
  createToken({ name, pattern, label, categories: [AnyToken], ...extra });

export const Comment = createToken({ name: "Comment", pattern: /--[^\n]*/, group: "comments" });
export const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /[ \t\r]+/, group: Lexer.SKIPPED });
export const NL = plain("NL", /\n/, "end of line", { line_breaks: true });
export const BlockMarker = plain("BlockMarker", /##[A-Za-z0-9_-]*/, "a '##' block marker");
export const HashMarker = plain("HashMarker", /#[A-Za-z0-9_-]*/, "a '#' marker");
export const Param = plain("Param", /\$[A-Za-z0-9_-]+/, "a '$' parameter");
export const StringLiteral = plain(
  "StringLiteral",
  // Unrolled (`[^"\\]*(?:\\.[^"\\]*)*`) so a 10 MB string does not exhaust the regex stack.
  /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|'[^'\\]*(?:\\[\s\S][^'\\]*)*'/,
  "a string",
  { line_breaks: true },
);
// Only matches when no closing quote exists anywhere after the opening one; parse.ts reports it
// (WO1002) at the opening quote and drops it.
export const UnterminatedString = createToken({
  name: "UnterminatedString",
  pattern: /["'][\s\S]*/,
  line_breaks: true,
  label: "an unterminated string",
});
// A run of characters that can start no token (`&`, `^`, `~`, control bytes, non-ASCII outside
// strings and comments). As a token it costs one regex match per run; left to chevrotain's error
// mode it would cost every pattern per character (minutes for 10 MB of binary garbage).
// parse.ts reports it as WO1001 naming its first character and drops it.
export const Unexpected = createToken({
  name: "Unexpected",
  pattern: /[^A-Za-z0-9_ \t\r\n"'{}()[\],;:.?@|+*/%=<>#$!-]+/,
  // chevrotain cannot analyse a complement set; it buckets char codes above 255 by their high
  // byte, so one code per 256-block covers them.
  start_chars_hint: unexpectedStartChars(),
  label: "an unexpected character",
});

function unexpectedStartChars(): number[] {
  const allowed = /[A-Za-z0-9_ \t\r\n"'{}()[\],;:.?@|+*/%=<>#$!-]/;
  const codes: number[] = [];
  for (let c = 0; c < 256; c++) if (!allowed.test(String.fromCharCode(c))) codes.push(c);
  for (let c = 256; c < 0x10000; c += 256) codes.push(c);
  return codes;
}
export const FloatLiteral = plain("FloatLiteral", /[0-9]+\.[0-9]+/, "a number");
export const IntLiteral = plain("IntLiteral", /[0-9]+/, "an integer");

export const Arrow = plain("Arrow", /->/, "'->'");
export const MinusEq = plain("MinusEq", /-=/, "'-='");
export const Minus = plain("Minus", /-/, "'-'");
export const EqEq = plain("EqEq", /==/, "'=='");
export const FatArrow = plain("FatArrow", /=>/, "'=>'");
export const Eq = plain("Eq", /=/, "'='");
export const NotEq = plain("NotEq", /!=/, "'!='");
export const LtEq = plain("LtEq", /<=/, "'<='");
export const Lt = plain("Lt", /</, "'<'");
export const GtEq = plain("GtEq", />=/, "'>='");
export const Gt = plain("Gt", />/, "'>'");
export const PlusEq = plain("PlusEq", /\+=/, "'+='");
export const Plus = plain("Plus", /\+/, "'+'");
export const Star = plain("Star", /\*/, "'*'");
export const Slash = plain("Slash", /\//, "'/'");
export const Percent = plain("Percent", /%/, "'%'");
export const DotDot = plain("DotDot", /\.\./, "'..'");
export const DotStar = plain("DotStar", /\.\*/, "'.*'");
export const Dot = plain("Dot", /\./, "'.'");
export const LCurly = plain("LCurly", /\{/, "'{'");
export const RCurly = plain("RCurly", /\}/, "'}'");
export const LParen = plain("LParen", /\(/, "'('");
export const RParen = plain("RParen", /\)/, "')'");
export const LBracket = plain("LBracket", /\[/, "'['");
export const RBracket = plain("RBracket", /\]/, "']'");
export const Comma = plain("Comma", /,/, "','");
export const Semi = plain("Semi", /;/, "';'");
export const Colon = plain("Colon", /:/, "':'");
export const Question = plain("Question", /\?/, "'?'");
export const At = plain("At", /@/, "'@'");
export const Pipe = plain("Pipe", /\|/, "'|'");

// Keywords are reserved everywhere except field-name position (spec/language.md, "Keywords"). A few have an
// uppercase spelling that is the same token.
const keyword = (word: string, upper = false) =>
  createToken({
    name: word[0]!.toUpperCase() + word.slice(1),
    pattern: upper ? new RegExp(`${word}|${word.toUpperCase()}`) : new RegExp(word),
    longer_alt: Identifier,
    categories: [AnyWord, AnyToken],
    label: `'${word}'`,
  });

export const Abort = keyword("abort");
export const And = keyword("and", true);
export const Anyone = keyword("anyone");
export const As = keyword("as", true);
export const Assert = keyword("assert");
export const Backlink = keyword("backlink");
export const Call = keyword("call");
export const Class = keyword("class");
export const Contains = keyword("contains");
export const Do = keyword("do");
export const Each = keyword("each");
export const Else = keyword("else");
export const Emit = keyword("emit");
export const Enqueue = keyword("enqueue");
export const Expose = keyword("expose");
export const False = keyword("false");
export const Fn = keyword("fn");
export const For = keyword("for");
export const Graphql = keyword("graphql");
export const If = keyword("if");
export const In = keyword("in");
export const Let = keyword("let");
export const Link = keyword("link");
export const Live = keyword("live", true);
export const Main = keyword("main");
export const Multi = keyword("multi");
export const Native = keyword("native");
export const Not = keyword("not", true);
export const Null = keyword("null");
export const On = keyword("on");
export const Or = keyword("or", true);
export const Otherwise = keyword("otherwise");
export const Policy = keyword("policy");
export const Ref = keyword("ref");
export const Rest = keyword("rest");
export const Return = keyword("return");
export const Returning = keyword("returning", true);
export const Role = keyword("role");
export const Serializable = keyword("serializable");
export const Service = keyword("service");
// biome-ignore lint/suspicious/noShadowRestrictedNames: token names are the keywords they match; this module uses no global Set
export const Set = keyword("set", true);
export const Snapshot = keyword("snapshot");
export const Startup = keyword("startup");
export const Test = keyword("test");
export const True = keyword("true");
export const Txn = keyword("txn");
export const Type = keyword("type");
export const Via = keyword("via");
export const When = keyword("when");
/** The uppercase query-layer words: reserved, never meaningful in the declaration language. */
export const QueryKeyword = createToken({
  name: "QueryKeyword",
  pattern: /BEGIN|COMMIT|CREATE|DELETE|FROM|INSERT|INTO|MATCH|ROLLBACK|SAVEPOINT|SELECT|TO|UPDATE|VALUES|WHERE/,
  longer_alt: Identifier,
  categories: [AnyWord, AnyToken],
  label: "a reserved query word",
});

const keywordLength = (t: TokenType) => (t === QueryKeyword ? 0 : String(t.LABEL).length);

const keywords: TokenType[] = [
  Abort,
  And,
  Anyone,
  As,
  Assert,
  Backlink,
  Call,
  Class,
  Contains,
  Do,
  Each,
  Else,
  Emit,
  Enqueue,
  Expose,
  False,
  Fn,
  For,
  Graphql,
  If,
  In,
  Let,
  Link,
  Live,
  Main,
  Multi,
  Native,
  Not,
  Null,
  On,
  Or,
  Otherwise,
  Policy,
  Ref,
  Rest,
  Return,
  Returning,
  Role,
  Serializable,
  Service,
  Set,
  Snapshot,
  Startup,
  Test,
  True,
  Txn,
  Type,
  Via,
  When,
  QueryKeyword,
];

export const allTokens: TokenType[] = [
  Comment,
  WhiteSpace,
  NL,
  BlockMarker,
  HashMarker,
  Param,
  StringLiteral,
  UnterminatedString,
  FloatLiteral,
  IntLiteral,
  Unexpected,
  Arrow,
  MinusEq,
  Minus,
  EqEq,
  FatArrow,
  Eq,
  NotEq,
  LtEq,
  Lt,
  GtEq,
  Gt,
  PlusEq,
  Plus,
  Star,
  Slash,
  Percent,
  DotDot,
  DotStar,
  Dot,
  LCurly,
  RCurly,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Semi,
  Colon,
  Question,
  At,
  Pipe,
  // Longer keywords first: `as` must not win over `assert`, nor `return` over `returning`.
  ...[...keywords].sort((a, b) => keywordLength(b) - keywordLength(a)),
  Identifier,
  AnyWord,
  AnyToken,
];

// Built once: building a chevrotain Lexer analyses every pattern.
// Only LF ends a line (spec/language.md, "Lexical structure"): chevrotain would otherwise also count the CR of CRLF as one.
export const woLexer = new Lexer(allTokens, {
  // Start positions only: ends are startOffset + image length, and 3.4 million tokens of a
  // 10 MB file are noticeably smaller without endLine/endColumn.
  positionTracking: "onlyStart",
  ensureOptimizations: true,
  lineTerminatorsPattern: /\n/g,
  lineTerminatorCharacters: ["\n"],
});

/** Runs of NL collapse into one (spec/language.md, "Whitespace and newlines"): blank and comment-only lines never add NLs. */
export function collapseNewlines(tokens: IToken[]): IToken[] {
  const out: IToken[] = [];
  for (const t of tokens) {
    if (t.tokenType === NL && out.length > 0 && out[out.length - 1]!.tokenType === NL) continue;
    out.push(t);
  }
  return out;
}
