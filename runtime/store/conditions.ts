// Row conditions: what a list query's `where` and a policy's `filter` (model/policy.ts
// RowCondition) mean, in one place. compileCondition turns them into SQL through a small
// dialect (SQLite, PostgreSQL); evaluateCondition tests a row in memory (live streams, write
// checks). The two agree, operator for operator (spec/storage.md, "Row conditions"), which the
// property test in test/store/conditions.test.ts holds them to:
//   - a value compares in its column's stored form (row-codec: booleans 0/1, Timestamps in
//     UTC); a text against an integer column (Id, a ref, Int) is the whole number it spells,
//     and one that spells none is no value of that column: it never equals (`!=` holds),
//     never orders;
//   - `== null` / `!= null`: has no value / has a value; `!=` a value also holds for a row
//     without one; an ordering comparison with no value on either side fails;
//   - a field compared with a field: `==` holds when both are equal or both have no value;
//   - text orders by code point; `contains` is Unicode lower case on both sides, `%` and `_`
//     literally;
//   - a path through refs (`["post", "published"]`) is the field of the row the ref names, and
//     no value when the ref is empty or names no row; in SQL a scalar subquery on the target's
//     primary key, in memory a lookup through the caller's resolver.

import type { ListQuery, Row, Store } from "../../model/store.js";
import { StoreQueryError } from "../../model/store.js";
import type { PolicyComparison, RowCondition, RowOperand } from "../../model/policy.js";
import { valueKind, type ColumnShape, type SearchShape } from "../../model/storage-shape.js";
import { pgSearchColumn, pgSearchConfig } from "./postgres/ddl.js";
import { isScalarName, scalars } from "../../model/scalars.js";
import { quoteId } from "./ddl.js";
import { queryColumn } from "./query-columns.js";
import { buildTableRegistry, type TableInfo, type TableRegistry } from "./tables.js";
import type { Catalog, CatalogType } from "../../model/app.js";
import { deriveShape } from "../../model/storage-shape.js";

/** A row condition, plus the two `where` comparisons a policy cannot write. */
export type Condition =
  | Exclude<RowCondition, { kind: "and" | "or" | "not" }>
  | { kind: "and" | "or"; items: Condition[] }
  | { kind: "not"; item: Condition }
  | { kind: "in"; path: string[]; values: unknown[] }
  | { kind: "contains"; path: string[]; needle: string }
  /** The row holds every word (the last also as a prefix): the table's full-text index, SQL only. */
  | { kind: "search"; words: string[] };

/** `where` and `filter` of a query as one condition (ANDed); undefined when there is neither. */
export function queryCondition(
  table: string,
  query: Pick<ListQuery, "where" | "filter" | "search">,
): Condition | undefined {
  const items: Condition[] = [];
  if (query.search !== undefined) {
    if (query.search.length === 0) throw new StoreQueryError(table, "query", "a search needs at least one word");
    items.push({ kind: "search", words: query.search });
  }
  for (const w of query.where ?? []) {
    const path = [w.column];
    if (w.op === "in") {
      if (!Array.isArray(w.value) || w.value.length === 0)
        throw new StoreQueryError(table, w.column, `'in' on '${w.column}' needs a non-empty array`);
      items.push({ kind: "in", path, values: w.value });
    } else if (w.op === "contains") {
      if (typeof w.value !== "string")
        throw new StoreQueryError(table, w.column, `'contains' on '${w.column}' needs a string`);
      items.push({ kind: "contains", path, needle: w.value });
    } else if (comparisons.has(w.op)) {
      items.push({
        kind: "compare",
        op: w.op,
        left: { kind: "field", path },
        right: { kind: "value", value: w.value },
      });
    } else {
      throw new StoreQueryError(table, w.column, `unknown comparison '${String(w.op)}'`);
    }
  }
  if (query.filter !== undefined) items.push(query.filter);
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0] : { kind: "and", items };
}

const comparisons = new Set<string>(["==", "!=", "<", "<=", ">", ">="]);

