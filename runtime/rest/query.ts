// The list query string → the `_list` operation's input (spec/rest.md "List: filters, sorting
// and pagination"): `field=value` equality, `field[op]=value` operators gathered into
// `where: { field: { op: value } }`, `sort`, `count`, `limit`, `cursor`. The text is coerced by
// the field's type here. An unknown key, a repeated key, an operator the field does not take or
// text that cannot be the field's value is a RestFailure (400); the operation validates the rest
// (ranges, formats, union variants, sort names) with the same schema MCP calls pass.

import type { CatalogField } from "../../model/app.js";
import type { JsonValueType } from "../../model/scalars.js";
import { filterValueType, type FilterOperator, type ListVocabulary } from "../../model/list-filters.js";
import type { RestFailure } from "./body.js";

const integerText = /^-?(?:0|[1-9][0-9]{0,15})$/;
const numberText = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
/** `amount[gte]`: a field name and an operator in brackets. */
const operatorKey = /^([^[\]]+)\[([^[\]]*)\]$/;

export type QueryResult = { ok: true; input: Record<string, unknown> } | { ok: false; failure: RestFailure };

export function listInput(vocab: ListVocabulary, params: URLSearchParams): QueryResult {
  const input: Record<string, unknown> = {};
  const where: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  for (const [key, raw] of params) {
    if (seen.has(key))
      return fail(
        `/${key}`,
        `'${clip(key)}' is given more than once; give each parameter once.`,
        "appears more than once",
      );
    seen.add(key);
    switch (key) {
      case "q":
        // The search (spec/rest.md, "Search"): the operation's `query`; on a type without
        // @search it is no parameter (and a field named `q` filters as `q` below).
        if (vocab.isSearched) {
          input.query = raw;
          continue;
        }
        break;
      case "cursor":
      case "sort":
        // Checked by the operation: the sort against the type's sorts, the cursor against the sort.
        input[key] = raw;
        continue;
      case "limit":
        if (!integerText.test(raw))
          return fail("/limit", `limit must be an integer from 1 to 1000, not '${clip(raw)}'.`, "must be an integer");
        input.limit = Number(raw);
        continue;
      case "count":
        if (raw !== "true" && raw !== "false")
          return fail("/count", `count must be true or false, not '${clip(raw)}'.`, "must be true or false");
        input.count = raw === "true";
        continue;
    }
    const op = operatorKey.exec(key);
    if (op) {
      const [, name, operator] = op as unknown as [string, string, string];
      const path = `/where/${name}/${operator}`;
      const filter = vocab.filters.get(name);
      if (!filter)
        return fail(
          `/where/${name}`,
          `'${clip(name)}' is not a field ${vocab.type.name} can be filtered by; use one of: ${[...vocab.filters.keys()].join(", ")}.`,
          "is not a filter field",
        );
      if (!filter.operators.has(operator as FilterOperator)) {
        return fail(
          path,
          `'${clip(operator)}' does not apply to ${name} in '${clip(key)}'; ${name} takes ${[...filter.operators].join(", ")}.`,
          "is not an operator of this field",
        );
      }
      const value = operand(filter.field, operator as FilterOperator, raw);
      if (!value.ok)
        return fail(path, `'${clip(key)}' must be ${value.expected}, not '${clip(raw)}'.`, `must be ${value.expected}`);
      (where[name] ??= {})[operator] = value.value;
      continue;
    }
    const field = vocab.equalities.find((f) => f.name === key && !(vocab.isSearched && key === "q"));
    if (!field) {
      const names = [
        ...(vocab.isSearched ? ["q"] : []),
        "limit",
        "cursor",
        "sort",
        "count",
        ...vocab.equalities.map((f) => f.name),
      ].join(", ");
      return fail(
        `/${key}`,
        `'${clip(key)}' is not a parameter of ${vocab.type.name} lists; use one of: ${names}, or field[operator].`,
        "is not a filter field",
      );
    }
    const value = coerce(field, raw);
    if (value === undefined)
      return fail(`/${key}`, `'${key}' must be ${describe(field)}, not '${clip(raw)}'.`, `must be ${describe(field)}`);
    input[key] = value;
  }
  if (Object.keys(where).length > 0) input.where = where;
  return { ok: true, input };
}

type Operand = { ok: true; value: unknown } | { ok: false; expected: string };

/** The value of `field[operator]=raw` as the operation's `where` takes it. */
function operand(field: CatalogField, operator: FilterOperator, raw: string): Operand {
  switch (operator) {
    case "null":
      return raw === "true" || raw === "false"
        ? { ok: true, value: raw === "true" }
        : { ok: false, expected: "true or false" };
    case "contains":
      return { ok: true, value: raw };
    case "in": {
      const values = splitList(raw).map((item) => coerce(field, item));
      if (values.some((v) => v === undefined))
        return { ok: false, expected: `a comma-separated list of ${plural(describe(field))}` };
      return { ok: true, value: values };
    }
    default: {
      const value = coerce(field, raw);
      return value === undefined ? { ok: false, expected: describe(field) } : { ok: true, value };
    }
  }
}

/** `a,b\,c` → ["a", "b,c"]: commas separate, a backslash takes the next character as it is. */
function splitList(raw: string): string[] {
  const items: string[] = [];
  let item = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\" && i + 1 < raw.length) item += raw[++i];
    else if (c === ",") {
      items.push(item);
      item = "";
    } else item += c;
  }
  items.push(item);
  return items;
}

/** Query text → the JSON value the field stores; undefined when it cannot be one. */
function coerce(field: CatalogField, raw: string): unknown {
  switch (filterValueType(field)) {
    case "integer":
      return integerText.test(raw) ? Number(raw) : undefined;
    case "number":
      return numberText.test(raw) ? Number(raw) : undefined;
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : undefined;
    case "string":
      return raw;
  }
}

/** What a field's value is, with its article: "an integer", "true or false". */
function describe(field: CatalogField): string {
  if (field.type.kind === "ref") return "an integer id";
  return valueWords[filterValueType(field)];
}

const valueWords: Record<JsonValueType, string> = {
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  string: "a string",
};

/** "an integer" → "integers", "true or false" → "true or false values". */
function plural(description: string): string {
  return description === "true or false" ? "true or false values" : `${description.replace(/^an? /, "")}s`;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function fail(path: string, detail: string, message: string): QueryResult {
  return { ok: false, failure: { kind: "invalid_input", detail, errors: [{ path: clip(path), message }] } };
}
