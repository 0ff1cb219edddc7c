// Row expressions at run time (spec/language.md, "Checks", "Computed fields"): the compiled
// boolean `@check`s and computed fields (RowExprDefinition, from operations.js) on the store as
// every writer and reader sees it. Hooked on the transaction, the one place every read and write
// passes, so no surface bypasses them:
//   - every read (`get`, `list`) gives the computed fields, evaluated on the row in field order
//     (a computed field sees the ones declared before it); a `@materialized` one is read from
//     its column;
//   - every insert and update evaluates them on the row as it will be stored, keeps the
//     materialized ones in their columns, then holds the row to the boolean checks: one that
//     is false aborts the write (409, "aborted"; a CRUD operation answers it as 400, as the
//     input's own fault: table-operations.ts `asInputError`);
//   - a write of a row that a materialized aggregate reads (a backlinked row: created, changed,
//     moved to another parent, deleted) recomputes that aggregate on the parents it left and
//     joined, in the same transaction.
// A store whose build has none of these costs nothing: `define` with none leaves writes and
// reads going straight through.

import { unlessAddsStatements, withMembers, withWrites } from "./tx-wrapper.js";
import type { RowExprDefinition } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import type { Row, RowChange, Store, StoreTx } from "../../model/store.js";

/** A boolean check that a row breaks: an "aborted" error, with the field's pointer. */
export class RowCheckError extends OperationError {
  constructor(
    readonly table: string,
    readonly field: string,
    message: string,
    detail: string,
  ) {
    super("aborted", message, [{ path: `/${field}`, message: detail }]);
  }
}

/**
 * For a CRUD write of `table`: a boolean check its own row breaks is the input's fault, a 400
 * with the field's pointer like a schema error; anything else (a check of a row a trigger
 * writes) passes unchanged.
 */
export function asInputError(table: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof RowCheckError && err.table === table)
      throw new OperationError("invalid_input", err.message.replace("the write would", "the input would"), err.details);
    throw err;
  };
}

export interface RowExprStore {
  store: Store;
  define(exprs: readonly RowExprDefinition[]): void;
  /**
   * Once the store is migrated and the expressions defined, before serving: fills each
   * `@materialized` column whose stored value is not the expression's (a column the migration
   * just added holds null), and refuses (rejects, naming the rows) when stored rows break a
   * boolean check, so a build that adds one never serves over rows that break it.
   */
  settle(): Promise<void>;
  /**
   * A committed change as live streams send it: its row with the computed fields this runtime
   * evaluated when it wrote the row (kept for the last `recentRows` rows written), when the
   * stored fields are still the ones it wrote; otherwise the row as committed.
   */
  present(change: RowChange): RowChange;
}

/** How many written rows' computed values are kept for live events. */
const recentRows = 4096;

/** How many ids a refusal names. */
const shownIds = 10;

interface TableExprs {
  /** Computed fields in field order (materialized ones included). */
  computed: RowExprDefinition[];
  checks: RowExprDefinition[];
  /** Names of the computed fields: never written by a caller. */
  computedNames: Set<string>;
}

