// What every part of the method checker shares while it types one body: the catalog and the
// body's owner, the diagnostics bag, the flat scope, and the typing it builds for the emitter.
//
// The body checker is split by concept (statements.ts, writes.ts, returns.ts, expressions.ts,
// calls.ts, queries.ts, literals.ts, variants.ts); each takes this context. Modules below the
// expression level type subexpressions through `check.expr`, so none imports expressions.ts
// and the modules form no import cycle.

import type {
  AssignStmt,
  BinaryExpr,
  Expr,
  LinkStmt,
  MemberExpr,
  MethodCallExpr,
  NameExpr,
  ObjectExpr,
  UpdateStmt,
} from "../../ast.js";
import type { Catalog, CatalogField, CatalogMethod, CatalogType } from "../../catalog.js";
import type { DiagnosticBag } from "../../diagnostics/diagnostic.js";
import type { SkippedFunctions } from "../functions.js";
import type { ValueType } from "../method-types.js";

/** What a name in a body refers to. */
export type NameBinding =
  | { kind: "self" }
  | { kind: "param"; name: string }
  | { kind: "let"; name: string }
  /** A union variant written bare (`Admin`): the text `"Admin"`. */
  | { kind: "variant"; value: string }
  /**
   * The row an `update` is writing, as read before it (`f += e` reads `f` from it), or with
   * `field` one of its fields named bare in a `set` value (`set n = n + 1`).
   */
  | { kind: "updated"; field?: string }
  /** A field of the row `contains(rows, pred)` is testing (`slug` in `slug == "two"`). */
  | { kind: "element"; field: string; row: string };

/** `o.customer.name` where `o.customer` is a `ref T` id: the row of `type` it names is read. */
export interface RefRead {
  type: string;
  table: string;
}

/**
 * How `row.rel` reads: rows of `table` (type `type`) whose ref `column` is the row's id — or,
 * for `multi T via L`, the `T` rows named in `column` of the `link` rows whose `ownerColumn`
 * is the row's id (runtime/relations.ts decides which).
 */
export interface RelationRead {
  type: string;
  table: string;
  column: string;
  link?: { table: string; ownerColumn: string };
}

export interface MethodTyping {
  exprTypes: Map<Expr, ValueType>;
  names: Map<NameExpr, NameBinding>;
  relations: Map<MemberExpr, RelationRead>;
  /** Object literals that fit a struct or row, with every field that value has, in order. */
  objectFields: Map<ObjectExpr, CatalogField[]>;
  /** `o.m(args)`: the class whose method runs (`o` a row, or a `ref` id read first). */
  methodCalls: Map<MethodCallExpr, { type: string; table: string; isRef: boolean }>;
  /** Arguments that are rows given to a `ref T` parameter: their id is passed. */
  rowIds: Set<Expr>;
  /** Member reads whose object is a `ref T` id, so the referenced row is read first. */
  refReads: Map<MemberExpr, RefRead>;
  /** Every name bound by `let`, with how often and whether only at the top level. */
  lets: Map<string, { count: number; isTopLevelOnly: boolean; type: ValueType }>;
  /** Names a statement rebinds after their first binding (`update self …` rebinds `self`). */
  reassigned: Set<string>;
  /** `x += e` / `x -= e` as the arithmetic it performs (`x + e`), typed like any expression. */
  compound: Map<AssignStmt, BinaryExpr>;
  /**
   * Update assignments that depend on the row being written: `f += e` as `row.f + e`, and
   * `set a.b = e`, whose field `a` is the stored struct with `b` replaced (`path`).
   */
  rowUpdates: Map<UpdateAssignment, { value: Expr; path: string[]; field: CatalogField }>;
  /** `link`/`unlink` statements → the link type they write (for `-[:LABEL]->`, its edge field's). */
  linkTypes: Map<LinkStmt, string>;
}

export type UpdateAssignment = UpdateStmt["assignments"][number];

/** One body being typed: a class method (`owner` its class, `self` in scope) or a free fn. */
export interface BodyCheck {
  readonly catalog: Catalog;
  readonly owner: CatalogType | undefined;
  readonly method: CatalogMethod;
  readonly bag: DiagnosticBag;
  /** The free fns and class methods that are not executed, for WO5028 at their calls. */
  readonly skipped: SkippedFunctions;
  readonly typing: MethodTyping;
  /** The one flat scope of the call: `self`, parameters and `let` names. */
  readonly scope: Map<string, { binding: NameBinding; type: ValueType }>;
  /** Every union variant of the program: the names a body may write bare. */
  readonly variants: Set<string>;
  /** Object literals that went into a known type (fitting or not); the rest are WO5025. */
  readonly fitted: Set<ObjectExpr>;
  /** The declared result type, when the signature has `-> T`. */
  readonly declared: ValueType | undefined;
  /** Names certainly bound on every path that reaches the current statement. */
  bound: Set<string>;
  /** How many names have read the row an `update` is writing so far (writes.ts counts them per value). */
  updatedReads: number;
  /** The keys of the rows each `return` of rows gives, for the method's output schema. */
  readonly returnedKeys: string[][];
  /** Types an expression and records its type (expressions.ts). */
  expr(e: Expr): ValueType;
  /** Inside an aggregate's argument that goes over a list with `.*` (each.ts): that list and its element. */
  each?: { path: string; element: ValueType } | undefined;
}
