// Method bodies: resolve every name, field, type and function a body uses, give every
// expression a value type, and report what cannot run — each at the line:col of the mistake.
//
// Owns: the WO5xxx diagnostics and the typing the method emitter reuses (`typeMethod`), so the
// emitter and the checker can never disagree about what `self.prices` or `count(x)` means.
// Leaves to the declaration checker (check/*): parameter and return type names, duplicate
// methods, `id` parameters and exposure; a body is typed against the catalog it built.
//
// Scope follows the reference runtime (wo-language.md §5.8): one flat scope per call of
// `self`, parameters and `let` bindings; a `let` may rebind a name, and a binding made inside
// an `if` stays visible after it.

import { builtinFunctions } from "../builtins.js";
import type { AssertStmt, AssignStmt, BinaryExpr, Block, CallExpr, Expr, InsertStmt, LinkStmt, MemberExpr, MethodCallExpr, NameExpr, ObjectExpr, SelectExpr, Span, Stmt } from "../ast.js";
import type { Catalog, CatalogField, CatalogMethod, CatalogType, FieldType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import type { SkippedFunctions } from "./functions.js";
import { relationsOf } from "../../model/relations.js";
import { didYouMean } from "./did-you-mean.js";
import { unexecutedConstruct } from "./unexecuted.js";
import {
  describeType,
  fieldValueType,
  findType,
  isAssignable,
  isComparable,
  isNullable,
  isNumeric,
  isOrderable,
  nonNull,
  returnValueType,
  unknownType,
  type ValueType,
} from "./method-types.js";

/** What a name in a body refers to. */
export type NameBinding =
  | { kind: "self" }
  | { kind: "param"; name: string }
  | { kind: "let"; name: string }
  /** A union variant written bare (`Admin`): the text `"Admin"`. */
  | { kind: "variant"; value: string };

/** `o.customer.name` where `o.customer` is a `ref T` id: the row of `type` it names is read. */
export interface RefRead {
  type: string;
  table: string;
}

/** A relation read (`self.prices`): the rows of `type` whose `column` holds the owner's id. */
/**
 * How `row.rel` reads: rows of `table` (type `type`) whose ref `column` is the row's id — or,
 * for `multi T via L`, the `T` rows named in `column` of the `link` rows whose `ownerColumn`
 * is the row's id (model/relations.ts decides which).
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
}

/** Check every method body of every type. Call once the catalog's types and fields exist. */
export function checkMethodBodies(catalog: Catalog, bag: DiagnosticBag, skipped: SkippedFunctions = new Map()): void {
  for (const type of catalog.types) {
    for (const method of type.methods) typeMethod(catalog, type, method, bag, skipped);
  }
}

/** An object literal where no struct or row value is expected: WO5025 with this reason. */
const strayObjectLiteral = {
  what: "An object literal '{ … }'",
  why: "it is built only where a struct or row value is expected (a field, a parameter, a return value, a list element)",
};

/** WO5025 at a construct no body runs (check/unexecuted.ts says which, and why). */
function reportUnexecuted(bag: DiagnosticBag, node: Stmt | Expr): void {
  const { span, what, why } = unexecutedConstruct(node)!;
  bag.report("WO5025", span, { what, why });
}

function isText(t: ValueType): boolean {
  return t.k === "text" || t.k === "union";
}

function isScalar(t: ValueType): boolean {
  return t.k === "int" || t.k === "float" || t.k === "text" || t.k === "union" || t.k === "bool" || t.k === "null" || t.k === "unknown";
}

/** Projected rows of the declared row type: `select Price{ p == x, amount, at }` for `-> [Price]`. */
function isProjectionOf(t: ValueType, declared: ValueType): boolean {
  if ((t.k !== "row" && t.k !== "rows") || !t.projection) return false;
  if (declared.k === "array") return t.k === "rows" && declared.element.k === "row" && declared.element.type === t.type;
  return (declared.k === t.k || (declared.k === "rows" && t.k === "rows")) && "type" in declared && declared.type === t.type;
}

function unsupportedStatement(s: Stmt): { what: string; why: string } {
  switch (s.kind) {
    case "ForStmt":
      return { what: "'for … in …'", why: "loops are not compiled yet" };
    case "AssignStmt":
      return { what: `Assignment '${s.op}'`, why: "rebind with 'let', or change a row with 'update … set'" };
    case "ExprStmt":
      return { what: "A call on its own line", why: "its value would be discarded; calls of methods and functions are not compiled yet" };
    default:
      return { what: "'expect_abort'", why: "it belongs in a 'test' block" };
  }
}


/**
 * Types one body: a class method (`owner` its class, `self` in scope) or a free fn (`owner`
 * undefined). `skipped` names the free fns that are not executed, for WO5028 at their calls.
 */
export function typeMethod(catalog: Catalog, owner: CatalogType | undefined, method: CatalogMethod, bag: DiagnosticBag, skipped: SkippedFunctions = new Map()): MethodTyping {
  const typing: MethodTyping = {
    exprTypes: new Map(),
    names: new Map(),
    relations: new Map(),
    objectFields: new Map(),
    methodCalls: new Map(),
    rowIds: new Set(),
    refReads: new Map(),
    lets: new Map(),
    reassigned: new Set(),
    compound: new Map(),
  };
  const scope = new Map<string, { binding: NameBinding; type: ValueType }>();
  if (owner) scope.set("self", { binding: { kind: "self" }, type: { k: "row", type: owner.name } });
  for (const p of method.params) {
    scope.set(p.name, { binding: { kind: "param", name: p.name }, type: fieldValueType(catalog, p.type) });
  }
  const variants = unionVariants(catalog);
  /** Object literals that went into a known type (fitting or not); the rest are WO5025. */
  const fitted = new Set<ObjectExpr>();
  const declared = method.returns ? returnValueType(catalog, method.returns) : undefined;
  /** Names certainly bound on every path that reaches the current statement. */
  let bound = new Set<string>([...(owner ? ["self"] : []), ...method.params.map((p) => p.name)]);
  /** The keys of the rows each `return` of rows gives, for the method's output schema. */
  const returnedKeys: string[][] = [];
  function block(b: Block, depth: number): void {
    for (const s of b.statements) stmt(s, depth);
  }

  function stmt(s: Stmt, depth: number): void {
    switch (s.kind) {
      case "LetStmt": {
        // `let o = insert T { … }` binds the row as stored (its id, defaults and all).
        const t = s.value.kind === "InsertStmt" ? insert(s.value) : expr(s.value);
        bind(s.name.text, t, depth === 0);
        bound.add(s.name.text);
        return;
      }
      case "InsertStmt":
        insert(s);
        return;
      case "ForStmt": {
        const t = expr(s.iterable);
        const element: ValueType =
          t.k === "rows" ? (t.projection ? { k: "row", type: t.type, projection: t.projection } : { k: "row", type: t.type }) : t.k === "array" ? t.element : unknownType;
        if (t.k !== "rows" && t.k !== "array" && t.k !== "unknown") {
          bag.report("WO5026", s.iterable.span, { what: "'for … in'", expected: "rows or a list", found: describeType(t) });
        }
        // The loop may run zero times: nothing bound inside it is certainly bound after it.
        const before = bound;
        bound = new Set(before);
        bind(s.variable.text, element, false);
        bound.add(s.variable.text);
        block(s.body, depth + 1);
        bound = before;
        return;
      }
      case "AssignStmt":
        assign(s);
        return;
      case "ReturnStmt": {
        const t = s.value ? expr(s.value) : undefined;
        if (s.value && t && !declared) bag.report("WO5008", s.value.span, { method: method.name });
        if (declared && !s.value) {
          bag.report("WO5007", s.span, { method: method.name, expected: describeType(declared), found: "nothing" });
        } else if (declared && s.value && isLiteral(s.value)) {
          fitLiteral(s.value, declared);
        } else if (declared && s.value && t && isProjectionOf(t, declared)) {
          returnedKeys.push((t as { projection: string[] }).projection);
        } else if (declared && s.value && t && t.k !== "null" && !isAssignable(t, orNull(declared))) {
          bag.report("WO5007", s.value.span, { method: method.name, expected: describeType(declared), found: describeType(t) });
        } else if (declared && s.value && t && (t.k === "row" || t.k === "rows")) {
          const type = findType(catalog, t.type);
          if (type) returnedKeys.push(type.fields.filter((f) => f.isStored).map((f) => f.name));
        }
        return;
      }
      case "AssertStmt": {
        expr(s.condition);
        const message = s.abortExpr ? expr(s.abortExpr) : undefined;
        if (message && s.abortExpr && !isText(message) && message.k !== "unknown") {
          bag.report("WO5026", s.abortExpr.span, { what: "An abort message", expected: "text", found: describeType(message) });
        }
        return;
      }
      case "IfStmt": {
        expr(s.condition);
        // After the `if`, a name is bound when every branch that carries on past it bound it.
        const before = bound;
        const branches: { names: Set<string>; returns: boolean }[] = [];
        bound = new Set(before);
        block(s.then, depth + 1);
        branches.push({ names: bound, returns: alwaysReturns(s.then) });
        bound = new Set(before);
        if (s.else?.kind === "Block") block(s.else, depth + 1);
        else if (s.else) stmt(s.else, depth + 1);
        branches.push({ names: bound, returns: s.else ? (s.else.kind === "Block" ? alwaysReturns(s.else) : stmtAlwaysReturns(s.else)) : false });
        const live = branches.filter((b) => !b.returns);
        bound = live.length === 0 ? before : new Set([...live[0]!.names].filter((n) => live.every((b) => b.names.has(n))));
        return;
      }
      case "UpdateStmt": {
        const target = rowTarget(s.target, "update");
        for (const a of s.assignments) {
          const t = expr(a.value);
          if (a.path) {
            const what = `Setting '${[a.field, ...a.path].map((n) => n.text).join(".")}' inside a struct`;
            bag.report("WO5025", a.field.span, { what, why: "set the whole struct field" });
            continue;
          }
          const field = target ? writableField(target, a.field.text, a.field.span, "update") : undefined;
          if (target && field) checkStore(target, field, a.value, t);
        }
        if (s.target.kind === "NameExpr" && target) {
          const t = typing.exprTypes.get(s.target);
          // The bound row is refreshed with what the update wrote (spec: "Method language").
          if (t?.k === "row") typing.reassigned.add(s.target.name.text);
        }
        return;
      }
      case "DeleteStmt":
        rowTarget(s.target, "delete");
        return;
      case "ExprStmt":
        // A call of a free fn for what it does; any other value would be thrown away.
        if (s.expr.kind === "MethodCallExpr") {
          expr(s.expr);
          return;
        }
        if (s.expr.kind === "CallExpr") {
          expr(s.expr);
          const callee = s.expr.callee.text;
          if (callee !== "print" && !catalog.functions?.some((f) => f.name === callee) && !skipped.has(callee)) bag.report("WO5025", s.span, unsupportedStatement(s));
          return;
        }
        bag.report("WO5025", s.span, unsupportedStatement(s));
        return;
      case "ExpectAbortStmt":
        if (method.isTest) {
          // Like an `if` branch: what the block binds is not certainly bound after it.
          const before = bound;
          bound = new Set(before);
          block(s.body, depth + 1);
          bound = before;
          return;
        }
        bag.report("WO5025", s.span, unsupportedStatement(s));
        return;
      case "LinkStmt":
        link(s);
        return;
      case "AsSessionStmt":
        reportUnexecuted(bag, s);
        return;
    }
  }

  /** Record a `let` (or loop variable) binding of `name` to a value of type `t`. */
  function bind(name: string, t: ValueType, isTopLevel: boolean): void {
    const prior = typing.lets.get(name);
    typing.lets.set(name, {
      count: (prior?.count ?? 0) + 1,
      isTopLevelOnly: (prior?.isTopLevelOnly ?? true) && isTopLevel,
      type: prior && !sameShape(prior.type, t) ? unknownType : t,
    });
    if (scope.get(name)?.binding.kind === "param") typing.reassigned.add(name);
    scope.set(name, { binding: { kind: "let", name }, type: t });
  }

  /** An insert; its value is the new row. */
  function insert(s: InsertStmt): ValueType {
    const target = findType(catalog, s.type.text);
    if (!target) {
      bag.report("WO5002", s.type.span, { name: s.type.text, hint: didYouMean(s.type.text, catalog.types.map((t) => t.name)) });
      for (const e of s.entries) expr(e.value);
      return unknownType;
    }
    const given = new Set<string>();
    for (const e of s.entries) {
      const t = expr(e.value);
      if (given.has(e.name.text)) bag.report("WO5016", e.name.span, { field: e.name.text });
      given.add(e.name.text);
      const field = writableField(target, e.name.text, e.name.span, "insert");
      if (field) checkStore(target, field, e.value, t);
    }
    for (const f of target.fields) {
      if (f.isRequiredOnCreate && !given.has(f.name)) bag.report("WO5015", s.type.span, { type: target.name, field: f.name });
    }
    return { k: "row", type: target.name };
  }

  /**
   * `link a -[E { f: v }]-> b` / `unlink a -[E]-> b`: `a` names a row of E's source type and `b`
   * one of its target type (the row, or its id); E's own fields are set like an insert's.
   */
  function link(s: LinkStmt): void {
    const statement = s.remove ? "unlink" : "link";
    const from = expr(s.from);
    const to = expr(s.to);
    for (const e of s.entries) expr(e.value);
    if (s.isLabel) {
      reportUnexecuted(bag, s);
      return;
    }
    const target = findType(catalog, s.edge.text);
    if (!target) {
      const links = catalog.types.filter((t) => t.link).map((t) => t.name);
      bag.report("WO5002", s.edge.span, { name: s.edge.text, hint: didYouMean(s.edge.text, links) });
      return;
    }
    if (!target.link) {
      bag.report("WO5026", s.edge.span, { what: `'${statement}'`, expected: "a link type (type L link A -> B)", found: `'${target.name}', which is not a link type` });
      return;
    }
    endpoint(s.from, from, target.link.from, `The source of '${statement} … -[${target.name}]->'`);
    endpoint(s.to, to, target.link.to, `The target of '${statement} … -[${target.name}]->'`);
    if (s.remove) {
      if (s.entries.length > 0) bag.report("WO5025", s.entries[0]!.span, { what: "Fields in 'unlink'", why: "a pair has one link, so 'unlink' names only its two ends" });
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
      const field = writableField(target, e.name.text, e.name.span, "insert");
      if (field) checkStore(target, field, e.value, typing.exprTypes.get(e.value) ?? unknownType);
    }
    for (const f of target.fields) {
      if (f.isRequiredOnCreate && !given.has(f.name)) {
        bag.report("WO5029", s.edge.span, { what: `'link … -[${target.name}]->'`, expected: target.name, why: `required field '${f.name}' is not given (-[${target.name} { ${f.name}: … }]->)` });
      }
    }
  }

  /** One end of a link: a row of `type`, or an id (a `ref type`, or a plain Id/Int). */
  function endpoint(e: Expr, t: ValueType, type: string, what: string): void {
    if (t.k === "unknown") return;
    const isRow = t.k === "row" && t.type === type && !t.projection;
    const isId = t.k === "int" && (t.name === `ref ${type}` || !t.name.startsWith("ref "));
    if ((isRow || isId) && !isNullable(t)) return;
    bag.report("WO5026", e.span, { what, expected: `a ${type} row or its id`, found: describeType(t) });
  }

  /** `x = e`, `x += e`, `x -= e` on a parameter or `let` name; fields change through `update`. */
  function assign(s: AssignStmt): void {
    if (s.target.kind !== "NameExpr" || s.target.name.text === "self") {
      expr(s.value);
      const what = s.target.kind === "NameExpr" ? "Assignment to 'self'" : "Assignment to a field";
      bag.report("WO5025", s.target.span, { what, why: "change a row with 'update … set f = …'" });
      return;
    }
    const name = s.target.name.text;
    const held = expr(s.target);
    if (held.k === "unknown" && !scope.has(name)) {
      expr(s.value);
      return;
    }
    let value: ValueType;
    if (s.op === "=") {
      value = expr(s.value);
    } else {
      const arithmetic: BinaryExpr = { kind: "BinaryExpr", op: s.op === "+=" ? "+" : "-", left: s.target, right: s.value, span: s.span };
      typing.compound.set(s, arithmetic);
      value = expr(arithmetic);
    }
    if (value.k !== "unknown" && !isAssignable(value, held)) {
      bag.report("WO5027", s.value.span, { name, expected: describeType(held), found: describeType(value) });
    }
    typing.reassigned.add(name);
  }

  /** The type whose rows an update/delete target names, or undefined after an error. */
  function rowTarget(target: SelectExpr | NameExpr, what: string): CatalogType | undefined {
    const t = expr(target);
    if (t.k === "unknown") return undefined;
    if ((t.k === "row" || t.k === "rows") && !t.projection) return findType(catalog, t.type);
    bag.report("WO5019", target.span, { what, found: describeType(t) });
    return undefined;
  }

  /** A field an insert/update may set, or a diagnostic saying why not. */
  function writableField(target: CatalogType, name: string, span: Span, statement: "insert" | "update"): CatalogField | undefined {
    const field = target.fields.find((f) => f.name === name);
    if (!field) {
      bag.report("WO5003", span, { type: target.name, field: name, hint: didYouMean(name, target.fields.map((f) => f.name)) });
      return undefined;
    }
    // @readonly fields are the app's own to write; @immutable ones only when the row is made.
    if (field.isWritable && !(statement === "update" && field.isImmutable)) return field;
    if (field.isWritable) {
      bag.report("WO5009", span, { field: name, type: target.name, why: "it is @immutable: set when the row is inserted and never changed" });
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

  function checkStore(target: CatalogType, field: CatalogField, value: Expr, t: ValueType): void {
    const want = fieldValueType(catalog, field.type, field.isOptional);
    if (isLiteral(value)) {
      fitLiteral(value, want);
      return;
    }
    const text = variantText(value);
    if (want.k === "union" && text !== undefined) {
      if (!want.variants.includes(text)) bag.report("WO5020", value.span, { value: text, variants: want.variants.join(" | ") });
      return;
    }
    if (!isAssignable(t, want)) {
      bag.report("WO5014", value.span, { field: field.name, type: target.name, expected: describeType(want), found: describeType(t) });
    }
  }

  function expr(e: Expr): ValueType {
    const t = exprUncached(e);
    typing.exprTypes.set(e, t);
    return t;
  }

  function exprUncached(e: Expr): ValueType {
    switch (e.kind) {
      case "LiteralExpr":
        switch (e.literal.literalType) {
          case "int":
            // Beyond ±(2^53 − 1) the literal would already be a different number at run time.
            if (!Number.isSafeInteger(e.literal.value)) bag.report("WO5024", e.span, { value: String(e.literal.value) });
            return { k: "int", name: "Int" };
          case "float":
            return { k: "float" };
          case "string":
            return { k: "text", name: "Text" };
          case "bool":
            return { k: "bool" };
          case "null":
            return { k: "null" };
        }
        return unknownType;
      case "NameExpr": {
        const found = scope.get(e.name.text);
        if (!found && variants.has(e.name.text)) {
          // A bare variant (`Admin`) is its text; where it goes, the union's variants are checked.
          typing.names.set(e, { kind: "variant", value: e.name.text });
          return { k: "union", variants: [e.name.text] };
        }
        if (!found) {
          bag.report("WO5001", e.name.span, { name: e.name.text, hint: didYouMean(e.name.text, scope.keys()) });
          return unknownType;
        }
        typing.names.set(e, found.binding);
        if (found.binding.kind === "let" && !bound.has(e.name.text)) {
          bag.report("WO5023", e.name.span, { name: e.name.text });
        }
        return found.type;
      }
      case "MemberExpr":
        return member(e);
      case "CallExpr":
        return call(e);
      case "SelectExpr":
        return select(e);
      case "UnaryExpr": {
        const t = expr(e.operand);
        if (e.op === "not") return { k: "bool" };
        if (!isNumeric(t)) bag.report("WO5012", e.operand.span, { op: "-", found: describeType(t) });
        return t.k === "float" ? { k: "float" } : { k: "int", name: t.k === "int" ? t.name : "Int" };
      }
      case "IndexExpr": {
        const list = expr(e.object);
        const index = expr(e.index);
        if (index.k !== "int" && index.k !== "unknown") {
          bag.report("WO5026", e.index.span, { what: "An index", expected: "an integer", found: describeType(index) });
        }
        if (list.k === "rows") return list.projection ? { k: "row", type: list.type, projection: list.projection } : { k: "row", type: list.type };
        if (list.k === "array") return list.element;
        if (list.k !== "unknown") bag.report("WO5026", e.object.span, { what: "Indexing", expected: "rows or a list", found: describeType(list) });
        return unknownType;
      }
      case "ObjectExpr":
        // Typed against the struct or row it goes into (fitLiteral); WO5025 where none is expected.
        for (const entry of e.entries) expr(entry.value);
        return unknownType;
      case "ListExpr": {
        const items = e.items.map((item) => expr(item));
        const element = items.find((t) => t.k !== "null" && t.k !== "unknown") ?? unknownType;
        e.items.forEach((item, i) => {
          if (!isLiteral(item) && !isAssignable(items[i]!, orNull(element))) {
            bag.report("WO5026", item.span, { what: "A list element", expected: describeType(element), found: describeType(items[i]!) });
          }
        });
        const hasNull = items.some((t) => t.k === "null");
        return { k: "array", element: hasNull ? orNull(element) : element };
      }
      case "MethodCallExpr":
        return methodCall(e);
      case "LiveExpr":
        reportUnexecuted(bag, e);
        return unknownType;
      case "BinaryExpr": {
        const l = expr(e.left);
        const r = expr(e.right);
        switch (e.op) {
          case "and":
          case "or":
            return { k: "bool" };
          case "==":
          case "!=":
            checkVariantLiteral(l, e.right);
            checkVariantLiteral(r, e.left);
            if (!isComparable(l, r)) bag.report("WO5011", e.span, { left: describeType(l), right: describeType(r), op: e.op });
            return { k: "bool" };
          case "<":
          case "<=":
          case ">":
          case ">=":
            if (!isOrderable(nonNull(l), nonNull(r))) bag.report("WO5011", e.span, { left: describeType(l), right: describeType(r), op: e.op });
            return { k: "bool" };
          default: {
            // `"short of " + p.sku`: `+` with a text operand joins text (scalars only).
            if (e.op === "+" && (isText(l) || isText(r)) && isScalar(l) && isScalar(r)) return { k: "text", name: "Text" };
            if (!isNumeric(l)) bag.report("WO5012", e.left.span, { op: e.op, found: describeType(l) });
            else if (!isNumeric(r)) bag.report("WO5012", e.right.span, { op: e.op, found: describeType(r) });
            if (l.k === "float" || r.k === "float") return { k: "float" };
            // Money stays Money through arithmetic with plain Ints (`amount * 2`).
            const name = [l, r].map((t) => (t.k === "int" ? t.name : "Int")).find((n) => n !== "Int" && n !== "Id") ?? "Int";
            return { k: "int", name: name.startsWith("ref ") ? "Int" : name };
          }
        }
      }
    }
  }

  function checkVariantLiteral(side: ValueType, other: Expr): void {
    const text = variantText(other);
    if (side.k !== "union" || text === undefined) return;
    if (!side.variants.includes(text)) bag.report("WO5020", other.span, { value: text, variants: side.variants.join(" | ") });
  }

  /** The text of a string literal or of a bare variant name, else undefined. */
  function variantText(e: Expr): string | undefined {
    if (e.kind === "LiteralExpr") return typeof e.literal.value === "string" ? e.literal.value : undefined;
    const b = e.kind === "NameExpr" ? typing.names.get(e) : undefined;
    return b?.kind === "variant" ? b.value : undefined;
  }

  /**
   * A literal `{ … }` or `[ … ]` against the type it goes into, member by member: the first
   * misfit is WO5029 at the entry or element that does not fit (or WO5020 for a variant).
   */
  function fitLiteral(value: Expr, want: ValueType): void {
    if (value.kind === "ObjectExpr") fitted.add(value);
    const target = nonNull(want);
    if (target.k === "unknown") {
      return;
    }
    if (value.kind === "ListExpr") {
      if (target.k !== "array" && target.k !== "rows") {
        bag.report("WO5029", value.span, { what: "The list literal", expected: describeType(want), why: "it is not a list" });
        return;
      }
      const element: ValueType = target.k === "rows" ? { k: "row", type: target.type } : target.element;
      for (const item of value.items) fitValue(item, element);
      return;
    }
    if (value.kind !== "ObjectExpr") return;
    const declaredFields = target.k === "struct" ? target.fields : target.k === "row" && !target.projection ? findType(catalog, target.type)?.fields : undefined;
    const fields = declaredFields?.filter((f) => f.isStored && f.name !== "id" && f.default?.kind !== "computed");
    if (!fields) {
      bag.report("WO5029", value.span, { what: "The object literal", expected: describeType(want), why: "it is not a struct or a row" });
      return;
    }
    const given = new Set<string>();
    for (const entry of value.entries) {
      const field = fields.find((f) => f.name === entry.name.text);
      if (!field) {
        bag.report("WO5029", entry.name.span, { what: "The object literal", expected: describeType(want), why: `'${entry.name.text}' is not one of its fields` });
        return;
      }
      if (given.has(field.name)) {
        bag.report("WO5016", entry.name.span, { field: field.name });
        return;
      }
      given.add(field.name);
      fitValue(entry.value, fieldValueType(catalog, field.type, field.isOptional));
    }
    // Left out, a field gets what `insert` gives it (emit/method-expr.ts omittedFieldValue).
    const missing = fields.find((f) => !f.isOptional && f.default === undefined && f.type.kind !== "array" && !given.has(f.name));
    if (missing) {
      bag.report("WO5029", value.span, { what: "The object literal", expected: describeType(want), why: `field '${missing.name}' is missing` });
      return;
    }
    // A field left out gets its default, else null (it is optional), as `insert` does.
    typing.objectFields.set(value, fields);
  }

  /** One entry or element of a literal: nested literals recurse, variants are checked. */
  function fitValue(value: Expr, want: ValueType): void {
    if (isLiteral(value)) return fitLiteral(value, want);
    const t = typing.exprTypes.get(value) ?? unknownType;
    const text = variantText(value);
    if (nonNull(want).k === "union" && text !== undefined) {
      const variants = (nonNull(want) as { variants: string[] }).variants;
      if (!variants.includes(text)) bag.report("WO5020", value.span, { value: text, variants: variants.join(" | ") });
      return;
    }
    // A computed Text is not checked against a union inside a literal: write a variant.
    const fits = nonNull(want).k === "union" ? t.k === "union" || t.k === "unknown" || t.k === "null" : true;
    if (!fits || !isAssignable(t, want)) bag.report("WO5029", value.span, { what: "The value", expected: describeType(want), why: `it is ${describeType(t)}` });
  }

  function member(e: MemberExpr): ValueType {
    let objType = expr(e.object);
    const name = e.member.text;
    if (objType.k === "unknown") return unknownType;
    const referenced = objType.k === "int" && objType.name.startsWith("ref ") ? findType(catalog, objType.name.slice(4)) : undefined;
    if (referenced && objType.k === "int") {
      // `o.customer.name`: the row the id names, read in this call's transaction.
      typing.refReads.set(e, { type: referenced.name, table: referenced.table });
      objType = { k: "row", type: referenced.name, nullable: objType.nullable === true };
    }
    if (objType.k === "row" || objType.k === "rows") {
      const type = findType(catalog, objType.type);
      if (!type) return unknownType;
      const projection = objType.projection;
      const field = type.fields.find((f) => f.name === name);
      if (!field || (projection && !projection.includes(name))) {
        const visible = projection ?? type.fields.map((f) => f.name);
        bag.report("WO5003", e.member.span, { type: projection ? `${type.name} { ${projection.join(", ")} }` : type.name, field: name, hint: didYouMean(name, visible) });
        return unknownType;
      }
      if (field.default?.kind === "computed") {
        bag.report("WO5017", e.member.span, { field: name, found: `${type.name} (it is computed and not stored)` });
        return unknownType;
      }
      if (field.type.kind === "multi" || field.type.kind === "backlink") {
        if (objType.k === "rows") {
          bag.report("WO5017", e.member.span, { field: name, found: `${describeType(objType)} (relations are read from one row)` });
          return unknownType;
        }
        const rel = resolveRelation(type, field, e);
        return rel ? { k: "rows", type: rel.type } : unknownType;
      }
      const t = fieldValueType(catalog, field.type, field.isOptional || isNullable(objType));
      // On a set of rows, `.field` maps over the rows (the reference's set projection).
      return objType.k === "rows" ? { k: "array", element: t } : t;
    }
    if (objType.k === "struct") {
      const field = objType.fields.find((f) => f.name === name);
      if (!field) {
        bag.report("WO5003", e.member.span, { type: describeType(objType), field: name, hint: didYouMean(name, objType.fields.map((f) => f.name)) });
        return unknownType;
      }
      return fieldValueType(catalog, field.type, field.isOptional || isNullable(objType));
    }
    bag.report("WO5017", e.member.span, { field: name, found: describeType(objType) });
    return unknownType;
  }

  function resolveRelation(type: CatalogType, field: CatalogField, e: MemberExpr): RelationRead | undefined {
    if (field.type.kind !== "multi" && field.type.kind !== "backlink") return undefined;
    // The same resolution as the relation's REST route and MCP tool.
    const found = relationsOf(catalog, type).find((r) => r.field.name === field.name);
    if (!found) {
      if (field.type.kind === "multi" && !field.type.via) {
        const target = findType(catalog, field.type.target);
        const count = (target?.fields ?? []).filter((f) => f.type.kind === "ref" && f.type.target === type.name).length;
        bag.report("WO5018", e.member.span, { field: field.name, type: type.name, target: field.type.target, count: String(count) });
      }
      return undefined;
    }
    const { target, path } = found;
    const rel: RelationRead =
      path.kind === "ref"
        ? { type: target.name, table: target.table, column: path.column }
        : { type: target.name, table: target.table, column: path.targetColumn, link: { table: path.link.table, ownerColumn: path.ownerColumn } };
    typing.relations.set(e, rel);
    return rel;
  }

  function call(e: CallExpr): ValueType {
    const args = e.args.map((a) => expr(a));
    const name = e.callee.text;
    const fn = builtinFunctions.has(name) ? undefined : catalog.functions?.find((f) => f.name === name);
    if (fn) return callFunction(e, fn, args);
    if (name === "print") return { k: "null" }; // any values, written as one line to stdout
    if (!builtinFunctions.has(name)) {
      const reason = skipped.get(name);
      if (reason !== undefined) bag.report("WO5028", e.callee.span, { name, reason });
      else if (owner?.methods.some((m) => m.name === name)) bag.report("WO5022", e.callee.span, { name, type: owner.name });
      else bag.report("WO5004", e.callee.span, { name });
      return unknownType;
    }
    const arity = name === "now" ? 0 : name === "contains" ? 2 : 1; // `len` is `count`
    if (args.length !== arity) {
      bag.report("WO5005", e.callee.span, {
        name,
        expected: arity === 0 ? "no arguments" : arity === 1 ? "1 argument" : `${arity} arguments`,
        found: `${args.length}`,
      });
      return name === "now" ? { k: "text", name: "Timestamp" } : name === "contains" ? { k: "bool" } : unknownType;
    }
    if (name === "now") return { k: "text", name: "Timestamp" };
    const set = args[0]!;
    if (name === "contains") {
      // contains(list, x): is x (compared as values, like ==) one of the elements?
      const element: ValueType = set.k === "rows" ? { k: "row", type: set.type } : set.k === "array" ? set.element : unknownType;
      if (set.k !== "rows" && set.k !== "array" && set.k !== "unknown") {
        bag.report("WO5006", e.args[0]!.span, { name, expected: "a set (rows or a list)", found: describeType(set) });
      } else if (!isComparable(element, args[1]!)) {
        bag.report("WO5006", e.args[1]!.span, { name, expected: `a value comparable with ${describeType(element)}`, found: describeType(args[1]!) });
      }
      return { k: "bool" };
    }
    if (name === "count" || name === "len") {
      if (set.k !== "rows" && set.k !== "array" && set.k !== "unknown") {
        bag.report("WO5006", e.args[0]!.span, { name, expected: "a set (rows or a list)", found: describeType(set) });
      }
      return { k: "int", name: "Int" };
    }
    // latest(set): the row with the largest id.
    if (set.k === "rows") {
      if (set.projection && !set.projection.includes("id")) {
        bag.report("WO5006", e.args[0]!.span, { name, expected: "rows that include 'id'", found: describeType(set) });
        return unknownType;
      }
      return set.projection ? { k: "row", type: set.type, projection: set.projection } : { k: "row", type: set.type };
    }
    if (set.k !== "unknown") bag.report("WO5006", e.args[0]!.span, { name, expected: "rows", found: describeType(set) });
    return unknownType;
  }

  /** `f(a, b)` of a free fn: arguments fit its parameters; its writes need this body's txn. */
  function callFunction(e: CallExpr, fn: CatalogMethod, args: ValueType[]): ValueType {
    if (args.length !== fn.params.length) {
      bag.report("WO5005", e.callee.span, { name: fn.name, expected: `${fn.params.length} argument${fn.params.length === 1 ? "" : "s"}`, found: `${args.length}` });
    } else {
      fitArguments(fn, e.args, args, fn.name);
    }
    return fn.returns ? returnValueType(catalog, fn.returns) : { k: "null" };
  }

  /** Each argument fits its parameter; a row given for a `ref T` parameter passes its id. */
  function fitArguments(fn: CatalogMethod, exprs: Expr[], args: ValueType[], name: string): void {
    fn.params.forEach((p, i) => {
      const want = fieldValueType(catalog, p.type);
      const given = args[i]!;
      if (isLiteral(exprs[i]!)) return fitLiteral(exprs[i]!, want);
      if (p.type.kind === "ref" && given.k === "row" && !given.projection && given.type === p.type.target && !isNullable(given)) {
        typing.rowIds.add(exprs[i]!);
        return;
      }
      if (!isAssignable(given, want)) bag.report("WO5006", exprs[i]!.span, { name, expected: describeType(want), found: describeType(given) });
    });
  }

  /** `o.m(args)`: a method of `o`'s class, run on that row in this call's transaction. */
  function methodCall(e: MethodCallExpr): ValueType {
    const objType = expr(e.object);
    const args = e.args.map((a) => expr(a));
    if (objType.k === "unknown") return unknownType;
    const isRef = objType.k === "int" && objType.name.startsWith("ref ");
    const type = objType.k === "row" && !objType.projection ? findType(catalog, objType.type) : isRef && objType.k === "int" ? findType(catalog, objType.name.slice(4)) : undefined;
    if (!type || isNullable(objType)) {
      bag.report("WO5026", e.object.span, { what: `A method call '.${e.method.text}(…)'`, expected: "a row or a ref id (not null)", found: describeType(objType) });
      return unknownType;
    }
    const callee = type.methods.find((m) => m.name === e.method.text);
    const skippedReason = skipped.get(`${type.name}.${e.method.text}`);
    if (!callee && skippedReason !== undefined) {
      bag.report("WO5028", e.method.span, { name: `${type.name}.${e.method.text}`, reason: skippedReason });
      return unknownType;
    }
    if (!callee) {
      bag.report("WO5003", e.method.span, { type: type.name, field: `${e.method.text}()`, hint: didYouMean(e.method.text, type.methods.map((m) => m.name)) });
      return unknownType;
    }
    const name = `${type.name}.${callee.name}`;
    if (args.length !== callee.params.length) {
      bag.report("WO5005", e.method.span, { name, expected: `${callee.params.length} argument${callee.params.length === 1 ? "" : "s"}`, found: `${args.length}` });
    } else {
      fitArguments(callee, e.args, args, name);
    }
    typing.methodCalls.set(e, { type: type.name, table: type.table, isRef });
    return callee.returns ? returnValueType(catalog, callee.returns) : { k: "null" };
  }

  function select(e: SelectExpr): ValueType {
    const target = findType(catalog, e.type.text);
    if (!target) bag.report("WO5002", e.type.span, { name: e.type.text, hint: didYouMean(e.type.text, catalog.types.map((t) => t.name)) });
    for (const p of e.predicates) {
      const valueType = expr(p.value);
      if (!target) continue;
      const field = target.fields.find((f) => f.name === p.column.text);
      const filterable =
        field && field.isStored && (field.type.kind === "scalar" || field.type.kind === "union" || field.type.kind === "ref");
      if (!field || !filterable) {
        bag.report("WO5013", p.column.span, {
          type: target.name,
          column: p.column.text,
          why: field ? "not a scalar, union or ref column, so it cannot be filtered on" : "not a field",
        });
        continue;
      }
      const colType = fieldValueType(catalog, field.type, field.isOptional);
      checkVariantLiteral(colType, p.value);
      const ok = p.op === "==" || p.op === "!=" ? isComparable(colType, valueType) : isOrderable(nonNull(colType), nonNull(valueType));
      if (!ok) bag.report("WO5011", p.span, { left: describeType(colType), right: describeType(valueType), op: p.op });
    }
    if (!target) return unknownType;
    const projection: string[] = [];
    for (const col of e.projection) {
      const field = target.fields.find((f) => f.name === col.text);
      if (!field || !field.isStored) {
        bag.report("WO5013", col.span, { type: target.name, column: col.text, why: field ? "not a stored column" : "not a field" });
      } else projection.push(col.text);
    }
    return e.projection.length > 0 ? { k: "rows", type: target.name, projection } : { k: "rows", type: target.name };
  }

  block(method.body, 0);
  for (const e of typing.exprTypes.keys()) {
    if (e.kind === "ObjectExpr" && !fitted.has(e)) bag.report("WO5025", e.span, strayObjectLiteral);
  }
  if (declared && !alwaysReturns(method.body)) {
    bag.report("WO5021", method.body.span, { method: method.name, expected: describeType(declared) });
  }
  recordReturnedKeys(catalog, method, returnedKeys);
  return typing;
}

/**
 * A method some of whose returns give projected rows: which keys its rows may hold and which
 * every one holds (whole rows hold every stored field). Recomputed on every typing of the body.
 */
function recordReturnedKeys(catalog: Catalog, method: CatalogMethod, returnedKeys: string[][]): void {
  const returned = method.returns?.type;
  const type = returned?.kind === "embedded" ? findType(catalog, returned.type) : undefined;
  const whole = type?.fields.filter((f) => f.isStored).length;
  if (!type || returnedKeys.every((keys) => new Set(keys).size === whole)) {
    delete method.returnsProjection;
    return;
  }
  const fields = type.fields.map((f) => f.name).filter((name) => returnedKeys.some((keys) => keys.includes(name)));
  const required = fields.filter((name) => returnedKeys.every((keys) => keys.includes(name)));
  method.returnsProjection = { fields, required };
}

function isLiteral(e: Expr): boolean {
  return e.kind === "ObjectExpr" || e.kind === "ListExpr";
}

/** Every variant name of every union in the program: the names a body may write bare. */
function unionVariants(catalog: Catalog): Set<string> {
  const names = new Set<string>();
  const visit = (t: FieldType): void => {
    if (t.kind === "union") for (const v of t.variants) names.add(v);
    else if (t.kind === "array") visit(t.element);
    else if (t.kind === "struct") for (const f of t.fields) visit(f.type);
  };
  for (const type of catalog.types) {
    for (const f of type.fields) visit(f.type);
    for (const m of type.methods) for (const p of m.params) visit(p.type);
  }
  for (const fn of catalog.functions ?? []) for (const p of fn.params) visit(p.type);
  return names;
}

/** True when every path through the block ends in `return` (or an assert that always aborts). */
export function alwaysReturns(b: Block): boolean {
  return b.statements.some((s) => stmtAlwaysReturns(s));
}

function stmtAlwaysReturns(s: Stmt): boolean {
  if (s.kind === "ReturnStmt") return true;
  if (s.kind === "AssertStmt") return isFalseLiteral(s);
  if (s.kind !== "IfStmt" || !s.else) return false;
  const otherwise = s.else.kind === "Block" ? alwaysReturns(s.else) : stmtAlwaysReturns(s.else);
  return alwaysReturns(s.then) && otherwise;
}

function isFalseLiteral(s: AssertStmt): boolean {
  return s.condition.kind === "LiteralExpr" && (s.condition.literal.value === false || s.condition.literal.value === null);
}

/** Method results are always nullable (spec/schemas.md, "Operation outputs"). */
function orNull(t: ValueType): ValueType {
  return t.k === "unknown" || t.k === "null" || t.k === "rows" ? t : { ...t, nullable: true };
}

function sameShape(a: ValueType, b: ValueType): boolean {
  // Int and Money rebind each other freely: both are integers at run time.
  if (a.k === "int" && b.k === "int") return true;
  return a.k === b.k && describeType(nonNull(a)) === describeType(nonNull(b));
}
