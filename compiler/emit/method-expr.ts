// Expressions of the method language → TypeScript expression text, plus the TypeScript types
// and the few runtime helpers those expressions need.
//
// Owns: operator precedence in the output (parentheses only where JavaScript needs them), the
// language's integer and truthiness rules (spec/language.md, "Method language"), and how a
// relation, a select or a built-in reads the store. Leaves statements and the handler frame
// to ./methods.ts, and every typing decision to check/methods.ts (`MethodTyping`).

import { isFilledWhenOmitted } from "../../model/app.js";
import { eachAggregates, eachesIn } from "../check/body/each.js";
import { sessionMember } from "../check/body/session.js";
import { builtinFunctions } from "../builtins.js";
import type { Expr, SelectExpr } from "../ast.js";
import type { Catalog, CatalogField, CatalogType, FieldType } from "../catalog.js";
import { scalars } from "../../model/scalars.js";
import type { MethodTyping } from "../check/methods.js";
import { deltaKinds, findType, isNullable, selectsOneRow, unknownType, type ValueType } from "../check/method-types.js";
import { jsIdentifier, jsJson, jsString, objectKey, prop } from "./js-literal.js";
import { containsRow } from "../check/body/calls.js";
import { fieldNamed } from "../../model/link-ends.js";

export { objectKey, prop } from "./js-literal.js";

/** Everything an expression needs while being printed; `helpers` collects the ones used. */
export interface ExprContext {
  catalog: Catalog;
  /** The class of a method; undefined for a free fn. */
  owner: CatalogType | undefined;
  typing: MethodTyping;
  /** Row aliases used (`PriceRow`), by type name. */
  rowTypes: Set<string>;
  helpers: Set<HelperName>;
  params: Set<string>;
  /** A `test` block: a failed `assert` reports its values. */
  isTest?: boolean;
}

interface Printed {
  code: string;
  /** JavaScript precedence of the outermost operator: 1 `||` … 7 unary, 8 member/call/atom. */
  prec: number;
}

/**
 * The JavaScript name of a parameter or `let` binding: `v_` + its name. No name the generated
 * handler declares itself (`rt`, `tx`, `args`, `self`, `row`, the helpers) starts with `v_`, so
 * a user's names can never collide with them or with each other (`rt` and `rt_` stay apart).
 * Binding names follow the lexer's name rule without hyphens (WO1005), so the result is an
 * identifier by construction; jsIdentifier asserts it.
 */
export function jsName(name: string): string {
  return jsIdentifier(`v_${name}`);
}

/** The type alias of a row of `typeName` inside a handler: `PriceRow`. */
export function rowAlias(typeName: string): string {
  return jsIdentifier(`${typeName}Row`);
}

/** The TypeScript type of a value, for declarations the compiler cannot infer. */
export function tsType(t: ValueType, ctx: ExprContext): string {
  const q = isNullable(t) && t.k !== "null" ? " | null" : "";
  switch (t.k) {
    case "int":
    case "float":
      return `number${q}`;
    case "text":
      return `string${q}`;
    case "bool":
      return `boolean${q}`;
    case "union":
      return t.variants.map((v) => jsString(v)).join(" | ") + q;
    case "null":
      return "null";
    case "row":
      ctx.rowTypes.add(t.type);
      return (
        (t.projection
          ? `Pick<${rowAlias(t.type)}, ${t.projection.map((p) => jsString(p)).join(" | ")}>`
          : rowAlias(t.type)) + q
      );
    case "rows":
      ctx.rowTypes.add(t.type);
      return t.projection
        ? `Pick<${rowAlias(t.type)}, ${t.projection.map((p) => jsString(p)).join(" | ")}>[]`
        : `${rowAlias(t.type)}[]`;
    case "array":
      return `${wrapUnion(tsType(t.element, ctx))}[]${q}`;
    case "struct":
      return `{ ${t.fields.map((f) => `${objectKey(f.name)}: ${fieldTsType(ctx.catalog, f.type, f.isOptional)}`).join("; ")} }${q}`;
    case "subscription":
      return "unknown";
    case "delta":
      ctx.rowTypes.add(t.type);
      return `{ kind: ${deltaKinds.map((k) => jsString(k)).join(" | ")}; row: ${rowAlias(t.type)}; rows: ${rowAlias(t.type)}[] }${q}`;
    case "unknown":
      return "any";
  }
}

