// Checks on operation inputs that JSON Schema cannot express, run by `rt.validate` around the
// ajv validator (spec/security.md, "Input values"): a cheap refusal of inputs with more unknown
// fields than an error may list (before ajv, which would report each of them), text no store
// keeps as sent (a lone UTF-16 surrogate, JSON's `"\ud800"` escape, which SQLite would store as
// U+FFFD; U+0000, which PostgreSQL's `text` and `jsonb` cannot hold at all), and the
// wording for fields a caller may not set (`@readonly`, `@immutable` on update) and for list
// operators a field does not take.

// Type-only: the model arrives as app.json; nothing from compiler/ is loaded at run time.
import type { Catalog, CatalogType } from "../../model/app.js";
import type { OperationEntry } from "../../model/build-contract.js";
import { fieldOperators, filterOperators, listFilterFields } from "../../model/list-filters.js";
import { typesByName } from "../../model/type-index.js";

/** Per operation, the top-level property names its input schema accepts (the table's `inputNames`). */
export function acceptedNames(operations: readonly OperationEntry[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { name, inputNames } of operations) out.set(name, new Set(inputNames));
  return out;
}

/** The keys of a plain-object input that its schema does not accept (all of them, in order). */
export function unknownKeys(input: unknown, accepted: Set<string>): string[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  const out: string[] = [];
  for (const key in input) if (Object.hasOwn(input, key) && !accepted.has(key)) out.push(key);
  return out;
}

/** A string in an input that no store would keep as it was sent, by JSON pointer. */
export interface UnstorableText {
  path: string;
  message: string;
}

/**
 * Every string in `value` (object keys included) that holds a lone surrogate or U+0000, with
 * why. Both stores refuse alike, so an app moved from SQLite to PostgreSQL accepts the same
 * inputs. Iterative: the input's nesting depth is bounded only by the body size.
 */
export function unstorableTexts(value: unknown): UnstorableText[] {
  const found: UnstorableText[] = [];
  const check = (text: string, path: string) => {
    const message = unstorableReason(text);
    if (message !== undefined) found.push({ path, message });
    return message === undefined;
  };
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === "string") {
      check(v, pointer);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${pointer}/${i}`]);
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const child = (v as Record<string, unknown>)[key];
        // Most keys are well formed and hold a number or boolean (a GET's `{ id }`): their pointer
        // is built only when a finding or a nested text may need it.
        const leaf = typeof child !== "string" && (child === null || typeof child !== "object");
        if (leaf && unstorableReason(key) === undefined) continue;
        const at = `${pointer}/${escapePointer(key)}`;
        if (check(key, at)) stack.push([child, at]);
      }
    }
  }
  return found;
}

export const loneSurrogateMessage =
  "contains a lone UTF-16 surrogate (an unpaired \\ud800–\\udfff escape); send well-formed Unicode text";
export const nulCharacterMessage =
  "contains U+0000 (a NUL character, \\u0000), which text values cannot hold; remove it";

function unstorableReason(text: string): string | undefined {
  if (!isWellFormed(text)) return loneSurrogateMessage;
  if (text.includes("\u0000")) return nulCharacterMessage;
  return undefined;
}

/**
 * Per operation, the input properties it leaves out on purpose, by JSON pointer, with why: the
 * generic "is not an accepted field" would tell a caller nothing about how to change them.
 * Create and update: `@readonly` and `@immutable` fields. List: each `where` operator a
 * field's type does not take (`/where/size/lt`), answered with the ones it does take. Worded
 * for an operation when one of its inputs first fails (then kept): an app's list operators
 * alone are tens of thousands of messages, and most are never needed.
 */
export function refusedFieldMessages(
  catalog: Catalog,
  operations: readonly OperationEntry[],
): (operation: string) => ReadonlyMap<string, string> | undefined {
  const entries = new Map(operations.map((e) => [e.name, e]));
  const worded = new Map<string, ReadonlyMap<string, string> | undefined>();
  return (operation) => {
    if (worded.has(operation)) return worded.get(operation);
    const e = entries.get(operation);
    const type = e && typesByName(catalog).get(e.type);
    const refused =
      type && (e.kind === "create" || e.kind === "update" || e.kind === "list") ? refusedOf(type, e.kind) : undefined;
    const out = refused && refused.size > 0 ? refused : undefined;
    worded.set(operation, out);
    return out;
  };
}

function refusedOf(t: CatalogType, kind: "create" | "update" | "list"): Map<string, string> {
  const out = new Map<string, string>();
  if (kind === "list") {
    for (const f of listFilterFields(t)) {
      const takes = fieldOperators(f);
      for (const op of filterOperators) {
        if (!takes.includes(op))
          out.set(`/where/${f.name}/${op}`, `is not an operator of ${f.name}; it takes ${takes.join(", ")}`);
      }
    }
    return out;
  }
  for (const f of t.fields) {
    if (f.default?.kind === "computed") {
      out.set(`/${f.name}`, `is read-only: it is computed (${f.default.text}) and never written`);
    } else if (f.isReadonly) {
      out.set(`/${f.name}`, `is read-only: only the app sets it (its default, then ${t.name}'s methods)`);
    } else if (f.isImmutable && kind === "update") {
      out.set(`/${f.name}`, `is immutable: it is set when the ${t.name} is created and never changes`);
    }
  }
  return out;
}

/** String.prototype.isWellFormed (Node 20; the ES2024 lib is newer than this project's). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