/** What differs between the SQL of the two stores. */
export interface SqlDialect {
  /** True when `a` and `b` are equal or both NULL. */
  same(a: string, b: string): string;
  /** Not `same`. */
  differs(a: string, b: string): string;
  /** True when the text of `column`, lower-cased, holds `needle` (a placeholder, already lower case). */
  contains(column: string, needle: string): string;
  /** True when the row of `t` matches the words (placeholder `query`, of searchQuery's text). */
  search(t: TableInfo, query: string): string;
  /** The words as the bound value of `search`: each quoted as a term, the last one a prefix. */
  searchQuery(words: readonly string[]): string;
}

export const sqliteDialect = (caseFold: string): SqlDialect => ({
  same: (a, b) => `${a} IS ${b}`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  contains: (column, needle) => `instr(${caseFold}(${column}), ${needle}) > 0`,
  search: (t, query) => {
    const fts = quoteId(searchShapeOf(t).sqlName);
    return `${t.quoted}."id" IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${query})`;
  },
  // FTS5 strings: a word in double quotes is a term whatever it spells (NEAR, AND, *), and the
  // words hold no quote (searchWords).
  searchQuery: (words) => words.map((w, i) => `"${w}"${i === words.length - 1 ? "*" : ""}`).join(" "),
});

export const postgresDialect = (foldCollation: string): SqlDialect => ({
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  differs: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  // The column as text (a number column too, as SQLite's instr reads it), lowered in Unicode.
  contains: (column, needle) => `strpos(lower(${column}::text COLLATE ${quoteId(foldCollation)}), ${needle}) > 0`,
  search: (t, query) => {
    searchShapeOf(t);
    return `${t.quoted}.${quoteId(pgSearchColumn)} @@ to_tsquery('${pgSearchConfig}', ${query})`;
  },
  // tsquery text: each word a quoted lexeme (no quote inside: searchWords), ANDed, the last a prefix.
  searchQuery: (words) => words.map((w, i) => `'${w}'${i === words.length - 1 ? ":*" : ""}`).join(" & "),
});

/** The table's full-text index; StoreQueryError when its type has no `@search` field. */
export function searchShapeOf(t: TableInfo): SearchShape {
  if (t.shape.search === undefined)
    throw new StoreQueryError(t.shape.table, "query", `${t.shape.typeName} has no @search field to search.`);
  return t.shape.search;
}

/** Words of a search text: letters and digits (with their marks); everything else separates them. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
}

/** Marks a value that is no value of its column (a text that spells no number, against a number column). */
const noValue = Symbol("no value of the column");
type Operand = unknown | typeof noValue;

/**
 * `value` in the stored form of `column`: null for absent, `noValue` when it cannot be one of
 * the column's values. Never throws: a session's text is not checked before it gets here.
 */
export function storedOperand(column: ColumnShape, value: unknown): Operand {
  if (value === undefined || value === null) return null;
  switch (valueKind(column.type)) {
    case "integer":
      if (typeof value === "number") return Number.isSafeInteger(value) ? value : noValue;
      if (typeof value === "string" && /^-?\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value)))
        return Number(value);
      return noValue;
    case "float":
      if (typeof value === "number") return Number.isFinite(value) ? value : noValue;
      if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
      return noValue;
    case "bool":
      return typeof value === "boolean" ? (value ? 1 : 0) : noValue;
    default: {
      if (typeof value !== "string") return typeof value === "number" ? String(value) : noValue;
      const canonical =
        column.type.kind === "scalar" && isScalarName(column.type.scalar)
          ? scalars[column.type.scalar].canonical
          : undefined;
      if (!canonical) return value;
      try {
        return canonical(value);
      } catch {
        return noValue;
      }
    }
  }
}

/** A field path resolved against the tables: the ref columns it goes through and the column it ends on. */
interface ResolvedPath {
  /** Each ref hop: the column holding the id and the table it points into. */
  hops: { column: ColumnShape; target: TableInfo }[];
  column: ColumnShape;
}

function resolvePath(t: TableInfo, tables: TableRegistry, path: readonly string[]): ResolvedPath {
  const hops: ResolvedPath["hops"] = [];
  let at = t;
  for (let i = 0; i < path.length - 1; i++) {
    const column = queryColumn(at, path[i]!);
    const target = column.type.kind === "ref" ? tables.get(column.type.table) : undefined;
    if (target === undefined)
      throw new StoreQueryError(t.shape.table, path.join("."), `'${path[i]}' of ${at.shape.typeName} is not a ref.`);
    hops.push({ column, target });
    at = target;
  }
  return { hops, column: queryColumn(at, path[path.length - 1]!) };
}