/** The TypeScript type of a stored field, as rows carry it. */
export function fieldTsType(catalog: Catalog, type: FieldType, isOptional: boolean): string {
  const q = isOptional ? " | null" : "";
  switch (type.kind) {
    case "scalar":
      return scalars[type.scalar].ts + q;
    case "union":
      return type.variants.map((v) => jsString(v)).join(" | ") + q;
    case "ref":
      return `number${q}`;
    case "array":
      return `${wrapUnion(fieldTsType(catalog, type.element, false))}[]${q}`;
    case "struct":
      return `{ ${type.fields.map((f) => `${objectKey(f.name)}: ${fieldTsType(catalog, f.type, f.isOptional)}`).join("; ")} }${q}`;
    case "embedded": {
      const t = findType(catalog, type.type);
      const fields = (t?.fields ?? []).filter((f) => f.isStored);
      return `{ ${fields.map((f) => `${objectKey(f.name)}: ${fieldTsType(catalog, f.type, f.isOptional)}`).join("; ")} }${q}`;
    }
    case "multi":
    case "backlink":
      return "never";
  }
}

function wrapUnion(t: string): string {
  return t.includes("|") ? `(${t})` : t;
}

/**
 * A class method called from a body (`o.m()`), in generated code: `m_Type$name` (`$` is in no
 * wo name, so two type/method pairs never meet; nothing else generated starts with `m_`).
 */
export function methodFunctionName(typeName: string, method: string): string {
  return jsIdentifier(`m_${typeName}$${method}`);
}

/** A free fn in generated code: `f_` + its name (nothing else generated starts with `f_`). */
export function functionName(name: string): string {
  return `f_${name}`;
}

// ---------------------------------------------------------------------------------------------
// Helpers: taken from rt.helpers at the top of a handler only when one of its expressions uses them.

const helperNames = [
  "deref",
  "intDiv",
  "intMod",
  "floatDiv",
  "truthy",
  "latest",
  "present",
  "sameJson",
  "variant",
  "contains",
  "words",
  "each",
  "item",
  "text",
  "concat",
  "abortMessage",
  "withField",
] as const;
export type HelperName = (typeof helperNames)[number];

/**
 * The line that takes the helpers a body used from the runtime (model/build-contract.ts
 * `BodyHelpers`, implemented in runtime/operations/body-helpers.ts), in a fixed order; none
 * when it used none.
 */
export function helpersLine(used: ReadonlySet<HelperName>): string | undefined {
  const names = helperNames.filter((h) => used.has(h));
  return names.length > 0 ? `const { ${names.join(", ")} } = rt.helpers;` : undefined;
}

// ---------------------------------------------------------------------------------------------

/**
 * The value of a field an `insert` or an object literal leaves out, as the create operation
 * fills it: its default, else null when optional, else [] for a list (undefined: none).
 */
export function omittedFieldValue(f: CatalogField): string | undefined {
  if (f.default?.kind === "literal") return jsJson(f.default.value);
  if (f.default?.kind === "now") return "rt.now()";
  if (f.isOptional) return "null";
  if (f.type.kind === "array") return "[]";
  if (f.type.kind === "struct" && isFilledWhenOmitted(f))
    return `{ ${f.type.fields.map((x) => `${objectKey(x.name)}: ${omittedFieldValue(x)}`).join(", ")} }`;
  return undefined;
}

/** Source position for runtime messages: `ledger.wo:14`. */
export function at(e: { span: { file: string; line: number } }): string {
  return jsString(`${e.span.file}:${e.span.line}`);
}

export function typeOf(ctx: ExprContext, e: Expr): ValueType {
  return ctx.typing.exprTypes.get(e) ?? unknownType;
}

