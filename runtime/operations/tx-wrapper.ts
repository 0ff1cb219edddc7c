// A StoreTx that is another one with some members replaced: what the store wrappers of the
// operation runtime (triggers.ts, statement-policies.ts, row-exprs.ts) add to every write or
// read, with every other member passed through unchanged.

import type { StoreTx } from "../../model/store.js";

export type TxWrites = Pick<StoreTx, "insert" | "update" | "delete">;

/** `inner` with `own`'s members in place of its own. */
export function withMembers(inner: StoreTx, own: Partial<StoreTx>): StoreTx {
  return {
    get: own.get ?? ((table, id, lock) => inner.get(table, id, lock)),
    list: own.list ?? ((table, query) => inner.list(table, query)),
    count: own.count ?? ((table, query) => inner.count(table, query)),
    insert: own.insert ?? ((table, values) => inner.insert(table, values)),
    insertWithId: own.insertWithId ?? ((table, id, values) => inner.insertWithId(table, id, values)),
    update: own.update ?? ((table, id, patch) => inner.update(table, id, patch)),
    delete: own.delete ?? ((table, id) => inner.delete(table, id)),
    savepoint: own.savepoint ?? ((fn) => inner.savepoint(fn)),
    referrers: own.referrers ?? ((table, id) => inner.referrers(table, id)),
    appendAudit: own.appendAudit ?? ((record) => inner.appendAudit(record)),
    appendEvent: own.appendEvent ?? ((event) => inner.appendEvent(event)),
    appendJob: own.appendJob ?? ((job) => inner.appendJob(job)),
  };
}

export function withWrites(inner: StoreTx, writes: TxWrites): StoreTx {
  return withMembers(inner, writes);
}
