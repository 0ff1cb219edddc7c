// Reads under policies (spec/policies.md, "Reads"): the rows of a type a call may read, as the
// store filter every read path hands down (ListQuery.filter), so list, count, cursors and sort
// are computed over readable rows only and a get of an unreadable row is the same 404 as a
// missing one. The condition comes from row-policy.ts; this module only applies it.

import type { Catalog, CatalogType } from "../../model/app.js";
import type { CallContext } from "../../model/build-contract.js";
import type { RowCondition } from "../../model/policy.js";
import type { Principal } from "../../model/principal.js";
import type { Row, StoreTx } from "../../model/store.js";
import { hasPolicies, rowCondition } from "./row-policy.js";

/**
 * The read condition of `type` for a call by `principal` (absent: the owner); undefined when
 * every row is readable, so the query stays the one wo ran before policies.
 */
export function readFilter(
  type: Pick<CatalogType, "name" | "policies">,
  principal: Principal | undefined,
  catalog: Pick<Catalog, "bypassPolicies">,
): RowCondition | undefined {
  if (!hasPolicies(type)) return undefined;
  const condition = rowCondition(type, "read", principal, catalog.bypassPolicies ?? []);
  return condition.kind === "true" ? undefined : condition;
}

/**
 * Whether `principal` is an anonymous caller who may read no row of `type` (`filter` being its
 * readFilter): a type without policy lines is not public, and no line may admit it. A live
 * stream refuses such a caller (401 with the challenge) rather than stay silent.
 */
export function anonymousReadsNothing(
  type: Pick<CatalogType, "policies">,
  principal: Principal | undefined,
  filter: RowCondition | undefined,
): boolean {
  return principal?.via === "anonymous" && (filter?.kind === "false" || !hasPolicies(type));
}

/** readFilter bound to one type: what a body computes per call. */
export function readFilterOf(
  type: Pick<CatalogType, "name" | "policies">,
  catalog: Pick<Catalog, "bypassPolicies">,
): (call: CallContext | undefined) => RowCondition | undefined {
  if (!hasPolicies(type)) return () => undefined;
  return (call) => readFilter(type, call?.principal, catalog);
}

/**
 * The row `id` of `table` when it exists and passes `filter`; one indexed query either way.
 * Not an async function: without a filter it hands back the store's own promise, where an
 * async function's `return` of a promise would cost every GET by id two more microtask turns.
 */
export function readableRow(
  tx: StoreTx,
  table: string,
  id: number,
  filter: RowCondition | undefined,
): Promise<Row | undefined> {
  if (filter === undefined) return tx.get(table, id);
  if (!Number.isSafeInteger(id)) return Promise.resolve(undefined);
  return tx.list(table, { where: [{ column: "id", op: "==", value: id }], filter, limit: 1 }).then((rows) => rows[0]);
}