/** A wo expression as text, for messages (`self.discount`). */
function woText(e: Expr): string {
  if (e.kind === "NameExpr") return e.name.text;
  if (e.kind === "MemberExpr") return `${woText(e.object)}.${e.member.text}`;
  if (e.kind === "SelectExpr") return `${e.type.text}{ … }`;
  return "a value";
}

export function printExpr(ctx: ExprContext, e: Expr): string {
  return expr(ctx, e).code;
}

function wrap(p: Printed, min: number): string {
  return p.prec < min ? `(${p.code})` : p.code;
}

/** Operand of arithmetic or ordering: a nullable value must be present. */
function operand(ctx: ExprContext, e: Expr, min: number): string {
  const p = expr(ctx, e);
  if (!isNullable(typeOf(ctx, e))) return wrap(p, min);
  ctx.helpers.add("present");
  return `present(${p.code}, ${jsString(woText(e))}, ${at(e)})`;
}

/** A condition: booleans as they are, anything else through wo truthiness. */
export function condition(ctx: ExprContext, e: Expr, min: number): string {
  const t = typeOf(ctx, e);
  const p = expr(ctx, e);
  if (t.k === "bool" && !t.nullable) return wrap(p, min);
  ctx.helpers.add("truthy");
  return `truthy(${p.code})`;
}

const scalarKinds = new Set(["int", "float", "text", "bool", "union", "null"]);

