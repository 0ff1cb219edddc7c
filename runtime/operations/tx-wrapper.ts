// A StoreTx that is another one with some members replaced: what the store wrappers of the
// operation runtime (triggers.ts, statement-policies.ts, row-exprs.ts, live-writes.ts) add to
// every write or read, with every other member passed through unchanged. A layer may attach
// one value to the transaction it makes (`carrying`), and every wrapper above carries it up, so
// the code holding the outermost transaction finds it (`carried`; live-writes.ts keeps a body's
// subscriptions there). A property, not a WeakMap from wrapper to wrapped: a chain of WeakMap
// entries per transaction cost the garbage collector about 25 µs a write.

import type { StoreTx, WriteOptions } from "../../model/store.js";

export type TxWrites = Pick<StoreTx, "insert" | "update" | "delete">;

const carriedKey = Symbol("wo.carried");

type Carrying = StoreTx & { [carriedKey]?: unknown };

/** `inner` with `own`'s members in place of its own. */
export function withMembers(inner: StoreTx, own: Partial<StoreTx>): StoreTx {
  const tx: Carrying = {
    [carriedKey]: (inner as Carrying)[carriedKey],
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
  return tx;
}

export function withWrites(inner: StoreTx, writes: TxWrites): StoreTx {
  return withMembers(inner, writes);
}

/** `tx` (made by withMembers) carrying `value` up through the wrappers made on it afterwards. */
export function carrying(tx: StoreTx, value: unknown): StoreTx {
  (tx as Carrying)[carriedKey] = value;
  return tx;
}

/** What a layer under `tx` attached with `carrying`; undefined when none did. */
export function carried(tx: StoreTx): unknown {
  return (tx as Carrying)[carriedKey];
}

/**
 * `options` without `soleInsert` (model/store.ts) when a layer makes statements of its own
 * around inserts into that table (`addsStatements`): the callback is then more than one insert,
 * so the store must give it a transaction.
 */
export function unlessAddsStatements<O extends WriteOptions | undefined>(
  options: O,
  addsStatements: (table: string) => boolean,
): O {
  const table = options?.soleInsert;
  return table !== undefined && addsStatements(table) ? { ...options, soleInsert: undefined } : options;
}
