// `as session { … }` in tests (spec/policies.md, "In tests"): each insert, update and delete
// statement of the block is held to the policies of its table by the same row checks as that
// write through REST or MCP (policy.ts, createRowGuard): insert — the new row must satisfy a
// `write` line; update — the old row readable and writable, the new one still writable;
// delete — the old row readable and deletable. A refusal throws the operation's error
// (`expect_abort` catches it). Its reads (select, a relation, count, a ref followed) see only
// the rows a `read` line grants the caller, through the store filter every read path hands
// down (read-policy.ts). Outside such a block a body runs with its operation's authority and
// nothing here runs.

import type { AppContract } from "../../model/build-contract.js";
import type { RowCondition } from "../../model/policy.js";
import type { ListQuery, Store, StoreTx } from "../../model/store.js";
import { createRowGuard, type RowGuard } from "./policy.js";
import { readableRow, readFilter } from "./read-policy.js";
import { hasPolicies } from "./row-policy.js";
import { statementPrincipal } from "./session.js";
import { unlessAddsStatements, withMembers, withWrites } from "./tx-wrapper.js";

type StatementKind = "create" | "update" | "delete";

export function withStatementPolicies(store: Store, catalog: AppContract): Store {
  const bypass = catalog.bypassPolicies ?? [];
  const guards = new Map<string, Record<StatementKind, RowGuard>>();
  const types = new Map<string, AppContract["types"][number]>();
  for (const type of catalog.types.filter(hasPolicies)) {
    const guard = (kind: StatementKind) => createRowGuard(type, { kind, op: kind }, bypass);
    guards.set(type.table, { create: guard("create"), update: guard("update"), delete: guard("delete") });
    types.set(type.table, type);
  }
  if (guards.size === 0) return store;

  /** The table's guards and the block's caller, when this statement is to be checked. */
  const checking = (table: string) => {
    const of = guards.get(table);
    const principal = of && statementPrincipal();
    return of && principal ? { of, call: { principal } } : undefined;
  };
  /** The read condition of the table for the block's caller; undefined when it reads every row. */
  const reading = (table: string) => {
    const type = types.get(table);
    const principal = type && statementPrincipal();
    return type && principal ? { filter: readFilter(type, principal, catalog) } : undefined;
  };
  const readsChecked = (inner: StoreTx): StoreTx =>
    withMembers(inner, {
      get: (table, id, lock) => {
        const at = reading(table);
        return at ? readableRow(inner, table, id, at.filter) : inner.get(table, id, lock);
      },
      list: (table, query) => inner.list(table, withFilter(query, reading(table)?.filter)),
      count: (table, query) => inner.count(table, withFilter(query, reading(table)?.filter)),
    });
  const checked = (inner: StoreTx): StoreTx =>
    withWrites(readsChecked(inner), {
      async insert(table, values) {
        const at = checking(table);
        const row = await inner.insert(table, values);
        await at?.of.create.after(inner, row.id as number, at.call);
        return row;
      },
      async update(table, id, patch) {
        const at = checking(table);
        if (at && !(await inner.get(table, id))) return undefined;
        await at?.of.update.before(inner, id, at.call);
        const row = await inner.update(table, id, patch);
        if (row) await at?.of.update.after(inner, id, at.call);
        return row;
      },
      async delete(table, id) {
        const at = checking(table);
        if (at && !(await inner.get(table, id))) return false;
        await at?.of.delete.before(inner, id, at.call);
        return inner.delete(table, id);
      },
    });
  return {
    ...store,
    read: (fn) => store.read((tx) => fn(readsChecked(tx))),
    write: (fn, options) =>
      store.write(
        (tx) => fn(checked(tx)),
        unlessAddsStatements(options, (table) => guards.has(table)),
      ),
  };
}

/** `query` with `filter` ANDed to its own (a policy's condition). */
function withFilter(query: ListQuery | undefined, filter: RowCondition | undefined): ListQuery | undefined {
  if (filter === undefined) return query;
  const own = query?.filter;
  return { ...query, filter: own ? { kind: "and", items: [own, filter] } : filter };
}