function expr(ctx: ExprContext, e: Expr): Printed {
  switch (e.kind) {
    case "LiteralExpr":
      return { code: jsJson(e.literal.value), prec: 8 };
    case "NameExpr": {
      const b = ctx.typing.names.get(e);
      if (b?.kind === "variant") return { code: jsString(b.value), prec: 8 };
      // The row an update is writing (writeUpdate's loop variable), or one of its fields.
      if (b?.kind === "updated") return { code: b.field === undefined ? "row" : prop("row", b.field), prec: 8 };
      // A field of the row contains(rows, pred) is testing (its loop variable).
      if (b?.kind === "element") return { code: prop(jsIdentifier(b.row), b.field), prec: 8 };
      return { code: !b || b.kind === "self" ? "self" : jsName(b.name), prec: 8 };
    }
    case "MemberExpr":
      return member(ctx, e);
    case "CallExpr": {
      const name = e.callee.text;
      if (name === "now") return { code: "rt.now()", prec: 8 };
      if (name === "print") {
        // One line on stdout: text as it is, anything else as JSON, separated by spaces.
        ctx.helpers.add("text");
        return {
          code: `(process.stdout.write([${e.args.map((a) => expr(ctx, a).code).join(", ")}].map(text).join(" ") + "\\n"), null)`,
          prec: 8,
        };
      }
      if (!builtinFunctions.has(name)) {
        // A free fn: runs in this call's transaction and budget (compiler/emit/methods.ts emitFunction).
        const fn = ctx.catalog.functions?.find((f) => f.name === name);
        const code = `await nested(budget, ${at(e)}, async () => ${functionName(name)}(tx, budget${e.args.map((a) => `, ${argument(ctx, a)}`).join("")}))`;
        return callResult(ctx, e, `${name}()`, fn?.returns !== undefined, code);
      }
      const arg = e.args[0]!;
      if (name === "receive")
        return { code: `(rt.receive(${expr(ctx, arg).code}, ${at(e)}) as ${tsType(typeOf(ctx, e), ctx)})`, prec: 8 };
      // `sum(lines.*.qty * lines.*.price)`: the argument once per element, in list order
      // (compiler/check/body/each.ts); `item$` is the element (the EachExpr case below).
      const each = eachAggregates.has(name) ? eachesIn(arg)[0] : undefined;
      if (each) ctx.helpers.add("each");
      const values = each
        ? `(await each(${expr(ctx, each.list).code}, async (item$) => ${expr(ctx, arg).code}))`
        : undefined;
      if (name === "count" || name === "len") {
        if (values) return { code: `${values}.length`, prec: 8 };
        const query = arg.kind === "SelectExpr" ? selectQuery(ctx, arg) : storeQuery(ctx, arg);
        if (query) return { code: `await tx.count(${query})`, prec: 7 };
        // One row or none (a unique select bound to a name): 1 or 0.
        if (typeOf(ctx, arg).k === "row") return { code: `(${expr(ctx, arg).code} == null ? 0 : 1)`, prec: 8 };
        return { code: `${wrap(expr(ctx, arg), 8)}.length`, prec: 8 };
      }
      if (name === "sum") {
        // Nulls add nothing; integer totals stay exact within ±(2^53 − 1) (rt.checkedInt).
        const total = `${values ?? wrap(expr(ctx, arg), 8)}.reduce((s: number, x: number | null) => s + (x ?? 0), 0)`;
        const t = typeOf(ctx, e);
        return t.k === "int" ? { code: `rt.checkedInt(${total}, ${at(e)})`, prec: 8 } : { code: total, prec: 8 };
      }
      if (name === "words") {
        ctx.helpers.add("words");
        return { code: `words(${expr(ctx, arg).code})`, prec: 8 };
      }
      if (name === "contains" && typeOf(ctx, arg).k === "rows" && typeOf(ctx, e.args[1]!).k === "bool") {
        ctx.helpers.add("truthy");
        // A loop, not .some(): the predicate may await (a select, a ref read).
        const row = jsIdentifier(containsRow(e));
        const test = expr(ctx, e.args[1]!).code;
        const loop = `for (const ${row} of ${expr(ctx, arg).code}) if (truthy(${test})) return true; return false;`;
        return { code: `(await (async () => { ${loop} })())`, prec: 8 };
      }
      if (name === "contains") {
        ctx.helpers.add("contains");
        return { code: `contains(${values ?? expr(ctx, arg).code}, ${expr(ctx, e.args[1]!).code})`, prec: 8 };
      }
      ctx.helpers.add("latest");
      return { code: `latest(${expr(ctx, arg).code}, ${at(e)})`, prec: 8 };
    }
    case "LiveExpr": {
      // `subscribe live T{ p }` (the checker refuses every other form): runtime/operations/live-writes.ts.
      const q = e.query as SelectExpr;
      const table = jsString(findType(ctx.catalog, q.type.text)?.table ?? q.type.text);
      return { code: `rt.subscribe(tx, ${table}, ${selectWhere(ctx, q)}, ${at(e)})`, prec: 8 };
    }
    case "EachExpr":
      // The element of the list its aggregate goes over (the `each` callback's parameter, above).
      return { code: "item$", prec: 8 };
    case "IndexExpr":
      ctx.helpers.add("item");
      return { code: `item(${expr(ctx, e.object).code}, ${operand(ctx, e.index, 0)}, ${at(e)})`, prec: 8 };
    case "SelectExpr":
      return select(ctx, e);
    case "MethodCallExpr": {
      // Runs on the row `o` names, in this call's transaction (compiler/emit/methods.ts emitFunction).
      const call = ctx.typing.methodCalls.get(e)!;
      const obj = expr(ctx, e.object);
      const id = call.isRef ? obj.code : prop(wrap(obj, 8), "id");
      const code = `await nested(budget, ${at(e)}, async () => ${methodFunctionName(call.type, e.method.text)}(tx, budget, ${id}${e.args.map((a) => `, ${argument(ctx, a)}`).join("")}))`;
      const callee = findType(ctx.catalog, call.type)?.methods.find((m) => m.name === e.method.text);
      return callResult(ctx, e, `${call.type}.${e.method.text}()`, callee?.returns !== undefined, code);
    }
    case "ListExpr":
      return { code: `[${e.items.map((item) => expr(ctx, item).code).join(", ")}]`, prec: 8 };
    case "ObjectExpr": {
      // Every key of the struct or row it fits, in declaration order; one left out is null.
      const fields = ctx.typing.objectFields.get(e) ?? [];
      const entries = fields.map((f) => {
        const entry = e.entries.find((x) => x.name.text === f.name);
        // A row given for a `ref T` field is its id (compiler/check/body/literals.ts fitValue).
        const value = !entry
          ? omittedFieldValue(f)
          : ctx.typing.rowIds.has(entry.value)
            ? rowId(ctx, entry.value, f.isOptional)
            : expr(ctx, entry.value).code;
        return `${objectKey(f.name)}: ${value}`;
      });
      return { code: `{ ${entries.join(", ")} }`, prec: 8 };
    }
    case "UnaryExpr": {
      if (e.op === "not") {
        const c = condition(ctx, e.operand, 7);
        return { code: `!${c}`, prec: 7 };
      }
      const inner = operand(ctx, e.operand, 7);
      return { code: inner.startsWith("-") ? `-(${inner})` : `-${inner}`, prec: 7 };
    }
    case "BinaryExpr": {
      const lt = typeOf(ctx, e.left);
      const rt = typeOf(ctx, e.right);
      switch (e.op) {
        case "or":
          return { code: `${condition(ctx, e.left, 1)} || ${condition(ctx, e.right, 2)}`, prec: 1 };
        case "and":
          return { code: `${condition(ctx, e.left, 2)} && ${condition(ctx, e.right, 3)}`, prec: 2 };
        case "==":
        case "!=": {
          const l = expr(ctx, e.left);
          const r = expr(ctx, e.right);
          const isNullTest = lt.k === "null" || rt.k === "null";
          if (isNullTest) return { code: `${wrap(l, 4)} ${e.op} ${wrap(r, 4)}`, prec: 3 };
          if (scalarKinds.has(lt.k) && scalarKinds.has(rt.k)) {
            return { code: `${wrap(l, 4)} ${e.op === "==" ? "===" : "!=="} ${wrap(r, 4)}`, prec: 3 };
          }
          ctx.helpers.add("sameJson");
          return { code: `${e.op === "!=" ? "!" : ""}sameJson(${l.code}, ${r.code})`, prec: e.op === "!=" ? 7 : 8 };
        }
        case "<":
        case "<=":
        case ">":
        case ">=":
          return { code: `${operand(ctx, e.left, 5)} ${e.op} ${operand(ctx, e.right, 5)}`, prec: 4 };
        case "+":
          if (typeOf(ctx, e).k === "text") {
            // Text concatenation: a number or boolean reads as JSON, null as "null"; its length is bounded.
            ctx.helpers.add("concat");
            return { code: `concat(${expr(ctx, e.left).code}, ${expr(ctx, e.right).code}, ${at(e)})`, prec: 8 };
          }
          return integerChecked(ctx, e, {
            code: `${operand(ctx, e.left, 5)} ${e.op} ${operand(ctx, e.right, 6)}`,
            prec: 5,
          });
        case "-":
          return integerChecked(ctx, e, {
            code: `${operand(ctx, e.left, 5)} ${e.op} ${operand(ctx, e.right, 6)}`,
            prec: 5,
          });
        case "*":
          return integerChecked(ctx, e, { code: `${operand(ctx, e.left, 6)} * ${operand(ctx, e.right, 7)}`, prec: 6 });
        case "/":
        case "%": {
          const isFloat = lt.k === "float" || rt.k === "float";
          const helper = e.op === "%" ? "intMod" : isFloat ? "floatDiv" : "intDiv";
          ctx.helpers.add(helper);
          return { code: `${helper}(${operand(ctx, e.left, 1)}, ${operand(ctx, e.right, 1)}, ${at(e)})`, prec: 8 };
        }
      }
    }
  }
}

