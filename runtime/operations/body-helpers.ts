// The functions compiled method, fn and test bodies call besides the store (model/build-contract.ts
// `BodyHelpers`): wo's semantics that JavaScript does not have on its own — truthiness, integer
// division, reads through a `ref`, list indexing, union values, nested-call depth, the steps of
// the run budget (run-budget.ts) and the length of built text. A call that breaks a rule ends
// with an OperationError through `rt.abort`/`rt.invalid` (409/400), never a crash. Generated
// code takes them as `const { … } = rt.helpers;`, so they are written, typed and tested here
// once rather than printed as text into every build.

import type { BodyHelpers, OperationRuntime } from "../../model/build-contract.js";
import type { StoreTx } from "../../model/store.js";
import { checkedFloat } from "./int-arithmetic.js";
import { RunEndedError, type RunBudget } from "./run-budget.js";

/**
 * How deep calls of fns and methods may nest in one transaction: unbounded recursion ends the
 * call (409) instead of spinning forever on the event loop (each level only awaits the store,
 * never yields to I/O).
 */
export const maxCallDepth = 100;

/**
 * The longest text a body may build (UTF-16 code units): 16 Mi, sixteen times the largest
 * request body. V8 refuses strings past 2^29 with a RangeError, and long before that 64 calls
 * in flight each holding a few copies of one (the value, its JSON, the response) would exhaust
 * the process; past this a `+` ends the call instead.
 */
export const maxTextLength = 16 * 1024 * 1024;

export function createBodyHelpers(rt: Pick<OperationRuntime, "abort" | "invalid">): BodyHelpers {
  const text = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v ?? null));
  return {
    // o.f on a ref T id: the row it names, read in this transaction; an id that names no row ends the call.
    async deref<T>(
      tx: StoreTx,
      table: string,
      id: number | null,
      type: string,
      what: string,
      at: string,
    ): Promise<T | null> {
      if (id === null) return null;
      return (
        ((await tx.get(table, id)) as T | undefined) ??
        rt.abort(`${what} refers to ${type} ${id}, which does not exist (at ${at})`)
      );
    },
    // Int and Money division truncates toward zero; dividing by zero ends the call, it never crashes.
    intDiv: (a, b, at) => (b === 0 ? rt.abort(`division by zero at ${at}`) : Math.trunc(a / b)),
    intMod: (a, b, at) => (b === 0 ? rt.abort(`modulo by zero at ${at}`) : a % b),
    floatDiv: (a, b, at) => (b === 0 ? rt.abort(`division by zero at ${at}`) : checkedFloat(a / b, at)),
    // wo truthiness: only false and null are false (0, "" and [] are true).
    truthy: (v) => v !== false && v !== null && v !== undefined,
    // Sets are in ascending id order, so the latest row is the last one.
    latest: <T>(set: readonly T[], at: string): T =>
      set.length > 0 ? set[set.length - 1]! : rt.abort(`latest() of an empty set at ${at}`),
    // Arithmetic and ordering need a value: an optional field that is null ends the call.
    present: <T>(v: T | null | undefined, what: string, at: string): T =>
      v === null || v === undefined ? rt.abort(`${what} has no value at ${at}`) : v,
    sameJson: (a, b) => JSON.stringify(a) === JSON.stringify(b),
    text,
    concat(a, b, at) {
      const left = text(a);
      const right = text(b);
      if (left.length + right.length > maxTextLength)
        rt.abort(
          `text longer than ${maxTextLength.toLocaleString("en-US")} characters (the longest a body may build) at ${at}`,
        );
      return left + right;
    },
    // contains(set, x) compares values the way == does: structurally.
    contains: (set, v) => set.some((e) => JSON.stringify(e) === JSON.stringify(v)),
    // `.*` in an aggregate: one element after the other, so the store sees one read at a time.
    async each(list, f) {
      const out = [];
      for (const x of list ?? []) out.push(await f(x));
      return out;
    },
    // words(text): runs of non-whitespace (JavaScript's \s: Unicode white space and line ends).
    words: (t) => (t === null || t === undefined ? 0 : (t.match(/\S+/g)?.length ?? 0)),
    // a[i]: an index outside the list ends the call, like latest() of an empty set.
    item: <T>(list: readonly T[], i: number, at: string): T =>
      Number.isInteger(i) && i >= 0 && i < list.length
        ? list[i]!
        : rt.abort(`index ${i} is outside a list of ${list.length} at ${at}`),
    // A Text value stored in a union field must name one of its variants.
    variant: <T extends string>(v: string, variants: readonly T[], field: string, at: string): T =>
      (variants as readonly string[]).includes(v)
        ? (v as T)
        : rt.invalid(`'${v}' is not one of ${variants.join(", ")} (field '${field}' at ${at})`),
    async nested<T>(budget: RunBudget, at: string, run: () => Promise<T>): Promise<T> {
      if (--budget.left <= 0) await budget.check();
      if (budget.depth >= maxCallDepth) rt.abort(`calls nested more than ${maxCallDepth} deep at ${at}`);
      budget.depth++;
      try {
        return await run();
      } finally {
        budget.depth--;
      }
    },
    abortMessage(err) {
      if (err instanceof RunEndedError) throw err;
      return (err as Error).message;
    },
    withField,
  };
  // `set a.b = v` keeps the rest of struct `a`; through a null struct there is nothing to keep.
  function withField(value: unknown, path: readonly string[], v: unknown, what: string, at: string): unknown {
    if (path.length === 0) return v;
    if (value === null || value === undefined || typeof value !== "object")
      return rt.abort(`${what} has no value to set '${path[0]}' in at ${at}; set the whole struct`);
    const [step, ...rest] = path as [string, ...string[]];
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    copy[step] = withField(copy[step], rest, v, `${what}.${step}`, at);
    return copy;
  }
}
