// The list query string → the `_list` operation's input: `?field=value` equality filters
// coerced by the field's type, `limit`, `cursor`. An unknown field, a repeated key or a value
// that does not fit the field's type is a RestFailure (400); the operation validates the rest.

import type { CatalogField, CatalogType } from "../../compiler/catalog.js";
import type { RestFailure } from "./body.js";

const integerText = /^-?(?:0|[1-9][0-9]{0,15})$/;
const numberText = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

export type QueryResult = { ok: true; input: Record<string, unknown> } | { ok: false; failure: RestFailure };

export function listInput(type: CatalogType, filterable: CatalogField[], params: URLSearchParams): QueryResult {
  const input: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, raw] of params) {
    if (seen.has(key)) return fail(key, `'${key}' is given more than once; give each filter once.`, "appears more than once");
    seen.add(key);
    if (key === "cursor") {
      input.cursor = raw;
      continue;
    }
    if (key === "limit") {
      if (!integerText.test(raw)) return fail(key, `limit must be an integer from 1 to 1000, not '${clip(raw)}'.`, "must be an integer");
      input.limit = Number(raw);
      continue;
    }
    const field = filterable.find((f) => f.name === key);
    if (!field) {
      const names = ["limit", "cursor", ...filterable.map((f) => f.name)].join(", ");
      return fail(key, `'${clip(key)}' is not a filter of ${type.name}; use one of: ${names}.`, "is not a filter field");
    }
    const value = coerce(field, raw);
    if (value === undefined) return fail(key, `'${clip(raw)}' is not a valid ${describe(field)} for '${key}'.`, `must be ${describe(field)}`);
    input[key] = value;
  }
  return { ok: true, input };
}

/** Query text → the JSON value the field stores; undefined when it cannot be one. */
function coerce(field: CatalogField, raw: string): unknown {
  const t = field.type;
  if (t.kind === "ref" || (t.kind === "scalar" && (t.scalar === "Id" || t.scalar === "Int" || t.scalar === "Money"))) {
    return integerText.test(raw) ? Number(raw) : undefined;
  }
  if (t.kind === "scalar" && t.scalar === "Float") return numberText.test(raw) ? Number(raw) : undefined;
  if (t.kind === "scalar" && t.scalar === "Bool") return raw === "true" ? true : raw === "false" ? false : undefined;
  return raw;
}

function describe(field: CatalogField): string {
  const t = field.type;
  if (t.kind === "ref") return "an integer id";
  if (t.kind === "scalar" && (t.scalar === "Id" || t.scalar === "Int" || t.scalar === "Money")) return "an integer";
  if (t.kind === "scalar" && t.scalar === "Float") return "a number";
  if (t.kind === "scalar" && t.scalar === "Bool") return "true or false";
  return "a string";
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function fail(key: string, detail: string, message: string): QueryResult {
  return { ok: false, failure: { kind: "invalid_input", detail, errors: [{ path: `/${clip(key)}`, message }] } };
}