/**
 * The value of a fn or method call. A body typed `-> T` may still `return null`, while the
 * checker gives the call the type T: a null result ends the call (409) instead of reaching
 * code that expects a value.
 */
function callResult(ctx: ExprContext, e: Expr, what: string, returns: boolean, code: string): Printed {
  if (!returns) return { code, prec: 7 };
  ctx.helpers.add("present");
  return { code: `present(${code}, ${jsString(what)}, ${at(e)})`, prec: 8 };
}

/** An argument of a fn or method call: a row given for a `ref T` parameter passes its id. */
function argument(ctx: ExprContext, a: Expr): string {
  return ctx.typing.rowIds.has(a) ? rowId(ctx, a, false) : expr(ctx, a).code;
}

/**
 * The id of row `e` where a `ref T` goes. A row that may be none (`T{ id == i }`) gives null
 * where the ref is optional, and otherwise ends the call (409) when there is no row.
 */
export function rowId(ctx: ExprContext, e: Expr, isOptional: boolean): string {
  const p = expr(ctx, e);
  if (!isNullable(typeOf(ctx, e))) return prop(wrap(p, 8), "id");
  if (isOptional) return `(${p.code})?.id ?? null`;
  ctx.helpers.add("present");
  return `present(${p.code}, ${jsString(woText(e))}, ${at(e)}).id`;
}

