// The vocabulary of a `_list` query (spec/rest.md "List: filters, sorting and pagination"):
// which fields filter, which operators each field takes, which sorts exist. One rule for the
// runtime (REST query parsing, the list operation) and for the compiler (list schemas, tool
// descriptions, OpenAPI parameters), so what the docs offer is what the server accepts. It
// lives in the runtime because the runtime may not import compiler code.

import { searchedFields, type CatalogField, type CatalogType, type FieldType } from "./app.js";
import { scalars, type JsonValueType } from "./scalars.js";

/** Page size when the input names none, and the most a caller may ask for. */
export const listLimit = { default: 50, maximum: 1000 } as const;

/** Input property names of `_list` that are not equality filters (a field so named filters through `where`). */
export const listControlNames = ["limit", "cursor", "where", "sort", "count"] as const;

export const filterOperators = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "contains", "null"] as const;
export type FilterOperator = (typeof filterOperators)[number];

/**
 * A search's text (`query`, REST `q`) at most: a phrase a person or agent types, not a
 * document; and at most this many words of it, which each cost an index lookup.
 */
export const maxSearchText = 500;
export const maxSearchWords = 32;

/** The `_list` input property of a search, on a type with `@search` fields (REST: `q`). */
export const searchControlName = "query";

/** The most values one `in` takes: a list of ids an agent has at hand, not a table dump. */
export const maxInValues = 100;

/**
 * The key of the validator a build emits for the filters of `GET P/live` (a list's input
 * without paging, sorting or counting), so a stream checks them as a list does. A space is in
 * no tool name, so it never meets an operation's; error messages name it ("post live filters").
 */
export function liveFiltersValidator(snake: string): string {
  return `${snake} live filters`;
}

/** `id` and the top-level stored scalar, union and ref fields: what `where` and `sort` may name. */
export function listFilterFields(type: CatalogType): CatalogField[] {
  return type.fields.filter(
    (f) => f.isStored && (f.type.kind === "scalar" || f.type.kind === "union" || f.type.kind === "ref"),
  );
}

/** The filter fields that are also plain `field: value` equality arguments (not named like a control). */
export function listEqualityFields(type: CatalogType): CatalogField[] {
  const searched = searchedFields(type).length > 0;
  return listFilterFields(type).filter(
    (f) => !(listControlNames as readonly string[]).includes(f.name) && !(searched && f.name === searchControlName),
  );
}

/** The operators a filter field accepts, in `filterOperators` order. */
export function fieldOperators(field: CatalogField): FilterOperator[] {
  const ops: FilterOperator[] = ["eq", "ne"];
  if (isOrdered(field.type)) ops.push("lt", "lte", "gt", "gte");
  ops.push("in");
  if (field.type.kind === "scalar" && scalars[field.type.scalar].isSearchable) ops.push("contains");
  if (field.isOptional) ops.push("null");
  return ops;
}

function isOrdered(t: FieldType): boolean {
  return t.kind === "scalar" && scalars[t.scalar].isOrdered;
}

/** How a filter field's values are written in JSON: a ref is an id, a union variant a string. */
export function filterValueType(field: CatalogField): JsonValueType {
  const t = field.type;
  if (t.kind === "ref") return "integer";
  return t.kind === "scalar" ? scalars[t.scalar].schema.type : "string";
}

/** Every accepted `sort` value: `field` ascending, `-field` descending, `id` first. */
export function sortValues(type: CatalogType): string[] {
  return listFilterFields(type).flatMap((f) => [f.name, `-${f.name}`]);
}

export interface ListSort {
  field: string;
  descending: boolean;
}

/** `"-amount"` → amount descending; the caller has checked the value is one of sortValues. */
export function parseSort(value: string): ListSort {
  return value.startsWith("-") ? { field: value.slice(1), descending: true } : { field: value, descending: false };
}

/** A type's list vocabulary, computed once per type: what its filters and sorts may name. */
export interface ListVocabulary {
  type: CatalogType;
  /** Every filter field by name, with the operators it takes. */
  filters: Map<string, { field: CatalogField; operators: Set<FilterOperator> }>;
  /** The plain `field: value` equality arguments. */
  equalities: CatalogField[];
  /** The type has `@search` fields: its list takes `query` (REST `q`). */
  isSearched: boolean;
}

export function listVocabulary(type: CatalogType): ListVocabulary {
  return {
    type,
    filters: new Map(listFilterFields(type).map((f) => [f.name, { field: f, operators: new Set(fieldOperators(f)) }])),
    equalities: listEqualityFields(type),
    isSearched: searchedFields(type).length > 0,
  };
}
