// Live subscriptions inside a body (spec/language.md, "Live subscriptions"): `subscribe live
// T{ p }` and `receive(sub)`. A body runs in one transaction, so nothing another writer commits
// can reach it before it ends: a subscription hears of the writes of its own run that come after
// it — the body's, the fns' and methods' it calls and its triggers' — one delta per write of a
// row of T, in the order they ran, like a REST live stream opened without `Last-Event-ID`
// (spec/live.md, "REST live streams": it starts with the next change, no snapshot first).
//
// Hooked on the write transaction's insert, update and delete under the triggers (triggers.ts
// wraps this layer), so every write passes, trigger-made ones included, with the row as stored
// after the triggers' `set`s; above the row expressions (row-exprs.ts), so the rows read give
// their computed fields. Whether a row is in a subscription is one query of the store before and
// after the write — its predicate, the id, and the read policy of the session that subscribed —
// so the store's own semantics decide, as for a select. Out → in is an Insert, in → in an
// Update, in → out a Delete (with the row as the subscription last saw it). Writes of a
// savepoint that rolls back (`expect_abort`) take their deltas with them. A write transaction
// without subscriptions pays for its wrapper (about 0.5 µs) and one empty-list check per write.

import { OperationError } from "../../model/errors.js";
import type { RowCondition } from "../../model/policy.js";
import type { ListQuery, Row, Store, StoreTx } from "../../model/store.js";
import { carried, carrying, withMembers } from "./tx-wrapper.js";

export type DeltaKind = "Snapshot" | "Insert" | "Update" | "Delete";

/** What `receive(sub)` gives: the kind, the row, and `rows` (always empty: no Snapshot is sent). */
export interface LiveDelta {
  kind: DeltaKind;
  row: Row;
  rows: Row[];
}

/** A `subscribe live` value: opaque to generated code, which only passes it to `receive`. */
export interface BodySubscription {
  readonly table: string;
  readonly where: NonNullable<ListQuery["where"]>;
  /** The read policy of the session that subscribed; undefined when it reads every row. */
  readonly filter: RowCondition | undefined;
  /** `file.wo:LINE` of the `subscribe live`, for receive's error. */
  readonly at: string;
  readonly deltas: LiveDelta[];
  /** How many deltas `receive` has taken. */
  taken: number;
}

/** The subscriptions of one write transaction. */
interface Journal {
  subs: BodySubscription[];
}

export interface LiveWrites {
  /** `store`, whose write transactions feed the subscriptions made in them. */
  store: Store;
  subscribe(
    tx: StoreTx,
    table: string,
    where: NonNullable<ListQuery["where"]>,
    filter: RowCondition | undefined,
    at: string,
  ): BodySubscription;
  receive(sub: BodySubscription, at: string): LiveDelta;
}

export function withLiveWrites(store: Store): LiveWrites {
  const write: Store["write"] = (fn, options) =>
    store.write((inner) => {
      const journal: Journal = { subs: [] };
      return fn(carrying(liveTx(inner, journal), journal));
    }, options);
  /** The journal of the write transaction under `tx`; undefined in a read transaction. */
  const journalOf = (tx: StoreTx) => carried(tx) as Journal | undefined;
  return {
    store: { ...store, write },
    subscribe(tx, table, where, filter, at) {
      const sub: BodySubscription = { table, where, filter, at, deltas: [], taken: 0 };
      // In a read transaction nothing is written, so nothing will be pending.
      journalOf(tx)?.subs.push(sub);
      return sub;
    },
    receive(sub, at) {
      const delta = sub.deltas[sub.taken];
      if (delta === undefined)
        throw new OperationError(
          "aborted",
          `receive() at ${at}: nothing is pending on the subscription made at ${sub.at}. A subscription hears only of the writes this run makes after it (one delta each, never a snapshot first), and receive never waits.`,
        );
      sub.taken++;
      return delta;
    },
  };
}

function liveTx(inner: StoreTx, journal: Journal): StoreTx {
  const watching = (table: string) => (journal.subs.length === 0 ? [] : journal.subs.filter((s) => s.table === table));
  /** The row `id` as `sub` sees it now (its predicate and policy), or undefined. */
  const seen = async (sub: BodySubscription, id: number): Promise<Row | undefined> => {
    const where = [...sub.where, { column: "id", op: "==" as const, value: id }];
    const [row] = await inner.list(sub.table, { where, filter: sub.filter, limit: 1 });
    return row;
  };
  const before = async (subs: BodySubscription[], id: number) => {
    const rows: (Row | undefined)[] = [];
    for (const sub of subs) rows.push(await seen(sub, id));
    return rows;
  };
  /** One delta per subscription whose view of row `id` changed: Insert, Update or Delete. */
  const after = async (subs: BodySubscription[], was: (Row | undefined)[], id: number | undefined) => {
    for (const [i, sub] of subs.entries()) {
      const old = was[i];
      const now = id === undefined ? undefined : await seen(sub, id);
      if (now) sub.deltas.push({ kind: old ? "Update" : "Insert", row: now, rows: [] });
      else if (old) sub.deltas.push({ kind: "Delete", row: old, rows: [] });
    }
  };
  const inserted = async (table: string, make: () => Promise<Row>) => {
    const row = await make();
    const subs = watching(table);
    if (subs.length > 0) await after(subs, [], row.id as number);
    return row;
  };
  return withMembers(inner, {
    insert: (table, values) => inserted(table, () => inner.insert(table, values)),
    insertWithId: (table, id, values) => inserted(table, () => inner.insertWithId(table, id, values)),
    async update(table, id, patch) {
      const subs = Object.keys(patch).length === 0 ? [] : watching(table);
      if (subs.length === 0) return inner.update(table, id, patch);
      const was = await before(subs, id);
      const row = await inner.update(table, id, patch);
      if (row) await after(subs, was, id);
      return row;
    },
    async delete(table, id) {
      const subs = watching(table);
      if (subs.length === 0) return inner.delete(table, id);
      const was = await before(subs, id);
      const gone = await inner.delete(table, id);
      if (gone) await after(subs, was, undefined);
      return gone;
    },
    async savepoint(fn) {
      const marks = new Map(journal.subs.map((s) => [s, s.deltas.length]));
      try {
        return await inner.savepoint(fn);
      } catch (err) {
        // The writes were undone: so are their deltas (a subscription made inside loses all).
        for (const sub of journal.subs) {
          const mark = marks.get(sub) ?? 0;
          sub.deltas.length = Math.min(sub.deltas.length, mark);
          sub.taken = Math.min(sub.taken, mark);
        }
        throw err;
      }
    },
  });
}