/**
 * Int/Money `+`, `-`, `*` through rt.checkedInt: a result beyond the safe integers ends the call
 * (409) instead of being stored rounded. Float ones through rt.checkedFloat: a result past
 * ±1.8e308 is Infinity, which JSON writes as null and a Float column cannot hold.
 */
function integerChecked(ctx: ExprContext, e: Expr, p: Printed): Printed {
  const k = typeOf(ctx, e).k;
  if (k === "int") return { code: `rt.checkedInt(${p.code}, ${at(e)})`, prec: 8 };
  if (k === "float") return { code: `rt.checkedFloat(${p.code}, ${at(e)})`, prec: 8 };
  return p;
}

function member(ctx: ExprContext, e: import("../ast.js").MemberExpr): Printed {
  // `$session.user` as an id, `$session.role` as text: the running call's (compiler/check/body/session.ts).
  const session = sessionMember(e);
  if (session === "user") return { code: `rt.sessionUser(${at(e)})`, prec: 8 };
  if (session === "role") return { code: "rt.session().role", prec: 8 };
  const rel = ctx.typing.relations.get(e);
  if (rel?.link) {
    // The linked rows, in id order like every relation read; a link always names existing rows.
    ctx.rowTypes.add(rel.type);
    const links = `(await tx.list(${relationQuery(ctx, e)}))`;
    const rows = `(await Promise.all(${links}.map((link) => tx.get(${jsString(rel.table)}, link[${jsString(rel.column)}] as number))))`;
    return {
      code: `(${rows}.filter((row) => row !== undefined) as ${rowAlias(rel.type)}[]).sort((a, b) => (a.id as number) - (b.id as number))`,
      prec: 8,
    };
  }
  if (rel) {
    ctx.rowTypes.add(rel.type);
    return { code: `(await tx.list(${relationQuery(ctx, e)})) as ${rowAlias(rel.type)}[]`, prec: 4 };
  }
  const ref = ctx.typing.refReads.get(e);
  const objType = typeOf(ctx, e.object);
  const obj = objectRow(ctx, e);
  // The stored field the member names (a link's `source`/`target` is its endpoint's).
  const rowType = ref?.type ?? (objType.k === "row" || objType.k === "rows" ? objType.type : undefined);
  const type = rowType === undefined ? undefined : findType(ctx.catalog, rowType);
  const name = (type && fieldNamed(type, e.member.text)?.name) ?? e.member.text;
  if (ref) return { code: prop(obj, name, isNullable(objType)), prec: 8 };
  if (objType.k === "rows") return { code: `${obj}.map((row) => ${prop("row", name)})`, prec: 8 };
  return { code: prop(obj, name, isNullable(objType) && !isSelected(objType)), prec: 8 };
}

/** A row a one-row select found, or none (compiler/check/method-types.ts ValueType). */
function isSelected(t: ValueType): boolean {
  return t.k === "row" && t.selected === true;
}

