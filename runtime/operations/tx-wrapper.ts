// A StoreTx that is another one with its writes replaced: what the store wrappers of the
// operation runtime (triggers.ts, statement-policies.ts) add to every insert, update and delete,
// with every other member passed through unchanged.

import type { StoreTx } from "../../model/store.js";

export type TxWrites = Pick<StoreTx, "insert" | "update" | "delete">;

export function withWrites(inner: StoreTx, writes: TxWrites): StoreTx {
  return {
    get: (table, id, lock) => inner.get(table, id, lock),
    list: (table, query) => inner.list(table, query),
    count: (table, query) => inner.count(table, query),
    insertWithId: (table, id, values) => inner.insertWithId(table, id, values),
    savepoint: (fn) => inner.savepoint(fn),
    referrers: (table, id) => inner.referrers(table, id),
    appendAudit: (record) => inner.appendAudit(record),
    appendEvent: (event) => inner.appendEvent(event),
    appendJob: (job) => inner.appendJob(job),
    insert: writes.insert,
    update: writes.update,
    delete: writes.delete,
  };
}