/** Wraps `store`; until `define` is called with at least one expression, it is `store` unchanged. */
export function withRowExprs(store: Store, typeOfTable: (table: string) => string): RowExprStore {
  const byTable = new Map<string, TableExprs>();
  /** Per table whose rows a materialized aggregate reads: the parent table and the ref column. */
  const dependents = new Map<string, { parent: string; column: string }[]>();
  const define = (exprs: readonly RowExprDefinition[]) => {
    for (const e of exprs) {
      const t = byTable.get(e.table) ?? { computed: [], checks: [], computedNames: new Set<string>() };
      byTable.set(e.table, t);
      if (e.kind === "check") t.checks.push(e);
      else {
        t.computed.push(e);
        t.computedNames.add(e.field);
      }
      for (const d of e.dependsOn ?? []) {
        const list = dependents.get(d.table) ?? [];
        if (!list.some((x) => x.parent === e.table && x.column === d.column))
          list.push({ parent: e.table, column: d.column });
        dependents.set(d.table, list);
      }
    }
  };

  /** `row` with its computed fields; `stored`: the materialized values to write. */
  const evaluate = async (tx: StoreTx, table: string, row: Row): Promise<{ row: Row; stored: Row }> => {
    const t = byTable.get(table);
    if (!t) return { row, stored: {} };
    let next = row;
    const stored: Row = {};
    for (const e of t.computed) {
      const value = await e.value(tx, next);
      next = { ...next, [e.field]: value ?? null };
      if (e.isMaterialized) stored[e.field] = value ?? null;
    }
    return { row: next, stored };
  };

  /** A read row with the computed fields that are not stored (materialized ones are). */
  const withComputed = async (tx: StoreTx, table: string, row: Row | undefined): Promise<Row | undefined> => {
    const t = byTable.get(table);
    if (!row || !t) return row;
    let next = row;
    for (const e of t.computed) {
      if (e.isMaterialized) continue;
      next = { ...next, [e.field]: (await e.value(tx, next)) ?? null };
    }
    return next;
  };

  const holdToChecks = async (tx: StoreTx, table: string, row: Row): Promise<void> => {
    for (const e of byTable.get(table)?.checks ?? []) {
      // An optional field left empty passes its check, as a comparison's does (model/field-check.ts).
      if (isEmpty(row[e.field]) || (await e.value(tx, row)) !== false) continue;
      const type = typeOfTable(table);
      throw new RowCheckError(
        table,
        e.field,
        `${type}.${e.field} must satisfy @check(${e.text}), and the write would break it; nothing was written.`,
        `must satisfy @check(${e.text})`,
      );
    }
  };

  // Expressions read through the same tx: rows they read give their computed fields too.
  const readTx = (tx: StoreTx): StoreTx => {
    const reads: StoreTx = withMembers(tx, {
      get: async (table, id, lock) => withComputed(reads, table, await tx.get(table, id, lock)),
      list: async (table, query) => {
        const rows = await tx.list(table, query);
        if (!byTable.get(table)?.computed.some((e) => !e.isMaterialized)) return rows;
        const out: Row[] = [];
        for (const row of rows) out.push((await withComputed(reads, table, row))!);
        return out;
      },
    });
    return reads;
  };

  const writeTx = (inner: StoreTx): StoreTx => {
    const reads = readTx(inner);
    const recomputeParents = async (table: string, before: Row | undefined, after: Row | undefined) => {
      for (const { parent, column } of dependents.get(table) ?? []) {
        const ids = new Set<number>();
        for (const r of [before, after]) if (typeof r?.[column] === "number") ids.add(r[column] as number);
        for (const id of ids) await tx.update(parent, id, {});
      }
    };
    const tx: StoreTx = withWrites(reads, {
      async insert(table, values) {
        const t = byTable.get(table);
        let made: Row;
        if (!t) made = await inner.insert(table, values);
        else {
          const given = withoutComputed(values, t);
          const { row, stored } = await evaluate(reads, table, { ...given, id: null });
          await holdToChecks(reads, table, row);
          made = (await withComputed(reads, table, await inner.insert(table, { ...given, ...stored })))!;
          remember(table, made);
        }
        await recomputeParents(table, undefined, made);
        return made;
      },
      async update(table, id, patch) {
        const t = byTable.get(table);
        const deps = dependents.has(table);
        if (!t && !deps) return inner.update(table, id, patch);
        const old = await inner.get(table, id, "update");
        if (!old) return undefined;
        let updated: Row | undefined;
        if (!t) updated = await inner.update(table, id, patch);
        else {
          const given = withoutComputed(patch, t);
          const { row, stored } = await evaluate(reads, table, { ...old, ...given, id });
          await holdToChecks(reads, table, row);
          const changed: Row = { ...given };
          for (const [k, v] of Object.entries(stored)) if (JSON.stringify(old[k]) !== JSON.stringify(v)) changed[k] = v;
          // Nothing to write (a parent whose aggregate did not move): the row as it is.
          const raw = Object.keys(changed).length > 0 ? await inner.update(table, id, changed) : old;
          updated = await withComputed(reads, table, raw);
          if (updated) remember(table, updated);
        }
        if (deps) await recomputeParents(table, old, updated);
        return updated;
      },
      async delete(table, id) {
        if (!dependents.has(table)) return inner.delete(table, id);
        const old = await inner.get(table, id, "update");
        const deleted = await inner.delete(table, id);
        if (deleted) await recomputeParents(table, old, undefined);
        return deleted;
      },
    });
    return tx;
  };

  const recent = new Map<string, Row>();
  const remember = (table: string, row: Row) => {
    if (!byTable.get(table)?.computed.some((e) => !e.isMaterialized)) return;
    const key = `${table}:${String(row.id)}`;
    recent.delete(key);
    recent.set(key, row);
    if (recent.size > recentRows) recent.delete(recent.keys().next().value!);
  };
  const present = (change: RowChange): RowChange => {
    const t = byTable.get(change.table);
    if (!t || change.row === null) return change;
    const row = recent.get(`${change.table}:${change.id}`);
    if (!row) return change;
    // The same stored values: the computed ones are those of this write.
    for (const [k, v] of Object.entries(change.row)) if (JSON.stringify(row[k]) !== JSON.stringify(v)) return change;
    return { ...change, row };
  };

  const settle = async (): Promise<void> => {
    if (byTable.size === 0) return;
    await store.write(async (raw) => {
      const reads = readTx(raw);
      const broken: string[] = [];
      for (const [table, t] of byTable) {
        if (t.checks.length === 0 && !t.computed.some((e) => e.isMaterialized)) continue;
        const failing = new Map<RowExprDefinition, number[]>();
        for (const stored of await raw.list(table)) {
          const id = stored.id as number;
          const { row, stored: values } = await evaluate(reads, table, stored);
          const changed: Row = {};
          for (const [k, v] of Object.entries(values))
            if (JSON.stringify(stored[k]) !== JSON.stringify(v)) changed[k] = v;
          if (Object.keys(changed).length > 0) await raw.update(table, id, changed);
          for (const e of t.checks)
            if (!isEmpty(row[e.field]) && (await e.value(reads, row)) === false)
              failing.set(e, [...(failing.get(e) ?? []), id]);
        }
        for (const [e, ids] of failing) {
          const shown =
            ids.slice(0, shownIds).join(", ") + (ids.length > shownIds ? `, and ${ids.length - shownIds} more` : "");
          broken.push(
            `${typeOfTable(table)}.${e.field} @check(${e.text}): ${ids.length === 1 ? "the row with id" : `${ids.length} rows, ids`} ${shown}`,
          );
        }
      }
      if (broken.length > 0)
        throw new OperationError(
          "conflict",
          `Stored rows break a check of this build, so it is not served: ${broken.join("; ")}. Change those rows (with the previous build) or the check first.`,
        );
    });
  };

  return {
    settle,
    present,
    store: {
      ...store,
      // A read whose rows carry computed fields may make more statements (an aggregate's
      // query), so it is no longer the one statement `oneStatement` promises.
      read: (fn, options) => (byTable.size === 0 ? store.read(fn, options) : store.read((tx) => fn(readTx(tx)))),
      write: (fn, options) =>
        byTable.size === 0
          ? store.write(fn, options)
          : store.write(
              (tx) => fn(writeTx(tx)),
              unlessAddsStatements(options, (table) => byTable.has(table) || dependents.has(table)),
            ),
    },
    define,
  };
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined;
}

/** `values` without computed fields: a row read and written back holds them, and they are never given. */
function withoutComputed(values: Row, t: TableExprs): Row {
  if (!Object.keys(values).some((k) => t.computedNames.has(k))) return values;
  const out: Row = {};
  for (const [k, v] of Object.entries(values)) if (!t.computedNames.has(k)) out[k] = v;
  return out;
}