/** The row `.field` reads: the object itself, or for a `ref T` id the row it names. */
function objectRow(ctx: ExprContext, e: import("../ast.js").MemberExpr): string {
  const ref = ctx.typing.refReads.get(e);
  const obj = expr(ctx, e.object);
  const t = typeOf(ctx, e.object);
  if (!ref && isSelected(t) && isNullable(t)) {
    // A field of a select that found no row ends the call.
    ctx.helpers.add("present");
    return `present(${obj.code}, ${jsString(woText(e.object))}, ${at(e)})`;
  }
  if (!ref) return wrap(obj, 8);
  ctx.helpers.add("deref");
  ctx.rowTypes.add(ref.type);
  const read = `await deref<${rowAlias(ref.type)}>(tx, ${jsString(ref.table)}, ${obj.code}, ${jsString(ref.type)}, ${jsString(woText(e.object))}, ${at(e)})`;
  return isNullable(typeOf(ctx, e.object)) ? `(${read})` : `(${read})!`;
}

/** `"price", { where: [...] }` for a relation read; for a `via` relation, the query of its links (one per row). */
function relationQuery(ctx: ExprContext, e: import("../ast.js").MemberExpr): string {
  const rel = ctx.typing.relations.get(e)!;
  const owner = objectRow(ctx, e);
  const [table, column] = rel.link ? [rel.link.table, rel.link.ownerColumn] : [rel.table, rel.column];
  // A row that may be null (`Article{ slug == s }.related`): no row, no related rows.
  const id = isNullable(typeOf(ctx, e.object)) ? `(${prop(owner, "id", true)} ?? null)` : prop(owner, "id");
  return `${jsString(table)}, { where: [{ column: ${jsString(column)}, op: "==", value: ${id} }] }`;
}

/** The `tx.list`/`tx.count` arguments when an expression is a plain store read, else undefined. */
function storeQuery(ctx: ExprContext, e: Expr): string | undefined {
  if (e.kind === "MemberExpr" && ctx.typing.relations.has(e)) return relationQuery(ctx, e);
  if (e.kind === "SelectExpr" && e.projection.length === 0) return selectQuery(ctx, e);
  return undefined;
}

function selectQuery(ctx: ExprContext, e: SelectExpr): string {
  const type = findType(ctx.catalog, e.type.text);
  const table = jsString(type?.table ?? e.type.text);
  if (e.predicates.length === 0) return table;
  return `${table}, { where: ${selectWhere(ctx, e)} }`;
}

/** The predicates of a select as a store query's `where`. */
function selectWhere(ctx: ExprContext, e: SelectExpr): string {
  const type = findType(ctx.catalog, e.type.text);
  const column = (name: string) => (type && fieldNamed(type, name)?.name) ?? name;
  const where = e.predicates.map(
    (p) => `{ column: ${jsString(column(p.column.text))}, op: ${jsString(p.op)}, value: ${expr(ctx, p.value).code} }`,
  );
  return `[${where.join(", ")}]`;
}

function select(ctx: ExprContext, e: SelectExpr): Printed {
  ctx.rowTypes.add(e.type.text);
  const list = `(await tx.list(${selectQuery(ctx, e)})) as ${rowAlias(e.type.text)}[]`;
  const keys = e.projection.map((c) => `${objectKey(c.text)}: ${prop("row", c.text)}`);
  if (selectsOneRow(ctx.catalog, e)) {
    // A unique field's equality: the one row, or null (compiler/check/method-types.ts selectsOneRow).
    const one = `((${list})[0] ?? null)`;
    if (e.projection.length === 0) return { code: one, prec: 8 };
    return { code: `((row) => (row === null ? null : { ${keys.join(", ")} }))${one}`, prec: 8 };
  }
  if (e.projection.length === 0) return { code: list, prec: 4 };
  return { code: `(${list}).map((row) => ({ ${keys.join(", ")} }))`, prec: 8 };
}

/** The rows an update/delete statement targets, as a store query (select targets only). */
export function selectTargetQuery(ctx: ExprContext, e: SelectExpr): string {
  ctx.rowTypes.add(e.type.text);
  return selectQuery(ctx, e);
}
