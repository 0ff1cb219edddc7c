// The syntax tree of one `.wo` file, as the parser builds it (compiler/syntax/to-ast.ts).
//
// Owns: the shape of every construct of the declaration language (spec/language.md), with a
// source span on every node so any later phase can point a diagnostic at it.
// Leaves to the checker (compiler/check/): whether names resolve, whether types fit, and
// what a construct means. Nothing here knows about other files.
//
// Nodes are plain objects discriminated on `kind`; `kind` equals the interface name.

/** A region of one source file. Lines and columns are 1-based; `end` is an exclusive offset. */
export interface Span {
  file: string;
  offset: number;
  end: number;
  line: number;
  col: number;
}

/** One identifier as written, with its position. */
export interface Name {
  text: string;
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Files and top-level items

export interface SourceFileAst {
  kind: "SourceFileAst";
  /** Path relative to the app root, with `/` separators (diagnostics print this). */
  file: string;
  items: TopItem[];
  /** `--` comment lines, kept so the checker can attach doc comments to declarations. */
  comments: Comment[];
}

export interface Comment {
  /** Text after `--`, trimmed. */
  text: string;
  span: Span;
}

export type TopItem = TypeDecl | FnDecl | MainBlock | TestBlock | AppManifest | OpaqueBlock | TopPolicy | StartupHook;

/** `type T { … }`, `class T { … }` or a link type `type L link A -> B { … }`. */
export interface TypeDecl {
  kind: "TypeDecl";
  keyword: "type" | "class";
  name: Name;
  link?: { from: Name; to: Name; span: Span };
  /** Type-level annotations in source order, `@table(...)` among them. */
  annotations: Annotation[];
  table?: TableAnnotation;
  members: Member[];
  /** The `--` comment lines directly above the declaration, joined by "\n". */
  doc?: string;
  span: Span;
}

export type Member = FieldDecl | ServiceDecl | PolicyLine | Trigger | FnDecl;

// ---------------------------------------------------------------------------------------------
// Annotations

/** `@name` or `@name(...)`; arguments are kept as raw tokens unless the annotation is interpreted. */
export interface Annotation {
  kind: "Annotation";
  name: Name;
  /** Source text between the parentheses, or undefined when there were none. */
  argsText?: string;
  /** Parsed arguments for `@default(<literal>)`. */
  defaultValue?: Literal;
  /** `@check(<boolean expression>)`: the expression, when it parses (compiler/syntax/row-exprs.ts). */
  expr?: Expr;
  span: Span;
}

export interface TableAnnotation {
  kind: "TableAnnotation";
  /** `name: "…"`; undefined when absent. */
  storageName?: { value: string; span: Span };
  /** Each `index: [a, b]` is one composite index. */
  indexes: { columns: Name[]; span: Span }[];
  /** Keys other than name/index, kept so the checker can report them. */
  unknownKeys: Name[];
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Fields and type expressions

export interface FieldDecl {
  kind: "FieldDecl";
  name: Name;
  type: TypeExpr;
  isOptional: boolean;
  annotations: Annotation[];
  default?: DefaultExpr;
  doc?: string;
  span: Span;
}

export type TypeExpr = NamedType | UnionType | RefType | MultiType | BacklinkType | ArrayType | StructType;

/** A scalar (`Int`, `Text`, …) or a declared type embedded by value. */
export interface NamedType {
  kind: "NamedType";
  name: Name;
  span: Span;
}

/** `A | B | C`: variants are bare identifiers, not type references. */
export interface UnionType {
  kind: "UnionType";
  variants: Name[];
  span: Span;
}

export interface RefType {
  kind: "RefType";
  target: Name;
  span: Span;
}

/** `multi T`, `multi T @edge(:LABEL)` or `multi T via L`. */
export interface MultiType {
  kind: "MultiType";
  target: Name;
  edgeLabel?: Name;
  via?: Name;
  span: Span;
}

/** `backlink T.f`. */
export interface BacklinkType {
  kind: "BacklinkType";
  target: Name;
  field: Name;
  span: Span;
}

export interface ArrayType {
  kind: "ArrayType";
  element: TypeExpr;
  span: Span;
}

export interface StructType {
  kind: "StructType";
  fields: FieldDecl[];
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Defaults

export type DefaultExpr = LiteralDefault | NowDefault | VariantDefault | ComputedDefault;

export interface LiteralDefault {
  kind: "LiteralDefault";
  value: Literal;
  span: Span;
}

/** `now` or `now()`: the creation time. */
export interface NowDefault {
  kind: "NowDefault";
  span: Span;
}

/** A single bare identifier, e.g. `= Draft` for a union field. */
export interface VariantDefault {
  kind: "VariantDefault";
  name: Name;
  span: Span;
}

/** Anything else: a computed field's expression (spec/language.md, "Computed fields"). */
export interface ComputedDefault {
  kind: "ComputedDefault";
  text: string;
  /** The expression, when the method grammar reads it (compiler/syntax/row-exprs.ts); else kept as text only. */
  expr?: Expr;
  span: Span;
}

export type LiteralValue = string | number | boolean | null;

export interface Literal {
  kind: "Literal";
  /** Integers are JS numbers (safe range is checked by the checker); `-5` and `1.5` are literals. */
  value: LiteralValue;
  /** "int" | "float" distinguishes `1` from `1.0` for Int vs Float checks. */
  literalType: "string" | "int" | "float" | "bool" | "null";
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Services, policies, triggers

export interface ServiceDecl {
  kind: "ServiceDecl";
  /** `rest` | `mcp` | `graphql` | `native`; anything else is reported by the checker. */
  serviceKind: Name;
  path: { value: string; span: Span };
  expose: Name[];
  span: Span;
}

/** `policy read anyone when visible == true`, `policy write for role Clerk` (compiler/check/policies.ts). */
export interface PolicyLine {
  kind: "PolicyLine";
  action: Name;
  isAnyone: boolean;
  role?: Name;
  /** The `when` condition as source text. */
  whenText?: string;
  /** The `when` condition as parsed; the checker types it against the type's fields. */
  when?: Expr;
  span: Span;
}

/**
 * `on create|update|delete [when …] do …` (spec/language.md, "Triggers"). The texts are kept as
 * written; `when` and each action's `run` are what the parser read of them (compiler/syntax/
 * trigger-parts.ts), absent when they could not be read (a syntax error was reported).
 */
export interface Trigger {
  kind: "Trigger";
  event: Name;
  whenText?: string;
  when?: Expr;
  actions: TriggerAction[];
  span: Span;
}

/**
 * One `do …`. `verb`: `set`, `call`, `emit`, `enqueue`, or `statement` (a write such as
 * `update T{ … }.f = e`). `run` is the statement it runs: `set self.f = e` as
 * `update self set f = e`, `call f(a)` as the call `f(a)`; none for `emit` and `enqueue`.
 */
export interface TriggerAction {
  text: string;
  verb: "set" | "call" | "emit" | "enqueue" | "statement";
  run?: Stmt;
  /** `emit "name"(args)`: the event's name and arguments, as read (trigger-parts.ts). */
  emit?: EmitAction;
  /** `enqueue "name" with { … }`: the job's name and fields, as read (trigger-parts.ts). */
  enqueue?: EnqueueAction;
  span: Span;
}

/** `enqueue "name" with { k: e, … }` (spec/language.md, "Triggers"): `name` is the string's value. */
export interface EnqueueAction {
  name: string;
  nameSpan: Span;
  fields: { name: Name; value: Expr; span: Span }[];
}

/** `emit "name"(a, b)` (spec/language.md, "Triggers"): `name` is the string's value. */
export interface EmitAction {
  name: string;
  nameSpan: Span;
  args: Expr[];
}

/** Top-level `policy Name` block (applies_to / when / effect), compiler/check/policies.ts. */
export interface TopPolicy {
  kind: "TopPolicy";
  name: Name;
  entries: { key: Name; valueText: string; span: Span }[];
  /** The `when:` entry's value as parsed (undefined when absent or unparsable). */
  when?: Expr;
  span: Span;
}

/** `on startup do: f()`. Not executed. */
export interface StartupHook {
  kind: "StartupHook";
  text: string;
  span: Span;
}

/** `##app` manifest: `key: value` entries, `styles:` lists and `routes:` lines. */
export interface AppManifest {
  kind: "AppManifest";
  entries: { key: Name; valueText: string; span: Span }[];
  span: Span;
}

/** `##ui`, `##component`, `##logic`, … : kept as text, never interpreted. */
export interface OpaqueBlock {
  kind: "OpaqueBlock";
  marker: Name;
  text: string;
  span: Span;
}

export interface MainBlock {
  kind: "MainBlock";
  body: Block;
  span: Span;
}

export interface TestBlock {
  kind: "TestBlock";
  title: { value: string; span: Span };
  body: Block;
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Functions and methods

/** `fn m(p: T, …) -> R in txn [snapshot|serializable] { … }`: a method in a class/type, or free. */
export interface FnDecl {
  kind: "FnDecl";
  name: Name;
  params: Param[];
  returnType?: ReturnType;
  /** Present when the signature says `in txn`. */
  txn?: { mode: "default" | "snapshot" | "serializable"; span: Span };
  body: Block;
  doc?: string;
  span: Span;
}

export interface Param {
  kind: "Param";
  name: Name;
  type: Name;
  /** The `--` lines directly above the parameter, when the parameters are written one per line. */
  doc?: string;
  /** Written `p: ref T` (the same as `p: T`: a row id). */
  isRef?: boolean;
  span: Span;
}

export interface ReturnType {
  /** `T` or `[T]`. */
  name: Name;
  isArray: boolean;
  span: Span;
}

export interface Block {
  kind: "Block";
  statements: Stmt[];
  span: Span;
}

export type Stmt =
  | LetStmt
  | InsertStmt
  | ReturnStmt
  | AssertStmt
  | IfStmt
  | UpdateStmt
  | DeleteStmt
  | ForStmt
  | AssignStmt
  | ExprStmt
  | LinkStmt
  | ExpectAbortStmt
  | AsSessionStmt;

export interface LetStmt {
  kind: "LetStmt";
  name: Name;
  /** `let x = insert T { … }` binds the new row. */
  value: Expr | InsertStmt;
  span: Span;
}

/** `for x in expr { … }`. */
export interface ForStmt {
  kind: "ForStmt";
  variable: Name;
  iterable: Expr;
  body: Block;
  span: Span;
}

/** `x = e`, `x += e`, `x -= e` (also `row.f = e`). */
export interface AssignStmt {
  kind: "AssignStmt";
  target: Expr;
  op: "=" | "+=" | "-=";
  value: Expr;
  span: Span;
}

/** A call on its own line: `f(x)`, `row.m(x)`, `print(a, b)`. */
export interface ExprStmt {
  kind: "ExprStmt";
  expr: Expr;
  span: Span;
}

/**
 * `link a -[E { f: e, … }]-> b`, `link a -[:LABEL]-> b`, and the removal `unlink a -[E]-> b`.
 * `edge` is the link type (or label) named between the brackets.
 */
export interface LinkStmt {
  kind: "LinkStmt";
  remove: boolean;
  from: Expr;
  edge: Name;
  /** `:LABEL` form (an edge label, not a link type). */
  isLabel: boolean;
  entries: { name: Name; value: Expr; span: Span }[];
  to: Expr;
  span: Span;
}

/** `expect_abort "part of the message" { … }` (tests): passes when the block aborts. */
export interface ExpectAbortStmt {
  kind: "ExpectAbortStmt";
  message?: { value: string; span: Span };
  body: Block;
  span: Span;
}

/**
 * `as session { user: …, role: … } { … }` (tests): run the block as that caller
 * (spec/policies.md). The older `as session who { … }` form names the caller instead
 * (`identity`): wo runs `anonymous` and `$row` (spec/policies.md), no other name.
 */
export interface AsSessionStmt {
  kind: "AsSessionStmt";
  identity?: { text: string; span: Span };
  /** `as session $a { … }`: the row `a` (a `let` or parameter) is the caller. */
  row?: NameExpr;
  /** The `{ user: …, role: … }` literal. */
  principal?: ObjectExpr;
  body: Block;
  span: Span;
}

export interface InsertStmt {
  kind: "InsertStmt";
  type: Name;
  entries: { name: Name; value: Expr; span: Span }[];
  span: Span;
}

export interface ReturnStmt {
  kind: "ReturnStmt";
  value?: Expr;
  span: Span;
}

export interface AssertStmt {
  kind: "AssertStmt";
  condition: Expr;
  /** `otherwise abort "message"`; undefined message means the default "assertion failed". */
  abortMessage?: { value: string; span: Span };
  /** `otherwise abort <expression>` when the message is computed (`"low: " + p.sku`). */
  abortExpr?: Expr;
  span: Span;
}

export interface IfStmt {
  kind: "IfStmt";
  condition: Expr;
  then: Block;
  else?: Block | IfStmt;
  span: Span;
}

/** `update T{ predicate }.field = expr` / `update T{ p } set a = b, …` / `update self set a = b`. */
export interface UpdateStmt {
  kind: "UpdateStmt";
  target: SelectExpr | NameExpr;
  /**
   * `path` holds the inner names of `set a.b.c = e` (field `a`, path `[b, c]`); `op` is there
   * for `f += e` / `f -= e` (absent for `=`).
   */
  assignments: { field: Name; path?: Name[]; op?: "+=" | "-="; value: Expr; span: Span }[];
  span: Span;
}

/** `delete T{ predicate }` / `delete self`. */
export interface DeleteStmt {
  kind: "DeleteStmt";
  target: SelectExpr | NameExpr;
  span: Span;
}

export type Expr =
  | BinaryExpr
  | UnaryExpr
  | MemberExpr
  | CallExpr
  | SelectExpr
  | NameExpr
  | LiteralExpr
  | IndexExpr
  | MethodCallExpr
  | ObjectExpr
  | ListExpr
  | LiveExpr
  | EachExpr;

/** `xs.*`: each element of the list `xs`, in an aggregate's argument (compiler/check/body/each.ts). */
export interface EachExpr {
  kind: "EachExpr";
  list: Expr;
  span: Span;
}

/** `a[i]`. */
export interface IndexExpr {
  kind: "IndexExpr";
  object: Expr;
  index: Expr;
  span: Span;
}

/** `row.m(args)`: a method of the row's class, in the caller's transaction. */
export interface MethodCallExpr {
  kind: "MethodCallExpr";
  object: Expr;
  method: Name;
  args: Expr[];
  span: Span;
}

/** `{ f: e, … }`. */
export interface ObjectExpr {
  kind: "ObjectExpr";
  entries: { name: Name; value: Expr; span: Span }[];
  span: Span;
}

/** `[e, …]`. */
export interface ListExpr {
  kind: "ListExpr";
  items: Expr[];
  span: Span;
}

/** `LIVE select T{ … }` / `subscribe live T{ … }`: a subscription, not a snapshot. */
export interface LiveExpr {
  kind: "LiveExpr";
  form: "LIVE" | "subscribe live";
  query: Expr;
  span: Span;
}

export type BinaryOp = "or" | "and" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%";

export interface BinaryExpr {
  kind: "BinaryExpr";
  op: BinaryOp;
  left: Expr;
  right: Expr;
  span: Span;
}

export interface UnaryExpr {
  kind: "UnaryExpr";
  op: "-" | "not";
  operand: Expr;
  span: Span;
}

/** `object.field` (also `self.field`, `self.relation`). */
export interface MemberExpr {
  kind: "MemberExpr";
  object: Expr;
  member: Name;
  span: Span;
}

export interface CallExpr {
  kind: "CallExpr";
  callee: Name;
  args: Expr[];
  span: Span;
}

/** `select T { col == expr, col2 >= expr, projected_col, … }`. */
export interface SelectExpr {
  kind: "SelectExpr";
  type: Name;
  predicates: { column: Name; op: "==" | "!=" | "<" | "<=" | ">" | ">="; value: Expr; span: Span }[];
  projection: Name[];
  span: Span;
}

/** A parameter, a `let` binding or `self`. */
export interface NameExpr {
  kind: "NameExpr";
  name: Name;
  span: Span;
}

export interface LiteralExpr {
  kind: "LiteralExpr";
  literal: Literal;
  span: Span;
}
