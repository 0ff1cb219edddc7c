// Calls in a body: the built-ins (`count`, `latest`, `contains`, `now`, `len`, `words`, `print`, `receive`), free
// fns `f(a)` and methods on a row `o.m(a)` — arity and argument types (WO5004–WO5006), calls of
// what is not executed (WO5028), and rows passed for `ref T` parameters (their id is passed).

import type { CallExpr, Expr, MethodCallExpr } from "../../ast.js";
import type { CatalogMethod } from "../../catalog.js";
import { builtinFunctions } from "../../builtins.js";
import { counted } from "../../../model/words.js";
import { didYouMean } from "../did-you-mean.js";
import {
  describeType,
  fieldValueType,
  findType,
  isAssignable,
  isComparable,
  isNullable,
  isRowOf,
  oneRowSelectHint,
  returnValueType,
  unknownType,
  type ValueType,
} from "../method-types.js";
import type { BodyCheck } from "./context.js";
import { eachAggregates, typeEachArgument } from "./each.js";
import { fitLiteral, isLiteral } from "./literals.js";

/**
 * `contains(rows, x)`: in `x`, the stored fields of the rows' type are names too (a name of the
 * scope wins), so `contains(related, slug == "two")` is a predicate over each row; when `x` is
 * then a Bool it is that predicate, else a value compared like ==.
 */
function containsArgs(check: BodyCheck, e: CallExpr): ValueType[] {
  const set = check.expr(e.args[0]!);
  const type = set.k === "rows" && !set.projection ? findType(check.catalog, set.type) : undefined;
  const added = (type?.fields ?? []).filter((f) => f.isStored && !check.scope.has(f.name));
  for (const f of added) {
    const binding = { kind: "element", field: f.name, row: containsRow(e) } as const;
    check.scope.set(f.name, { binding, type: fieldValueType(check.catalog, f.type, f.isOptional) });
  }
  try {
    return [set, check.expr(e.args[1]!)];
  } finally {
    for (const f of added) check.scope.delete(f.name);
  }
}

/** The name of the row a `contains(rows, pred)` is testing, in generated code: one per call. */
export function containsRow(e: CallExpr): string {
  return `element_${e.span.offset}`;
}

