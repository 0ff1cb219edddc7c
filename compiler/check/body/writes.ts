// Writes in a body: `insert T { … }`, `update … set`, the targets of `update`/`delete`, and
// `link`/`unlink` of a link type — which fields may be set (WO5009, WO5003, WO5016), that every
// required field is given (WO5015, WO5029), and that each value fits its field (WO5014, WO5020).

import type { Expr, InsertStmt, LinkStmt, Name, NameExpr, SelectExpr, Span, UpdateStmt } from "../../ast.js";
import type { CatalogField, CatalogType } from "../../catalog.js";
import { didYouMean } from "../did-you-mean.js";
import {
  describeType,
  fieldValueType,
  findType,
  isAssignable,
  isNullable,
  isRowOf,
  unknownType,
  type ValueType,
} from "../method-types.js";
import { edgeFields } from "../edges.js";
import type { BodyCheck, UpdateAssignment } from "./context.js";
import { fitLiteral, isLiteral } from "./literals.js";
import { variantText } from "./variants.js";
import { isSessionUser } from "./session.js";

/** An insert; its value is the new row. */
export function insert(check: BodyCheck, s: InsertStmt): ValueType {
  const { bag, catalog } = check;
  const target = findType(catalog, s.type.text);
  if (!target) {
    bag.report("WO5002", s.type.span, {
      name: s.type.text,
      hint: didYouMean(
        s.type.text,
        catalog.types.map((t) => t.name),
      ),
    });
    for (const e of s.entries) check.expr(e.value);
    return unknownType;
  }
  const given = new Set<string>();
  for (const e of s.entries) {
    const t = check.expr(e.value);
    if (given.has(e.name.text)) bag.report("WO5016", e.name.span, { field: e.name.text });
    given.add(e.name.text);
    const field = writableField(check, target, e.name.text, e.name.span, "insert");
    if (field) checkStore(check, target, field, e.value, t);
  }
  for (const f of target.fields) {
    if (f.isRequiredOnCreate && !given.has(f.name))
      bag.report("WO5015", s.type.span, { type: target.name, field: f.name });
  }
  return { k: "row", type: target.name };
}

/**
 * `update self set …`, `update x set …`, `update T{ p } set …`; `f += e`, `set a.b = e`. A value
 * may name the updated row's own fields bare (`set n = n + 1`, `set m.a = m.a - 1`): each row's
 * values before the statement (a local or parameter of that name comes first).
 */
export function update(check: BodyCheck, s: UpdateStmt): void {
  const target = rowTarget(check, s.target, "update");
  const rowType: ValueType | undefined = target ? { k: "row", type: target.name } : undefined;
  // The row's fields, in scope only while the statement's values are typed.
  const fieldNames = target ? withUpdatedFields(check, target) : [];
  try {
    for (const a of s.assignments) assignment(check, target, rowType, a);
  } finally {
    for (const name of fieldNames) check.scope.delete(name);
  }
  if (s.target.kind === "NameExpr" && target) {
    const t = check.typing.exprTypes.get(s.target);
    // The bound row is refreshed with what the update wrote (spec: "Method language").
    if (t?.k === "row") check.typing.reassigned.add(s.target.name.text);
  }
}

/** Puts each stored field of `target` no other name takes in scope as the updated row's; returns them. */
function withUpdatedFields(check: BodyCheck, target: CatalogType): string[] {
  const added: string[] = [];
  for (const f of target.fields) {
    if (!f.isStored || check.scope.has(f.name)) continue;
    check.scope.set(f.name, {
      binding: { kind: "updated", field: f.name },
      type: fieldValueType(check.catalog, f.type, f.isOptional),
    });
    added.push(f.name);
  }
  return added;
}

function assignment(
  check: BodyCheck,
  target: CatalogType | undefined,
  rowType: ValueType | undefined,
  a: UpdateAssignment,
): void {
  const readsBefore = check.updatedReads;
  const field = target ? writableField(check, target, a.field.text, a.field.span, "update") : undefined;
  const inner = field && a.path ? structField(check, field, a.path) : field;
  if (!target || !inner) {
    check.expr(a.value);
    return;
  }
  let value = a.value;
  if (a.op) {
    // `f += e` is `f = row.f + e`, the row as it was before this statement.
    const current = [a.field, ...(a.path ?? [])].reduce<Expr>(
      (object, member) => ({ kind: "MemberExpr", object, member, span: member.span }),
      updatedRow(a.field.span),
    );
    value = { kind: "BinaryExpr", op: a.op === "+=" ? "+" : "-", left: current, right: a.value, span: a.span };
    check.scope.set(updatedName, { binding: { kind: "updated" }, type: rowType! });
    try {
      checkStore(check, target, inner, value, check.expr(value));
    } finally {
      check.scope.delete(updatedName);
    }
  } else {
    checkStore(check, target, inner, value, check.expr(value));
  }
  // A path, `+=`, or a value that reads the row: the patch is made per row (compiler/emit/methods.ts).
  if (a.path || a.op || check.updatedReads > readsBefore)
    check.typing.rowUpdates.set(a, { value, path: (a.path ?? []).map((n) => n.text), field: inner });
}

