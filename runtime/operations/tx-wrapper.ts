// A StoreTx that is another one with some members replaced: what the store wrappers of the
// operation runtime (triggers.ts, statement-policies.ts, row-exprs.ts, live-writes.ts) add to
// every write or read, with every other member passed through unchanged. Each wrapper remembers
// the transaction it wraps, so a layer can find its own transaction under the one a body holds
// (`wrappedTx`; live-writes.ts finds a body's subscriptions that way).

import type { StoreTx } from "../../model/store.js";

export type TxWrites = Pick<StoreTx, "insert" | "update" | "delete">;

const wraps = new WeakMap<StoreTx, StoreTx>();

/** `inner` with `own`'s members in place of its own. */
export function withMembers(inner: StoreTx, own: Partial<StoreTx>): StoreTx {
  const tx: StoreTx = {
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
  wraps.set(tx, inner);
  return tx;
}

export function withWrites(inner: StoreTx, writes: TxWrites): StoreTx {
  return withMembers(inner, writes);
}

/** The transaction `tx` wraps, when it was made by withMembers; else undefined. */
export function wrappedTx(tx: StoreTx): StoreTx | undefined {
  return wraps.get(tx);
}
