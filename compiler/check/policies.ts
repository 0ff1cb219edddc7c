// Policies (spec/policies.md): each `policy` line of a type → a PolicyGrant on its CatalogType,
// each top-level `policy NAME` block → a BypassPolicy on the Catalog (model/policy.ts).
//
// Owns: typing a `when` condition. The parser reads it with the method grammar (an Expr); here
// it is checked against the type's fields and turned into a PolicyExpr: operands are row
// fields (through refs: `post.published`), `self` (the row's id), `$session.user` /
// `$session.role`, literals and bare union variants; `and`, `or`, `not`, comparisons, and a Bool
// operand on its own. Comparisons follow the method language's rules (method-types.ts), so
// `$session.user` (an id) compares with an Id, ref or Int field and not with Text. Anything else
// (arithmetic, calls, relations to many rows, struct members, computed fields) is an error: the
// store must be able to filter by the condition in SQL.
// Leaves to runtime/operations/row-policy.ts what a grant means for a caller.

import type { Expr, PolicyLine, Span, TopPolicy, TypeDecl } from "../ast.js";
import type { Catalog, CatalogField, CatalogType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import type {
  BypassPolicy,
  Grantee,
  PolicyAction,
  PolicyComparison,
  PolicyExpr,
  PolicyValue,
} from "../../model/policy.js";
import { typesByName } from "../../model/type-index.js";
import { fieldNamed } from "../../model/link-ends.js";
import { locationOf } from "./context.js";
import { didYouMean } from "./did-you-mean.js";
import { describeType, fieldValueType, isComparable, isOrderable, nonNull, type ValueType } from "./method-types.js";
import { sessionMembers, sessionName } from "./body/session.js";

export const policyActions: readonly PolicyAction[] = ["read", "write", "delete"];

/** Where a condition is typed: a type's rows, or (bypass blocks) session values only. */
interface ConditionScope {
  catalog: Catalog;
  bag: DiagnosticBag;
  /** Absent for a top-level block's `when`, which may not read row fields. */
  type?: CatalogType;
  /** Every variant of every union field in the program: what a bare name can be. */
  variants: ReadonlySet<string>;
  /** For messages: `policy 'Admins'`. */
  blockName?: string;
}

interface Operand {
  value: PolicyValue;
  type: ValueType;
  span: Span;
  /** A bare name that is neither a field nor a known variant: a role name next to `$session.role`. */
  bareName?: string;
}

/** The grants of every type (CatalogType.policies) and the top-level bypass blocks (Catalog.bypassPolicies). */
export function buildPolicies(
  decls: Iterable<TypeDecl>,
  tops: TopPolicy[],
  catalog: Catalog,
  bag: DiagnosticBag,
): void {
  const variants = unionVariants(catalog);
  const byName = typesByName(catalog);
  for (const decl of decls) {
    const type = byName.get(decl.name.text);
    if (!type) continue;
    const grants = decl.members
      .filter((m): m is PolicyLine => m.kind === "PolicyLine")
      .map((line) => grantOf(line, { catalog, bag, type, variants }))
      .filter((g) => g !== undefined);
    if (grants.length > 0) type.policies = grants;
  }
  const bypass = tops.map((top) => bypassOf(top, { catalog, bag, variants, blockName: top.name.text }));
  const kept = bypass.filter((b) => b !== undefined);
  if (kept.length > 0) catalog.bypassPolicies = kept;
}

function grantOf(line: PolicyLine, scope: ConditionScope & { type: CatalogType }) {
  const action = line.action.text;
  if (!(policyActions as readonly string[]).includes(action)) {
    scope.bag.report("WO2050", line.action.span, { action, hint: didYouMean(action, policyActions) });
    return undefined;
  }
  const grantee: Grantee = line.isAnyone
    ? { kind: "anyone" }
    : line.role
      ? { kind: "role", role: line.role.text }
      : { kind: "authenticated" };
  if (line.isAnyone && line.role) {
    scope.bag.report("WO2054", line.role.span, {
      why: "'anyone' already includes every role; write 'anyone' or 'for role …', not both",
    });
    return undefined;
  }
  const when = line.when ? condition(line.when, scope) : undefined;
  if (line.when && !when) return undefined;
  return {
    action: action as PolicyAction,
    grantee,
    ...(when ? { when } : {}),
    text: sourceText(line),
    source: locationOf(line.span),
  };
}

/** `policy read anyone when …` as written (the condition verbatim, the head with single spaces). */
function sourceText(line: PolicyLine): string {
  const parts = ["policy", line.action.text];
  if (line.isAnyone) parts.push("anyone");
  if (line.role) parts.push("for role", line.role.text);
  if (line.whenText !== undefined) parts.push("when", line.whenText);
  return parts.join(" ");
}

const topKeys = ["applies_to", "when", "effect"];

function bypassOf(top: TopPolicy, scope: ConditionScope): BypassPolicy | undefined {
  const name = top.name.text;
  const bag = scope.bag;
  let ok = true;
  const refuse = (span: Span, why: string, hint = "") => {
    bag.report("WO2055", span, { name, why, hint });
    ok = false;
  };
  const entry = (key: string) => top.entries.find((e) => e.key.text === key);
  for (const e of top.entries) {
    if (!topKeys.includes(e.key.text))
      refuse(
        e.key.span,
        `'${e.key.text}' is not a key of a policy block (applies_to, when, effect)`,
        didYouMean(e.key.text, topKeys),
      );
  }
  const effect = entry("effect");
  if (!effect) {
    refuse(top.name.span, "it needs 'effect: skip-row-filters'");
    return undefined;
  }
  if (effect.valueText.trim() !== "skip-row-filters") {
    // Another effect of the full language: kept, not executed (spec/policies.md).
    bag.report("WO2104", effect.span, {
      what: `policy '${name}' with 'effect: ${effect.valueText.trim()}' (only skip-row-filters is enforced)`,
    });
    return undefined;
  }
  const applies = entry("applies_to");
  const appliesTo: string[] = [];
  if (!applies) refuse(top.name.span, "it needs 'applies_to:' with type names or '*'");
  else {
    const names = applies.valueText
      .replace(/^\[|\]$/g, "")
      .split(/[\s,]+/)
      .filter((n) => n !== "");
    if (names.length === 0) refuse(applies.span, "'applies_to:' needs type names or '*'");
    const known = scope.catalog.types.map((t) => t.name);
    for (const n of names) {
      if (n === "*" || known.includes(n)) appliesTo.push(n);
      else refuse(applies.span, `'${n}' in applies_to is not a type`, didYouMean(n, known));
    }
  }
  let when: PolicyExpr | undefined;
  if (entry("when")) {
    if (!top.when) return undefined; // its syntax error is reported
    when = condition(top.when, scope);
    if (!when) return undefined;
  }
  if (!ok) return undefined;
  return {
    name,
    appliesTo,
    ...(when ? { when } : {}),
    effect: "skip-row-filters",
    source: locationOf(top.name.span),
  };
}

/** Types a `when` condition; undefined (after reporting) when it does not type. */
export function condition(e: Expr, scope: ConditionScope): PolicyExpr | undefined {
  switch (e.kind) {
    case "BinaryExpr": {
      if (e.op === "and" || e.op === "or") {
        const left = condition(e.left, scope);
        const right = condition(e.right, scope);
        if (!left || !right) return undefined;
        // `a and b and c` is one list, as the store compiles it.
        const items = [left, right].flatMap((x) => (x.kind === e.op ? x.items : [x]));
        return { kind: e.op, items };
      }
      if (isComparison(e.op)) return comparison(e.op, e.left, e.right, e.span, scope);
      return unsupported(e.span, `cannot use '${e.op}' (arithmetic is not part of a policy condition)`, scope);
    }
    case "UnaryExpr": {
      if (e.op !== "not") return unsupported(e.span, "cannot use '-' on its own; compare a field instead", scope);
      const item = condition(e.operand, scope);
      return item && { kind: "not", item };
    }
    case "NameExpr":
    case "MemberExpr":
    case "LiteralExpr": {
      const value = operand(e, scope);
      if (!value) return undefined;
      if (value.bareName !== undefined) return void reportUnknownName(value, scope);
      if (nonNull(value.type).k !== "bool") {
        scope.bag.report("WO2054", e.span, {
          why: `must be true or false, but '${textOf(e)}' is ${describeType(value.type)}; compare it with a value`,
        });
        return undefined;
      }
      return { kind: "truthy", value: value.value };
    }
    default:
      return unsupported(
        e.span,
        "reads fields, self, $session.user and $session.role, literals, comparisons, and/or/not; not calls, queries or lists",
        scope,
      );
  }
}

function unsupported(span: Span, why: string, scope: ConditionScope): undefined {
  scope.bag.report("WO2054", span, { why });
  return undefined;
}

const comparisons: readonly string[] = ["==", "!=", "<", "<=", ">", ">="];
function isComparison(op: string): op is PolicyComparison {
  return comparisons.includes(op);
}

function comparison(
  op: PolicyComparison,
  leftExpr: Expr,
  rightExpr: Expr,
  span: Span,
  scope: ConditionScope,
): PolicyExpr | undefined {
  const left = operand(leftExpr, scope);
  const right = operand(rightExpr, scope);
  if (!left || !right) return undefined;
  const sides = [
    [left, right],
    [right, left],
  ] as const;
  for (const [a, b] of sides) {
    // `$session.role == Editor`: a bare name next to the role is the role's name.
    if (a.bareName !== undefined) {
      if (isSessionRole(b)) {
        a.value = { kind: "literal", value: a.bareName };
        a.type = { k: "text", name: "Text" };
        continue;
      }
      reportUnknownName(a, scope, b);
      return undefined;
    }
  }
  for (const [a, b] of sides) {
    // A variant or a string compared with a union field must be one of its variants.
    const literal = a.value.kind === "literal" && typeof a.value.value === "string" ? a.value.value : undefined;
    const union = nonNull(b.type);
    if (literal !== undefined && union.k === "union" && !union.variants.includes(literal)) {
      scope.bag.report("WO5020", a.span, { value: literal, variants: union.variants.join(" | ") });
      return undefined;
    }
  }
  const fits =
    op === "==" || op === "!="
      ? isComparable(left.type, right.type)
      : isOrderable(nonNull(left.type), nonNull(right.type));
  if (!fits) {
    scope.bag.report("WO2053", span, { left: describeType(left.type), right: describeType(right.type), op });
    return undefined;
  }
  return { kind: "compare", op, left: left.value, right: right.value };
}

function isSessionRole(o: Operand): boolean {
  return o.value.kind === "session" && o.value.member === "role";
}

/** One side of a comparison, or a Bool operand on its own. */
function operand(e: Expr, scope: ConditionScope): Operand | undefined {
  const { bag } = scope;
  switch (e.kind) {
    case "LiteralExpr": {
      const lit = e.literal;
      if (lit.literalType === "int" && !Number.isSafeInteger(lit.value)) {
        bag.report("WO5024", e.span, { value: String(lit.value) });
        return undefined;
      }
      const type: ValueType =
        lit.literalType === "int"
          ? { k: "int", name: "Int" }
          : lit.literalType === "float"
            ? { k: "float" }
            : lit.literalType === "string"
              ? { k: "text", name: "Text" }
              : lit.literalType === "bool"
                ? { k: "bool" }
                : { k: "null" };
      return { value: { kind: "literal", value: lit.value }, type, span: e.span };
    }
    case "NameExpr": {
      const name = e.name.text;
      if (name.startsWith("$")) {
        bag.report("WO5031", e.name.span, {
          name,
          hint: name === sessionName ? "" : didYouMean(name, [sessionName]),
        });
        return undefined;
      }
      if (name === "self") {
        if (!scope.type) return rowFieldInBlock(e, scope);
        return { value: { kind: "self" }, type: { k: "int", name: "Id" }, span: e.span };
      }
      const field = scope.type && fieldNamed(scope.type, name);
      if (field) return fieldOperand([field.name], [field], e.span, scope);
      if (scope.variants.has(name))
        return { value: { kind: "literal", value: name }, type: { k: "union", variants: [name] }, span: e.span };
      return { value: { kind: "literal", value: name }, type: { k: "unknown" }, span: e.span, bareName: name };
    }
    case "MemberExpr": {
      if (e.object.kind === "NameExpr" && e.object.name.text === sessionName) {
        const member = e.member.text;
        const type = sessionMembers[member];
        if (!type || (member !== "user" && member !== "role")) {
          bag.report("WO5030", e.member.span, { member, hint: didYouMean(member, Object.keys(sessionMembers)) });
          return undefined;
        }
        return { value: { kind: "session", member }, type, span: e.span };
      }
      const names = memberPath(e);
      if (!names)
        return void unsupported(e.span, `cannot read '${textOf(e)}'; name a field, or fields through refs`, scope);
      if (!scope.type) return rowFieldInBlock(e, scope);
      // `self.author` is `author`.
      const path = names[0] === "self" ? names.slice(1) : names;
      return resolvePath(path, e.span, scope as ConditionScope & { type: CatalogType });
    }
    default:
      return void unsupported(
        e.span,
        e.kind === "BinaryExpr" && !isComparison(e.op) && e.op !== "and" && e.op !== "or"
          ? `cannot use '${e.op}' (arithmetic is not part of a policy condition)`
          : `cannot use ${textOf(e)}; an operand is a field, self, $session.user, $session.role or a literal (not calls, queries or lists)`,
        scope,
      );
  }
}

function reportUnknownName(o: Operand, scope: ConditionScope, other?: Operand): void {
  const name = o.bareName!;
  if (!scope.type) {
    scope.bag.report("WO2055", o.span, {
      name: scope.blockName ?? "",
      why: `its 'when' reads session values only, and '${name}' is not one (a role name is compared with $session.role)`,
      hint: "",
    });
    return;
  }
  const fields = [...scope.type.fields.map((f) => f.name), "self"];
  const union = other && nonNull(other.type);
  if (union?.k === "union") {
    scope.bag.report("WO2056", o.span, {
      name,
      type: scope.type.name,
      variants: union.variants.join(" | "),
      hint: didYouMean(name, [...union.variants, ...fields]),
    });
    return;
  }
  scope.bag.report("WO2051", o.span, { name, type: scope.type.name, hint: didYouMean(name, fields) });
}

function rowFieldInBlock(e: Expr, scope: ConditionScope): undefined {
  scope.bag.report("WO2055", e.span, {
    name: scope.blockName ?? "",
    why: `its 'when' reads session values only ($session.user, $session.role), not '${textOf(e)}'`,
    hint: "",
  });
  return undefined;
}

/** `a.b.c` → ["a", "b", "c"] when it is a chain of names; undefined for anything else. */
function memberPath(e: Expr): string[] | undefined {
  if (e.kind === "NameExpr") return [e.name.text];
  if (e.kind !== "MemberExpr") return undefined;
  const head = memberPath(e.object);
  return head && [...head, e.member.text];
}

/** A field path from the row, through refs only: every step but the last is a `ref`. */
function resolvePath(path: string[], span: Span, scope: ConditionScope & { type: CatalogType }): Operand | undefined {
  const byName = typesByName(scope.catalog);
  let type: CatalogType | undefined = scope.type;
  const fields: CatalogField[] = [];
  for (let i = 0; i < path.length; i++) {
    const name = path[i]!;
    const field: CatalogField | undefined = type && fieldNamed(type, name);
    if (!type || !field) {
      const known = type ? type.fields.map((f) => f.name) : [];
      scope.bag.report("WO2051", span, { name, type: type?.name ?? "?", hint: didYouMean(name, known) });
      return undefined;
    }
    fields.push(field);
    if (i < path.length - 1) {
      if (field.type.kind !== "ref") {
        scope.bag.report("WO2052", span, {
          path: path.join("."),
          name,
          found: describeType(fieldValueType(scope.catalog, field.type, field.isOptional)),
        });
        return undefined;
      }
      type = byName.get(field.type.target);
    }
  }
  // The stored names: a link's `source`/`target` is its endpoint field (model/link-ends.ts).
  return fieldOperand(
    fields.map((f) => f.name),
    fields,
    span,
    scope,
  );
}

/** A field as an operand: stored scalars, unions and refs only. */
function fieldOperand(path: string[], fields: CatalogField[], span: Span, scope: ConditionScope): Operand | undefined {
  const field = fields[fields.length - 1]!;
  const kind = field.type.kind;
  const why =
    kind === "struct"
      ? "a struct"
      : kind !== "scalar" && kind !== "union" && kind !== "ref"
        ? "a list of values or rows"
        : !field.isStored
          ? "a computed field, which is not stored"
          : undefined;
  if (why) {
    scope.bag.report("WO2054", span, {
      why: `cannot read '${path.join(".")}': it is ${why}; a condition reads stored scalar, union and ref fields`,
    });
    return undefined;
  }
  // Any optional step makes the value possibly null.
  const nullable = fields.some((f) => f.isOptional);
  return { value: { kind: "field", path }, type: fieldValueType(scope.catalog, field.type, nullable), span };
}

function unionVariants(catalog: Catalog): Set<string> {
  const out = new Set<string>();
  const visit = (fields: CatalogField[]) => {
    for (const f of fields) {
      if (f.type.kind === "union") for (const v of f.type.variants) out.add(v);
      else if (f.type.kind === "struct") visit(f.type.fields);
    }
  };
  for (const t of catalog.types) visit(t.fields);
  return out;
}

/** A short rendering of an operand expression for messages. */
function textOf(e: Expr): string {
  switch (e.kind) {
    case "NameExpr":
      return e.name.text;
    case "MemberExpr":
      return `${textOf(e.object)}.${e.member.text}`;
    case "LiteralExpr":
      return JSON.stringify(e.literal.value);
    default:
      return "this expression";
  }
}
