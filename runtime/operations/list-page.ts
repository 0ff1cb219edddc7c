// The `_list` operation once its input has passed the schema (spec/rest.md "List: filters,
// sorting and pagination"): equality arguments and `where` operators become store conditions,
// `sort` and `cursor` a keyset position, `count` a total over the same read. REST and MCP both
// arrive here with the same input object, so both page, sort and refuse alike.

import type { Catalog, CatalogField } from "../../model/app.js";
import { scalars } from "../../model/scalars.js";
import { OperationError } from "../../model/errors.js";
import {
  filterValueType,
  listLimit,
  listVocabulary,
  maxSearchText,
  maxSearchWords,
  parseSort,
  type FilterOperator,
  type ListVocabulary,
} from "../../model/list-filters.js";
import type { RowCondition } from "../../model/policy.js";
import { searchRank, type Comparison, type ListQuery, type Row, type Store } from "../../model/store.js";
import { searchWords } from "../store/conditions.js";

export interface ListPage {
  items: Row[];
  nextCursor?: string;
  total?: number;
}

const comparisonOf: Record<Exclude<FilterOperator, "null">, Comparison> = {
  eq: "==",
  ne: "!=",
  lt: "<",
  lte: "<=",
  gt: ">",
  gte: ">=",
  in: "in",
  contains: "contains",
};

/** Ordering operators: a Timestamp operand is compared as the stored UTC text. */
const ordering = new Set<FilterOperator>(["lt", "lte", "gt", "gte"]);

export function createListPager(
  catalog: Catalog,
  store: Store,
): (table: string, input: Row, filter?: RowCondition) => Promise<ListPage> {
  const byTable = new Map(catalog.types.map((type) => [type.table, listVocabulary(type)]));

  return async (table, input, filter) => {
    const vocab = byTable.get(table);
    if (!vocab) throw new OperationError("internal", `No type is stored in table '${table}'.`);
    const limit = pageLimit(input.limit);
    const search = searchOf(vocab, input.query);
    const byRank = search !== undefined && (input.sort === undefined || input.sort === null);
    const sortText = byRank ? relevance : input.sort === undefined || input.sort === null ? "id" : String(input.sort);
    const sort = parseSort(byRank ? "id" : sortText);
    const sortField = vocab.filters.get(sort.field)?.field;
    if (!sortField)
      invalid(
        `'${sortText}' is not a sort of ${vocab.type.name}.`,
        "/sort",
        "must be a field name, or - and a field name for descending order",
      );
    const where = listConditions(vocab, input);
    const query: ListQuery = { where, limit: limit + 1 };
    // The caller's read policy is part of the SQL: pages, cursors and the count see only its rows.
    if (filter) query.filter = filter;
    // With a search, an explicit sort wins over relevance (spec/rest.md, "Search").
    if (search !== undefined) query.search = search;
    if (!byRank && (sort.field !== "id" || sort.descending || search !== undefined))
      query.sort = { column: sort.field, descending: sort.descending };
    const after = decodeCursor(input.cursor, sortText, sortField);
    if (after) query.after = after;
    const wantsTotal = input.count === true;
    const counted: ListQuery = { where };
    if (filter) counted.filter = filter;
    if (search !== undefined) counted.search = search;
    const { rows, total } = await store.read(async (tx) => ({
      rows: await tx.list(table, query),
      total: wantsTotal ? await tx.count(table, counted) : undefined,
    }));
    // One row more than the page tells whether another page follows.
    const items = rows.slice(0, limit);
    const page: ListPage = { items };
    if (rows.length > limit) page.nextCursor = encodeCursor(sortText, sort.field, items[items.length - 1]!);
    if (total !== undefined) page.total = total;
    return page;
  };
}

function pageLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return listLimit.default;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > listLimit.maximum) {
    invalid("The limit is out of range.", "/limit", `must be an integer from 1 to ${listLimit.maximum}`);
  }
  return limit;
}

/**
 * Equality arguments, then each `where` operator; all ANDed. Also what a REST live stream
 * filters changes by (rest/live.ts), so a stream and a list read one query the same way.
 */
export function listConditions(vocab: ListVocabulary, input: Row): NonNullable<ListQuery["where"]> {
  const where: NonNullable<ListQuery["where"]> = [];
  for (const { name } of vocab.equalities) {
    if (input[name] !== undefined) where.push({ column: name, op: "==", value: input[name] });
  }
  const given = input.where;
  if (given === undefined || given === null) return where;
  for (const [name, ops] of Object.entries(given as Record<string, Record<string, unknown>>)) {
    const filter = vocab.filters.get(name);
    if (!filter)
      invalid(
        `'${name}' is not a field ${vocab.type.name} can be filtered by.`,
        `/where/${name}`,
        "is not a filter field",
      );
    for (const [op, value] of Object.entries(ops)) {
      if (!filter.operators.has(op as FilterOperator)) {
        invalid(
          `'${op}' does not apply to ${name}; it takes ${[...filter.operators].join(", ")}.`,
          `/where/${name}/${op}`,
          "is not an operator of this field",
        );
      }
      if (op === "null") where.push({ column: name, op: value === true ? "==" : "!=", value: null });
      else if (ordering.has(op as FilterOperator))
        where.push({ column: name, op: comparisonOf[op as "lt"], value: canonical(filter.field, value) });
      else where.push({ column: name, op: comparisonOf[op as Exclude<FilterOperator, "null">], value });
    }
  }
  return where;
}

