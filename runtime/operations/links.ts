// Adding and removing one link (a row of a link type, spec/language.md "Link types"): the rule
// shared by the relation operations (`P/:id/tags` PUT/DELETE) and the `link`/`unlink`
// statements of method bodies. One link per pair: adding an existing pair returns that link,
// removing an absent one is no error. Both run inside the caller's transaction.

import type { OperationRuntime } from "../../model/build-contract.js";
import { StoreConstraintError, type Row, type StoreTx } from "../../model/store.js";

/** A link's two endpoint columns and the ids they hold (`{ post: 1, tag: 2 }`). */
export type LinkEnds = Readonly<Record<string, number>>;

function pairFilter(ends: LinkEnds) {
  return Object.entries(ends).map(([column, value]) => ({ column, op: "==" as const, value }));
}

/** Inserts `row` (whose endpoint columns hold `ends`) unless that pair is already linked. */
export async function addLink(
  tx: StoreTx,
  table: string,
  ends: LinkEnds,
  row: Row,
): Promise<{ created: boolean; link: Row }> {
  const [existing] = await tx.list(table, { where: pairFilter(ends), limit: 1 });
  if (existing) return { created: false, link: existing };
  try {
    return { created: true, link: await tx.insert(table, { ...row, ...ends }) };
  } catch (err) {
    // The same pair linked by a write running beside this one (the pair's unique index; the
    // insert does not abort the transaction, model/store.ts): that link is the answer.
    if (!(err instanceof StoreConstraintError)) throw err;
    const [raced] = await tx.list(table, { where: pairFilter(ends), limit: 1 });
    if (!raced) throw err;
    return { created: false, link: raced };
  }
}

/** Deletes the link of that pair if there is one (a 409 if other rows still refer to it). */
export async function removeLink(
  rt: Pick<OperationRuntime, "checkNotReferenced">,
  tx: StoreTx,
  table: string,
  ends: LinkEnds,
): Promise<boolean> {
  const [existing] = await tx.list(table, { where: pairFilter(ends), limit: 1 });
  if (!existing) return false;
  await rt.checkNotReferenced(tx, table, existing.id as number);
  await tx.delete(table, existing.id as number);
  return true;
}