/** The comparison that holds exactly when `op` does not (two operands with values). */
const negation: Record<PolicyComparison, PolicyComparison> = {
  "==": "!=",
  "!=": "==",
  "<": ">=",
  "<=": ">",
  ">": "<=",
  ">=": "<",
};

const flipped: Record<PolicyComparison, PolicyComparison> = {
  "==": "==",
  "!=": "!=",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

/**
 * SQL for `condition` on rows of `t` (its columns qualified by the table's name), or
 * undefined when it holds for every row. `param` adds a bound value and returns its
 * placeholder, in the order the text reads.
 */
export function compileCondition(
  condition: Condition,
  t: TableInfo,
  tables: TableRegistry,
  dialect: SqlDialect,
  param: (value: unknown) => string,
): string | undefined {
  let aliases = 0;
  const fieldSql = (path: readonly string[]): { sql: string; column: ColumnShape } => {
    const { hops, column } = resolvePath(t, tables, path);
    let source = `${t.quoted}.${quoteId(hops[0]?.column.name ?? column.name)}`;
    for (let i = 0; i < hops.length; i++) {
      const alias = `wo_r${++aliases}`;
      const next = hops[i + 1]?.column.name ?? column.name;
      source = `(SELECT ${alias}.${quoteId(next)} FROM ${hops[i]!.target.quoted} AS ${alias} WHERE ${alias}."id" = ${source})`;
    }
    return { sql: source, column };
  };
  const never = "1 = 0";
  const always = "1 = 1";
  // NOT is pushed down to the comparisons (each knows its own negation, NULLs included), so
  // SQL's unknown never meets a NOT and every comparison stays one an index can serve.
  const compile = (c: Condition, negated: boolean): string => {
    switch (c.kind) {
      case "true":
      case "false":
        return (c.kind === "true") !== negated ? always : never;
      case "and":
      case "or": {
        const isAnd = (c.kind === "and") !== negated;
        if (c.items.length === 0) return isAnd ? always : never;
        return `(${c.items.map((item) => compile(item, negated)).join(isAnd ? " AND " : " OR ")})`;
      }
      case "not":
        return compile(c.item, !negated);
      case "truthy":
        return compileCompare(negated ? "!=" : "==", { kind: "field", path: c.path }, { kind: "value", value: true });
      case "in": {
        const f = fieldSql(c.path);
        const values = c.values.map((v) => storedOperand(f.column, v)).filter((v) => v !== noValue && v !== null);
        const hasNull = c.values.some((v) => v === null || v === undefined);
        const list = values.length > 0 ? `(${values.map((v) => param(v)).join(", ")})` : undefined;
        if (!negated) {
          const tests = [...(list ? [`${f.sql} IN ${list}`] : []), ...(hasNull ? [`${f.sql} IS NULL`] : [])];
          return tests.length === 0 ? never : tests.length === 1 ? tests[0]! : `(${tests.join(" OR ")})`;
        }
        if (hasNull) return list ? `(${f.sql} NOT IN ${list} AND ${f.sql} IS NOT NULL)` : `${f.sql} IS NOT NULL`;
        return list ? `(${f.sql} NOT IN ${list} OR ${f.sql} IS NULL)` : always;
      }
      case "contains": {
        const f = fieldSql(c.path);
        const test = dialect.contains(f.sql, param(c.needle.toLowerCase()));
        return negated ? `(${f.sql} IS NULL OR NOT (${test}))` : test;
      }
      case "search": {
        const test = dialect.search(t, param(dialect.searchQuery(c.words)));
        return negated ? `NOT (${test})` : test;
      }
      case "compare":
        return compileCompare(
          negated ? negation[c.op] : c.op,
          c.left,
          c.right,
          negated && c.op !== "==" && c.op !== "!=",
        );
    }
  };
  /** `orNull`: also true when an operand has no value (a negated ordering). */
  const compileCompare = (op: PolicyComparison, left: RowOperand, right: RowOperand, orNull = false): string => {
    if (left.kind === "value" && right.kind === "field") return compileCompare(flipped[op], right, left, orNull);
    if (left.kind === "value" && right.kind === "value") {
      const a = left.value ?? null;
      const b = right.value ?? null;
      return compareValues(op, a, b) || (orNull && (a === null || b === null)) ? always : never;
    }
    const a = fieldSql((left as { path: string[] }).path);
    if (right.kind === "field") {
      const b = fieldSql(right.path);
      if (op === "==") return dialect.same(a.sql, b.sql);
      if (op === "!=") return dialect.differs(a.sql, b.sql);
      const test = `${a.sql} ${op} ${b.sql}`;
      return orNull ? `(${test} OR ${a.sql} IS NULL OR ${b.sql} IS NULL)` : test;
    }
    const value = storedOperand(a.column, right.value);
    if (value === noValue) return op === "!=" || orNull ? always : never;
    if (value === null) {
      if (op === "==") return `${a.sql} IS NULL`;
      if (op === "!=") return `${a.sql} IS NOT NULL`;
      return orNull ? always : never;
    }
    if (op === "!=") return dialect.differs(a.sql, param(value));
    const test = `${a.sql} ${op === "==" ? "=" : op} ${param(value)}`;
    return orNull ? `(${test} OR ${a.sql} IS NULL)` : test;
  };
  const sql = compile(condition, false);
  return sql === always ? undefined : sql;
}

/** In memory: does `row` (of table `t`, as the API shows it) satisfy `condition`? */
export function evaluateCondition(
  condition: Condition,
  row: Row,
  t: TableInfo,
  tables: TableRegistry,
  /** The row `id` of `table`, for paths through refs; without it such a path has no value. */
  resolve?: (table: string, id: number) => Row | undefined,
): boolean {
  const field = (path: readonly string[]): { value: unknown; column: ColumnShape } => {
    const { hops, column } = resolvePath(t, tables, path);
    let at: Row | undefined = row;
    for (const hop of hops) {
      const id: unknown = at?.[hop.column.name];
      at = typeof id === "number" && resolve ? resolve(hop.target.shape.table, id) : undefined;
    }
    const raw = at?.[column.name];
    return { value: raw === undefined ? null : typeof raw === "boolean" ? (raw ? 1 : 0) : raw, column };
  };
  const test = (c: Condition): boolean => {
    switch (c.kind) {
      case "true":
        return true;
      case "false":
        return false;
      case "and":
        return c.items.every(test);
      case "or":
        return c.items.some(test);
      case "not":
        return !test(c.item);
      case "truthy": {
        const f = field(c.path);
        return f.value === storedOperand(f.column, true);
      }
      case "in": {
        const f = field(c.path);
        return c.values.some((v) => {
          const value = storedOperand(f.column, v);
          return value !== noValue && value === f.value;
        });
      }
      case "search":
        // Only list queries search, and they run in SQL; no row test (a stream, a policy) has one.
        throw new Error("a search condition is tested by the store's SQL only");
      case "contains": {
        const { value } = field(c.path);
        if (value === null || typeof value === "object") return false;
        return String(value).toLowerCase().includes(c.needle.toLowerCase());
      }
      case "compare":
        return testCompare(c.op, c.left, c.right);
    }
  };
  const testCompare = (op: PolicyComparison, left: RowOperand, right: RowOperand): boolean => {
    if (left.kind === "value" && right.kind === "field") return testCompare(flipped[op], right, left);
    if (left.kind === "value" && right.kind === "value")
      return compareValues(op, left.value ?? null, right.value ?? null);
    const a = field((left as { path: string[] }).path);
    const b = right.kind === "field" ? field(right.path).value : storedOperand(a.column, right.value);
    if (b === noValue) return op === "!=";
    return compareValues(op, a.value, b);
  };
  return test(condition);
}

/** Two stored-form values (null: no value) under `op`, as the SQL above compares them. */
function compareValues(op: PolicyComparison, a: unknown, b: unknown): boolean {
  if (op === "==") return a === b;
  if (op === "!=") return a !== b;
  if (a === null || b === null) return false;
  const c = order(a, b);
  return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
}

/** SQLite's order across storage classes: numbers (booleans are 0/1) before text. */
function order(a: unknown, b: unknown): number {
  const x = typeof a === "boolean" ? Number(a) : a;
  const y = typeof b === "boolean" ? Number(b) : b;
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "number") return -1;
  if (typeof y === "number") return 1;
  return compareCodePoints(String(x), String(y));
}

