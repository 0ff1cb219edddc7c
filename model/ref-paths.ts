// Where a column's value holds ids of other rows. A `ref T` field is the simple case; a ref may
// also sit inside an array (`[ref T]`), an inline struct (`{ editor: ref T }`), an embedded
// type, or any nesting of those. Both sides of reference integrity read these paths: a write
// checks every id it stores (operations/runtime.ts), and a delete counts the rows that still
// hold the id anywhere (sqlite-tx.ts). Deriving them from the storage TypeDesc once keeps the
// two sides in agreement.

import type { TypeDesc } from "./type-desc.js";

/** A step into every element of an array. Field names are identifiers, so it never clashes. */
export const EACH = "[]";

/** Object keys to follow, or EACH for every element of an array. */
export type RefStep = string;

export interface RefPath {
  /** The table whose row ids are kept here. */
  table: string;
  /** The way from the column's value to the ids; empty when the value is the id itself. */
  steps: RefStep[];
}

/** Every place in a value of this type where a ref is kept, in declaration order. */
export function refPaths(type: TypeDesc): RefPath[] {
  switch (type.kind) {
    case "ref":
      return [{ table: type.table, steps: [] }];
    case "array":
      return refPaths(type.element).map((p) => ({ table: p.table, steps: [EACH, ...p.steps] }));
    case "struct":
      return type.fields.flatMap((f) => refPaths(f.type).map((p) => ({ table: p.table, steps: [f.name, ...p.steps] })));
    case "scalar":
    case "union":
    case "json":
      return [];
  }
}

/**
 * The ids found along `steps` in `value`, each with the JSON-pointer suffix that leads to it
 * ("/extra/0"). Missing parts (an optional struct left null, an absent key) hold no ids.
 */
export function idsAlong(value: unknown, steps: readonly RefStep[], pointer = ""): { pointer: string; id: unknown }[] {
  if (value === null || value === undefined) return [];
  if (steps.length === 0) return [{ pointer, id: value }];
  const [step, ...rest] = steps as [RefStep, ...RefStep[]];
  if (step === EACH) {
    if (!Array.isArray(value)) return [];
    return value.flatMap((element, i) => idsAlong(element, rest, `${pointer}/${i}`));
  }
  if (typeof value !== "object" || Array.isArray(value)) return [];
  return idsAlong((value as Record<string, unknown>)[step], rest, `${pointer}/${step}`);
}

/** How messages name a ref path: `author`, `tags`, `meta.editor`, `lines.product`. */
export function refPathLabel(column: string, steps: readonly RefStep[]): string {
  return [column, ...steps.filter((s) => s !== EACH)].join(".");
}