/** A bound in the field's stored form (a Timestamp in UTC), so it compares as stored values do. */
function canonical(field: CatalogField, value: unknown): unknown {
  const normalise = field.type.kind === "scalar" ? scalars[field.type.scalar].canonical : undefined;
  return normalise ? normalise(value) : value;
}

// A cursor is the position of the page's last row, base64url-encoded: under the default order
// (ascending id) just its id, as before sorting existed; under any other sort the sort itself,
// the row's value of the sort field and its id, as JSON. A cursor is accepted only under the
// sort that issued it: its position means nothing in another order.

/** The cursor's order of a search without a sort: no sort value can spell it (not a field name). */
const relevance = "(relevance)";

/**
 * The words of a search (`query`, REST `q`): text of at most maxSearchText characters, of
 * which the letters and digits count (model/list-filters.ts); or a 400 saying what is wrong.
 */
function searchOf(vocab: ListVocabulary, query: unknown): string[] | undefined {
  if (query === undefined || query === null) return undefined;
  if (!vocab.isSearched)
    invalid(`${vocab.type.name} has no @search field, so its list takes no search.`, "/query", "is not a parameter");
  if (typeof query !== "string") invalid("The search must be text.", "/query", "must be a string");
  if (query.length > maxSearchText)
    invalid(
      `The search is ${query.length} characters long; at most ${maxSearchText} are taken.`,
      "/query",
      `must be at most ${maxSearchText} characters`,
    );
  const words = searchWords(query);
  if (words.length === 0)
    invalid(
      query.trim() === "" ? "The search is empty." : `The search '${query}' has no word to look for.`,
      "/query",
      "must hold at least one word (letters or digits)",
    );
  if (words.length > maxSearchWords)
    invalid(
      `The search has ${words.length} words; at most ${maxSearchWords} are taken.`,
      "/query",
      `must hold at most ${maxSearchWords} words`,
    );
  return words;
}

function encodeCursor(sortText: string, sortField: string, last: Row): string {
  if (sortText === relevance)
    return Buffer.from(JSON.stringify([relevance, last[searchRank as unknown as string], last.id]), "utf8").toString(
      "base64url",
    );
  const text =
    sortText === "id"
      ? String(last.id)
      : JSON.stringify([sortText, sortField === "id" ? null : (last[sortField] ?? null), last.id]);
  return Buffer.from(text, "utf8").toString("base64url");
}

function decodeCursor(cursor: unknown, sortText: string, sortField: CatalogField): ListQuery["after"] {
  if (cursor === undefined || cursor === null) return undefined;
  const text =
    typeof cursor === "string" && /^[A-Za-z0-9_-]+$/.test(cursor)
      ? Buffer.from(cursor, "base64url").toString("utf8")
      : "";
  let issuedUnder: string;
  let after: NonNullable<ListQuery["after"]>;
  if (/^[1-9][0-9]{0,15}$/.test(text)) {
    issuedUnder = "id";
    after = { id: Number(text) };
  } else {
    const parsed = parseJson(text);
    if (
      !Array.isArray(parsed) ||
      parsed.length !== 3 ||
      typeof parsed[0] !== "string" ||
      !Number.isSafeInteger(parsed[2]) ||
      parsed[2] < 1
    )
      return foreignCursor();
    issuedUnder = parsed[0];
    after = issuedUnder === relevance ? { id: parsed[2], rank: parsed[1] } : { id: parsed[2], value: parsed[1] };
  }
  if (issuedUnder !== sortText) {
    invalid(
      `The cursor belongs to a listing sorted by '${issuedUnder}', not '${sortText}'.`,
      "/cursor",
      `pass the same sort as the page that gave this cursor, or omit the cursor to start over sorted by '${sortText}'`,
    );
  }
  if (sortText === relevance)
    return typeof after.rank === "number" && Number.isFinite(after.rank) ? after : foreignCursor();
  if (sortField.name !== "id" && !fitsField(after.value, sortField)) return foreignCursor();
  return after;
}

/** Whether a cursor's sort value is one the field can hold (JSON as rows show it). */
function fitsField(value: unknown, field: CatalogField): boolean {
  if (value === null) return field.isOptional;
  switch (filterValueType(field)) {
    case "integer":
      return Number.isSafeInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
  }
}

function foreignCursor(): never {
  invalid(
    "The cursor is not one this server issued.",
    "/cursor",
    "pass the nextCursor of the previous page unchanged, or omit it to start from the first row",
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function invalid(message: string, path: string, detail: string): never {
  throw new OperationError("invalid_input", message, [{ path, message: detail }]);
}