/** Code point order; JavaScript's `<` compares UTF-16 units, which differs above U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

const registries = new WeakMap<readonly CatalogType[], TableRegistry>();

/** The tables of `catalog` as conditions name them (built once per catalog). */
export function catalogTables(catalog: Pick<Catalog, "types">): TableRegistry {
  let tables = registries.get(catalog.types);
  if (tables === undefined)
    registries.set(catalog.types, (tables = buildTableRegistry(deriveShape(catalog as Catalog))));
  return tables;
}

/**
 * A predicate for rows of `table` (as the API shows them); undefined when `condition` holds for
 * every row. Throws StoreQueryError at once for a condition the store would refuse.
 */
export function rowMatcher(
  condition: Condition | undefined,
  table: string,
  tables: TableRegistry,
  resolve?: (table: string, id: number) => Row | undefined,
): ((row: Row) => boolean) | undefined {
  if (condition === undefined || condition.kind === "true") return undefined;
  const t = tables.get(table);
  if (t === undefined) throw new Error(`unknown table '${table}'`);
  // Resolve the paths once now, so a bad one fails here rather than on the first row.
  compileCondition(condition, t, tables, sqliteDialect("lower"), () => "?");
  return (row) => evaluateCondition(condition, row, t, tables, resolve);
}

/** True when the condition reads a field through a ref (in memory that needs a resolver). */
export function readsThroughRefs(condition: Condition): boolean {
  switch (condition.kind) {
    case "and":
    case "or":
      return condition.items.some(readsThroughRefs);
    case "not":
      return readsThroughRefs(condition.item);
    case "truthy":
    case "in":
    case "contains":
      return condition.path.length > 1;
    case "compare":
      return [condition.left, condition.right].some((o) => o.kind === "field" && o.path.length > 1);
    default:
      return false;
  }
}