/** The scope name of the row an update is writing: a space keeps it apart from every wo name. */
const updatedName = " updated";

function updatedRow(span: Span): NameExpr {
  return { kind: "NameExpr", name: { text: updatedName, span }, span };
}

/** The field `set a.b.c = e` writes inside struct field `a`, or a diagnostic at the step that is none. */
function structField(check: BodyCheck, field: CatalogField, path: Name[]): CatalogField | undefined {
  let at = field;
  for (const step of path) {
    if (at.type.kind !== "struct") {
      check.bag.report("WO5025", step.span, {
        what: `Setting '${step.text}' inside '${at.name}'`,
        why: `'${at.name}' is not a struct field`,
      });
      return undefined;
    }
    const next = at.type.fields.find((f) => f.name === step.text);
    if (!next) {
      check.bag.report("WO5003", step.span, {
        type: `the struct '${at.name}'`,
        field: step.text,
        hint: didYouMean(
          step.text,
          at.type.fields.map((f) => f.name),
        ),
      });
      return undefined;
    }
    at = next;
  }
  return at;
}

/**
 * `link a -[E { f: v }]-> b` / `unlink a -[E]-> b`: `a` names a row of E's source type and `b`
 * one of its target type (the row, or its id); E's own fields are set like an insert's.
 */
export function link(check: BodyCheck, s: LinkStmt): void {
  const { bag, catalog, typing } = check;
  const statement = s.remove ? "unlink" : "link";
  const from = check.expr(s.from);
  const to = check.expr(s.to);
  for (const e of s.entries) check.expr(e.value);
  const target = s.isLabel ? edgeLinkType(check, s, from, to) : findType(catalog, s.edge.text);
  if (s.isLabel && !target) return;
  if (target) check.typing.linkTypes.set(s, target.name);
  if (!target) {
    const links = catalog.types.filter((t) => t.link).map((t) => t.name);
    bag.report("WO5002", s.edge.span, { name: s.edge.text, hint: didYouMean(s.edge.text, links) });
    return;
  }
  if (!target.link) {
    bag.report("WO5026", s.edge.span, {
      what: `'${statement}'`,
      expected: "a link type (type L link A -> B)",
      found: `'${target.name}', which is not a link type`,
    });
    return;
  }
  endpoint(check, s.from, from, target.link.from, `The source of '${statement} … -[${target.name}]->'`);
  endpoint(check, s.to, to, target.link.to, `The target of '${statement} … -[${target.name}]->'`);
  if (s.remove) {
    if (s.entries.length > 0)
      bag.report("WO5025", s.entries[0]!.span, {
        what: "Fields in 'unlink'",
        why: "a pair has one link, so 'unlink' names only its two ends",
      });
    return;
  }
  const ends = [target.link.fromField, target.link.toField];
  const given = new Set<string>(ends);
  for (const e of s.entries) {
    if (given.has(e.name.text)) {
      bag.report("WO5016", e.name.span, { field: e.name.text });
      continue;
    }
    given.add(e.name.text);
    const field = writableField(check, target, e.name.text, e.name.span, "insert");
    if (field) checkStore(check, target, field, e.value, typing.exprTypes.get(e.value) ?? unknownType);
  }
  for (const f of target.fields) {
    if (f.isRequiredOnCreate && !given.has(f.name)) {
      bag.report("WO5029", s.edge.span, {
        what: `'link … -[${target.name}]->'`,
        expected: target.name,
        why: `required field '${f.name}' is not given (-[${target.name} { ${f.name}: … }]->)`,
      });
    }
  }
}

/**
 * `link a -[:LABEL]-> b`: the implicit link type of the one `@edge(:LABEL)` field of a's type
 * whose target is b's type (compiler/check/edges.ts), or a diagnostic saying why there is none.
 */
