// Policies: who may read, write and delete which rows of a type (spec/policies.md). The compiler
// turns each `policy` line into a PolicyGrant on its CatalogType and each top-level `policy NAME`
// block into a BypassPolicy on the Catalog; the runtime decides every call from them. Session
// values are bound per caller (a RowCondition), so the same condition is compiled into SQL for
// list, get, count and relation reads, and evaluated on rows for writes and live events.

import type { LiteralValue, SourceLocation } from "./app.js";

export type PolicyAction = "read" | "write" | "delete";

/** Whom a line grants its action to: `anyone` (anonymous too), `for role R`, or neither (any authenticated caller). */
export type Grantee = { kind: "anyone" } | { kind: "authenticated" } | { kind: "role"; role: string };

/** An operand of a `when` condition. */
export type PolicyValue =
  /** A field of the row; more than one name goes through refs (`["post", "published"]`). */
  | { kind: "field"; path: string[] }
  /** `self`: the row's id. */
  | { kind: "self" }
  /** `$session.user` (text) or `$session.role`. */
  | { kind: "session"; member: "user" | "role" }
  | { kind: "literal"; value: LiteralValue };

export type PolicyComparison = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** A `when` condition, as typed by the checker. */
export type PolicyExpr =
  | { kind: "compare"; op: PolicyComparison; left: PolicyValue; right: PolicyValue }
  /** A Bool operand on its own: `when published`. */
  | { kind: "truthy"; value: PolicyValue }
  | { kind: "and" | "or"; items: PolicyExpr[] }
  | { kind: "not"; item: PolicyExpr };

/** `policy read anyone when visible == true`: one line of a type. */
export interface PolicyGrant {
  action: PolicyAction;
  grantee: Grantee;
  /** Absent: every row. */
  when?: PolicyExpr;
  /** The line as written, for `wo check`, hovers and error messages. */
  text: string;
  source: SourceLocation;
}

/** A top-level `policy NAME` block with `effect: skip-row-filters`: callers it matches see every row of its types. */
export interface BypassPolicy {
  name: string;
  /** Type names; `["*"]` for every type. */
  appliesTo: string[];
  /** Over session values only (no row fields). Absent: every authenticated caller. */
  when?: PolicyExpr;
  effect: "skip-row-filters";
  source: SourceLocation;
}

/**
 * A `when` condition with the caller's session values bound: what the store filters by and what
 * a row is tested against. `self` is the field path `["id"]`.
 */
export type RowCondition =
  | { kind: "true" }
  | { kind: "false" }
  | { kind: "compare"; op: PolicyComparison; left: RowOperand; right: RowOperand }
  | { kind: "truthy"; path: string[] }
  | { kind: "and" | "or"; items: RowCondition[] }
  | { kind: "not"; item: RowCondition };

export type RowOperand = { kind: "field"; path: string[] } | { kind: "value"; value: unknown };