/**
 * The rows `condition`'s paths through refs reach from `row`, read from `store` (one get per
 * hop, each row once): a resolver for evaluateCondition where rows are not all in memory.
 */
export async function refRows(
  store: Pick<Store, "read">,
  condition: Condition,
  table: string,
  tables: TableRegistry,
  row: Row,
): Promise<(table: string, id: number) => Row | undefined> {
  const t = tables.get(table);
  if (t === undefined) throw new Error(`unknown table '${table}'`);
  const found = new Map<string, Row | undefined>();
  const paths: string[][] = [];
  const collect = (c: Condition): void => {
    if (c.kind === "and" || c.kind === "or") c.items.forEach(collect);
    else if (c.kind === "not") collect(c.item);
    else if (c.kind === "truthy" || c.kind === "in" || c.kind === "contains") paths.push(c.path);
    else if (c.kind === "compare")
      for (const o of [c.left, c.right]) if (o.kind === "field" && o.path.length > 1) paths.push(o.path);
  };
  collect(condition);
  await store.read(async (tx) => {
    for (const path of paths) {
      let at: Row | undefined = row;
      let from = t;
      for (const name of path.slice(0, -1)) {
        const column = queryColumn(from, name);
        const target = column.type.kind === "ref" ? tables.get(column.type.table) : undefined;
        const id = at?.[name];
        if (target === undefined || typeof id !== "number") break;
        const key = `${target.shape.table}:${id}`;
        if (!found.has(key)) found.set(key, await tx.get(target.shape.table, id));
        at = found.get(key);
        from = target;
      }
    }
  });
  return (table, id) => found.get(`${table}:${id}`);
}

/**
 * Whether a row of `table` (as the API shows it) passes `condition`, reading from `store` only
 * the rows its paths through refs reach, and only when it has such paths: the one test the live
 * streams and the application events apply to a committed row. Throws StoreQueryError at once
 * for a condition the store would refuse.
 */
export function rowTest(
  store: Pick<Store, "read">,
  condition: Condition,
  table: string,
  tables: TableRegistry,
): (row: Row) => Promise<boolean> {
  const inMemory = rowMatcher(condition, table, tables);
  if (!readsThroughRefs(condition)) return async (row) => inMemory === undefined || inMemory(row);
  return async (row) => {
    const resolve = await refRows(store, condition, table, tables, row);
    return rowMatcher(condition, table, tables, resolve)?.(row) ?? true;
  };
}