function edgeLinkType(check: BodyCheck, s: LinkStmt, from: ValueType, to: ValueType): CatalogType | undefined {
  if (from.k === "unknown" || to.k === "unknown") return undefined;
  const what = `'${s.remove ? "unlink" : "link"} … -[:${s.edge.text}]->'`;
  const fromType = endType(from);
  if (fromType === undefined) {
    check.bag.report("WO5026", s.from.span, {
      what,
      expected: "a row or a ref id as its source",
      found: describeType(from),
    });
    return undefined;
  }
  const toType = endType(to);
  const owner = findType(check.catalog, fromType)!;
  const labelled = owner.fields.filter((f) => f.type.kind === "multi" && f.type.edgeLabel === s.edge.text);
  const fields = toType === undefined ? labelled : edgeFields(owner, s.edge.text, toType);
  if (fields.length === 1) return findType(check.catalog, (fields[0]!.type as { via: string }).via);
  const expected = `one field '… multi ${toType ?? "T"} @edge(:${s.edge.text})' on '${fromType}'`;
  const found =
    fields.length === 0
      ? labelled.length === 0
        ? `'${fromType}', which has none`
        : `'${fromType}', whose ones point to ${labelled.map((f) => `'${(f.type as { target: string }).target}'`).join(", ")}`
      : `'${fromType}', which has ${fields.map((f) => `'${f.name}'`).join(", ")}`;
  check.bag.report("WO5026", s.edge.span, { what, expected, found });
  return undefined;
}

/** The type a link end names: a row's, or a `ref T` id's; undefined for a plain id. */
function endType(t: ValueType): string | undefined {
  if (t.k === "row" && !t.projection) return t.type;
  if (t.k === "int" && t.name.startsWith("ref ")) return t.name.slice(4);
  return undefined;
}

/** One end of a link: a row of `type`, or an id (a `ref type`, or a plain Id/Int). */
function endpoint(check: BodyCheck, e: Expr, t: ValueType, type: string, what: string): void {
  if (t.k === "unknown") return;
  const isId = t.k === "int" && (t.name === `ref ${type}` || !t.name.startsWith("ref ")) && !isNullable(t);
  if (isRowOf(t, type) || isId) return;
  check.bag.report("WO5026", e.span, { what, expected: `a ${type} row or its id`, found: describeType(t) });
}

/** The type whose rows an update/delete target names, or undefined after an error. */
export function rowTarget(check: BodyCheck, target: SelectExpr | NameExpr, what: string): CatalogType | undefined {
  const t = check.expr(target);
  if (t.k === "unknown") return undefined;
  if ((t.k === "row" || t.k === "rows") && !t.projection) return findType(check.catalog, t.type);
  check.bag.report("WO5019", target.span, { what, found: describeType(t) });
  return undefined;
}

/** A field an insert/update may set, or a diagnostic saying why not. */
function writableField(
  check: BodyCheck,
  target: CatalogType,
  name: string,
  span: Span,
  statement: "insert" | "update",
): CatalogField | undefined {
  const { bag } = check;
  const field = target.fields.find((f) => f.name === name);
  if (!field) {
    bag.report("WO5003", span, {
      type: target.name,
      field: name,
      hint: didYouMean(
        name,
        target.fields.map((f) => f.name),
      ),
    });
    return undefined;
  }
  // @readonly fields are the app's own to write; @immutable ones only when the row is made.
  if (field.isWritable && !(statement === "update" && field.isImmutable)) return field;
  if (field.isWritable) {
    bag.report("WO5009", span, {
      field: name,
      type: target.name,
      why: "it is @immutable: set when the row is inserted and never changed",
    });
    return undefined;
  }
  const why =
    field.name === "id"
      ? "ids are minted by the store and never change"
      : field.default?.kind === "computed"
        ? "it is computed"
        : !field.isStored
          ? "it is a relation, not a column"
          : "it is read-only";
  bag.report("WO5009", span, { field: name, type: target.name, why });
  return undefined;
}

function checkStore(check: BodyCheck, target: CatalogType, field: CatalogField, value: Expr, t: ValueType): void {
  const want = fieldValueType(check.catalog, field.type, field.isOptional);
  if (isLiteral(value)) {
    fitLiteral(check, value, want);
    return;
  }
  // `$session.user` into a Text field: the user's text (session.ts).
  if (want.k === "text" && want.name === "Text" && isSessionUser(value)) return;
  // A row where a `ref T` goes is its id, as for a `ref T` parameter (calls.ts fitArguments).
  if (field.type.kind === "ref" && isRowOf(t, field.type.target)) {
    check.typing.rowIds.add(value);
    return;
  }
  const text = variantText(check, value);
  if (want.k === "union" && text !== undefined) {
    if (!want.variants.includes(text))
      check.bag.report("WO5020", value.span, { value: text, variants: want.variants.join(" | ") });
    return;
  }
  if (!isAssignable(t, want)) {
    check.bag.report("WO5014", value.span, {
      field: field.name,
      type: target.name,
      expected: describeType(want),
      found: describeType(t),
    });
  }
}