export function call(check: BodyCheck, e: CallExpr): ValueType {
  const { bag, catalog, owner, skipped } = check;
  const name = e.callee.text;
  // `sum(lines.*.qty * lines.*.price)`: the first argument, once per element (each.ts).
  const each = eachAggregates.has(name) && e.args.length > 0 ? typeEachArgument(check, e.args[0]!) : undefined;
  const args =
    name === "contains" && e.args.length === 2 && !each
      ? containsArgs(check, e)
      : e.args.map((a, i) => (i === 0 && each ? each : check.expr(a)));
  const fn = builtinFunctions.has(name) ? undefined : catalog.functions?.find((f) => f.name === name);
  if (fn) return callFunction(check, e, fn, args);
  if (name === "print") return { k: "null" }; // any values, written as one line to stdout
  if (!builtinFunctions.has(name)) {
    const reason = skipped.get(name);
    if (reason !== undefined) bag.report("WO5028", e.callee.span, { name, reason });
    else if (owner?.methods.some((m) => m.name === name))
      bag.report("WO5022", e.callee.span, { name, type: owner.name });
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
  if (name === "receive") {
    // receive(sub): the next delta of a `subscribe live` (spec/language.md, "Live subscriptions").
    if (set.k === "subscription") return { k: "delta", type: set.type };
    if (set.k !== "unknown")
      bag.report("WO5006", e.args[0]!.span, {
        name,
        expected: "a subscription (subscribe live T{ … })",
        found: describeType(set),
      });
    return unknownType;
  }
  if (name === "contains" && set.k === "rows" && args[1]!.k === "bool") {
    // contains(rows, pred): does some row make `pred` (over its fields) true?
    return { k: "bool" };
  }
  if (name === "contains") {
    // contains(list, x): is x (compared as values, like ==) one of the elements?
    const element: ValueType =
      set.k === "rows" ? { k: "row", type: set.type } : set.k === "array" ? set.element : unknownType;
    if (set.k !== "rows" && set.k !== "array" && set.k !== "unknown") {
      bag.report("WO5006", e.args[0]!.span, { name, expected: "a set (rows or a list)", found: describeType(set) });
    } else if (!isComparable(element, args[1]!)) {
      bag.report("WO5006", e.args[1]!.span, {
        name,
        expected: `a value comparable with ${describeType(element)}`,
        found: describeType(args[1]!),
      });
    }
    return { k: "bool" };
  }
  if (name === "sum") {
    // sum(list): the total of a list of numbers (`sum(self.lines.amount)`), 0 for an empty one;
    // nulls count as nothing. Of the element's type: a sum of Money is Money.
    const element = set.k === "array" ? set.element : undefined;
    if (element && (element.k === "int" || element.k === "float")) return { ...element, nullable: false };
    if (set.k !== "unknown")
      bag.report("WO5006", e.args[0]!.span, { name, expected: "a list of numbers", found: describeType(set) });
    return unknownType;
  }
  if (name === "words") {
    // words(text): how many whitespace-separated words it has; null has none.
    if (set.k !== "text" && set.k !== "null" && set.k !== "unknown")
      bag.report("WO5006", e.args[0]!.span, { name, expected: "a text", found: describeType(set) });
    return { k: "int", name: "Int" };
  }
  if (name === "count" || name === "len") {
    // A select on a unique field counts 0 or 1 like any select, also once bound to a name
    // (`let rows = select T{ slug == s }`: a T?, counted 1 when there is a row).
    const isSelect = e.args[0]!.kind === "SelectExpr";
    if (set.k !== "rows" && set.k !== "array" && set.k !== "unknown" && set.k !== "row" && !isSelect) {
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
  if (set.k !== "unknown")
    bag.report("WO5006", e.args[0]!.span, {
      name,
      expected: set.k === "row" && e.args[0]!.kind === "SelectExpr" ? `rows (${oneRowSelectHint})` : "rows",
      found: describeType(set),
    });
  return unknownType;
}

/** `f(a, b)` of a free fn: arguments fit its parameters; its writes need this body's txn. */
function callFunction(check: BodyCheck, e: CallExpr, fn: CatalogMethod, args: ValueType[]): ValueType {
  if (args.length !== fn.params.length) {
    check.bag.report("WO5005", e.callee.span, {
      name: fn.name,
      expected: counted(fn.params.length, "argument"),
      found: `${args.length}`,
    });
  } else {
    fitArguments(check, fn, e.args, args, fn.name);
  }
  return fn.returns ? returnValueType(check.catalog, fn.returns) : { k: "null" };
}

/** Each argument fits its parameter; a row given for a `ref T` parameter passes its id. */
function fitArguments(check: BodyCheck, fn: CatalogMethod, exprs: Expr[], args: ValueType[], name: string): void {
  fn.params.forEach((p, i) => {
    const want = fieldValueType(check.catalog, p.type);
    const given = args[i]!;
    if (isLiteral(exprs[i]!)) return fitLiteral(check, exprs[i]!, want);
    if (p.type.kind === "ref" && isRowOf(given, p.type.target)) {
      check.typing.rowIds.add(exprs[i]!);
      return;
    }
    if (!isAssignable(given, want))
      check.bag.report("WO5006", exprs[i]!.span, { name, expected: describeType(want), found: describeType(given) });
  });
}

/** `o.m(args)`: a method of `o`'s class, run on that row in this call's transaction. */
export function methodCall(check: BodyCheck, e: MethodCallExpr): ValueType {
  const { bag, catalog } = check;
  const objType = check.expr(e.object);
  const args = e.args.map((a) => check.expr(a));
  if (objType.k === "unknown") return unknownType;
  const isRef = objType.k === "int" && objType.name.startsWith("ref ");
  const type =
    objType.k === "row" && !objType.projection
      ? findType(catalog, objType.type)
      : isRef && objType.k === "int"
        ? findType(catalog, objType.name.slice(4))
        : undefined;
  if (!type || isNullable(objType)) {
    bag.report("WO5026", e.object.span, {
      what: `A method call '.${e.method.text}(…)'`,
      expected: "a row or a ref id (not null)",
      found: describeType(objType),
    });
    return unknownType;
  }
  const callee = type.methods.find((m) => m.name === e.method.text);
  const skippedReason = check.skipped.get(`${type.name}.${e.method.text}`);
  if (!callee && skippedReason !== undefined) {
    bag.report("WO5028", e.method.span, { name: `${type.name}.${e.method.text}`, reason: skippedReason });
    return unknownType;
  }
  if (!callee) {
    bag.report("WO5003", e.method.span, {
      type: type.name,
      field: `${e.method.text}()`,
      hint: didYouMean(
        e.method.text,
        type.methods.map((m) => m.name),
      ),
    });
    return unknownType;
  }
  const name = `${type.name}.${callee.name}`;
  if (args.length !== callee.params.length) {
    bag.report("WO5005", e.method.span, {
      name,
      expected: counted(callee.params.length, "argument"),
      found: `${args.length}`,
    });
  } else {
    fitArguments(check, callee, e.args, args, name);
  }
  check.typing.methodCalls.set(e, { type: type.name, table: type.table, isRef });
  return callee.returns ? returnValueType(catalog, callee.returns) : { k: "null" };
}
