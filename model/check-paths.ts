// `@check(op value)` on a field inside a struct or a list's items (spec/language.md, "Checks"):
// where in a top-level field's stored value each such check applies, and the first value there
// that breaks it. The operation runtime refuses writes with it, the JSON Schema errors are worded
// through it, and a migration adding such a check probes the stored rows with it, so the three
// agree on which values are held to which check.

import type { FieldType } from "./app.js";
import { checkHolds, type FieldCheck } from "./field-check.js";

/** A check inside a field's value: `path` leads to it from the field, `*` standing for every item of a list. */
export interface CheckAt {
  path: readonly string[];
  check: FieldCheck;
}

/** Every check on the fields inside a value of type `type` (structs and list items, at any depth). */
export function checksWithin(type: FieldType): CheckAt[] {
  switch (type.kind) {
    case "struct":
      return type.fields.flatMap((f) => [
        ...(f.check ? [{ path: [f.name], check: f.check }] : []),
        ...checksWithin(f.type).map((c) => ({ path: [f.name, ...c.path], check: c.check })),
      ]);
    case "array":
      return checksWithin(type.element).map((c) => ({ path: ["*", ...c.path], check: c.check }));
    default:
      return [];
  }
}

/**
 * Where in `value` the first value at `path` breaks `check`: its JSON pointer below `value`
 * ("/on_hand", "/0/qty"), or undefined when every one passes. A null or absent struct or list
 * on the way holds nothing to check.
 */
export function firstBreak(value: unknown, path: readonly string[], check: FieldCheck): string | undefined {
  if (path.length === 0) return checkHolds(check, value) ? undefined : "";
  if (value === null || typeof value !== "object") return undefined;
  const [step, ...rest] = path as [string, ...string[]];
  if (step === "*") {
    if (!Array.isArray(value)) return undefined;
    for (let i = 0; i < value.length; i++) {
      const at = firstBreak(value[i], rest, check);
      if (at !== undefined) return `/${i}${at}`;
    }
    return undefined;
  }
  if (Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
  const at = firstBreak((value as Record<string, unknown>)[step], rest, check);
  return at === undefined ? undefined : `/${step}${at}`;
}

/** The value a JSON pointer names in `value` (undefined when there is none). */
export function valueAt(value: unknown, pointer: string): unknown {
  let at = value;
  for (const step of pointer.split("/").slice(1)) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** "/line_items/0/qty" as a reader writes it: "line_items[0].qty". */
export function pointerText(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((step, i) => (/^\d+$/.test(step) ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join("");
}

/** An instance pointer of an input ("/line_items/0/qty") as the pattern its check is kept under: each index "*". */
export function pointerPattern(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, "/*");
}
