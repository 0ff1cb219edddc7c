// Triggers at run time (spec/language.md, "Triggers"): the store as every writer sees it — a
// table operation from REST or MCP, a method's or fn's insert/update/delete, `wo test`,
// `wo exec`, `on startup` — whose write transactions run the triggers of the table they
// write. Hooked on the transaction's insert, update and delete, the one place every write
// passes, so no writer bypasses them. `wo import` restores rows with `insertWithId` on a
// runtime without triggers: the rows already hold what the triggers set when they were made.
//
// For one write, the triggers of its table and event run in source order:
//   1. each trigger's `when` and `set`s (TriggerDefinition.before), on the row as it will be
//      stored: a later trigger sees the fields an earlier one set;
//   2. the write itself, with the fields the triggers set (so they pass the same @check and
//      storage as the caller's own values);
//   3. the actions of each trigger that fired (calls, writes), on the stored row (on delete,
//      before the row is removed, so they can still read it).
// A trigger does not fire again for writes made while it runs (its own actions), so it never
// loops on itself; a chain of different triggers stops past `maxTriggerDepth` with a 409 that
// names the chain. Any error, an `abort` in a called fn included, rolls the whole write back.

import { withWrites } from "./tx-wrapper.js";
import type { CallContext, OperationRuntime, RunBudgetCounter, TriggerDefinition } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import type { ChangeOp, Row, Store, StoreTx } from "../../model/store.js";

/** How deep triggers may chain (a trigger's action writing a row whose trigger writes, …). */
export const maxTriggerDepth = 8;

export interface TriggeredStore {
  /** `store`, whose write transactions run the defined triggers. */
  store: Store;
  define(triggers: readonly TriggerDefinition[]): void;
  /** Whether writes of `table` run any trigger. */
  fires(table: string): boolean;
}

type Budgeted = OperationRuntime["budgeted"];

/**
 * Wraps `store` so its writes run triggers. `budgeted` gives each trigger run the budget of a
 * method call. Until `define` is called with at least one trigger, writes go straight through.
 */
export function withTriggers(store: Store, budgeted: Budgeted): TriggeredStore {
  const byTable = new Map<string, Map<ChangeOp, TriggerDefinition[]>>();
  const define = (triggers: readonly TriggerDefinition[]) => {
    for (const t of triggers) {
      const events = byTable.get(t.table) ?? new Map<ChangeOp, TriggerDefinition[]>();
      byTable.set(t.table, events);
      events.set(t.event, [...(events.get(t.event) ?? []), t]);
    }
  };
  const write: Store["write"] = (fn, options) => {
    if (byTable.size === 0) return store.write(fn, options);
    const call: CallContext = (options as CallContext | undefined) ?? {};
    return store.write((tx) => fn(triggeredTx(tx, byTable, { running: [], call, budgeted })), options);
  };
  return { store: { ...store, write }, define, fires: (table) => byTable.has(table) };
}

/** One write transaction's triggers in flight, outermost first. */
interface TxState {
  running: TriggerDefinition[];
  call: CallContext;
  budgeted: Budgeted;
}

function triggeredTx(
  inner: StoreTx,
  byTable: Map<string, Map<ChangeOp, TriggerDefinition[]>>,
  state: TxState,
): StoreTx {
  const triggersOf = (table: string, event: ChangeOp) =>
    byTable
      .get(table)
      ?.get(event)
      ?.filter((t) => !state.running.includes(t));
  const tx: StoreTx = withWrites(inner, {
    async insert(table, values) {
      const triggers = triggersOf(table, "create");
      if (!triggers?.length) return inner.insert(table, values);
      const { fired, row } = await before(tx, state, triggers, null, { ...values, id: null });
      const { id: _, ...stored } = row;
      const inserted = await inner.insert(table, stored);
      await actions(tx, state, fired, null, inserted);
      return inserted;
    },
    async update(table, id, patch) {
      const triggers = triggersOf(table, "update");
      if (!triggers?.length) return inner.update(table, id, patch);
      const old = await inner.get(table, id, "update");
      if (!old) return undefined;
      const { fired, row } = await before(tx, state, triggers, old, { ...old, ...patch, id });
      // The caller's fields and every field a trigger set; the rest stays as it is.
      const changed: Row = { ...patch };
      for (const key of Object.keys(row)) if (key !== "id" && row[key] !== old[key]) changed[key] = row[key];
      const updated = await inner.update(table, id, changed);
      if (updated) await actions(tx, state, fired, old, updated);
      return updated;
    },
    async delete(table, id) {
      const triggers = triggersOf(table, "delete");
      if (!triggers?.length) return inner.delete(table, id);
      const old = await inner.get(table, id, "update");
      if (!old) return false;
      const { fired } = await before(tx, state, triggers, old, old);
      await actions(tx, state, fired, old, old);
      // The caller checked the row was unreferenced before its triggers ran; they may have
      // referred to it since (an audit row naming it), which would leave a dangling ref.
      if (fired.length > 0) {
        const referrers = (await inner.referrers(table, id)).filter((r) => r.count > 0);
        if (referrers.length > 0)
          throw new OperationError(
            "conflict",
            `The delete's triggers (${fired.map((t) => t.name).join(", ")}) made rows that refer to the row being deleted (${referrers.map((r) => `${r.table}.${r.field}`).join(", ")}); nothing was deleted.`,
          );
      }
      return inner.delete(table, id);
    },
  });
  return tx;
}

/** Step 1: each trigger's `when` and `set`s, in order, on the row as it will be stored. */
async function before(
  tx: StoreTx,
  state: TxState,
  triggers: readonly TriggerDefinition[],
  old: Row | null,
  row: Row,
): Promise<{ fired: TriggerDefinition[]; row: Row }> {
  const fired: TriggerDefinition[] = [];
  let next = row;
  for (const t of triggers) {
    const set = await running(state, t, tx, (tx, budget) => t.before(tx, budget, old, next));
    if (set === undefined) continue;
    next = { ...next, ...set };
    fired.push(t);
  }
  return { fired, row: next };
}

/** Step 3: the actions of the triggers that fired, on the stored row. */
async function actions(
  tx: StoreTx,
  state: TxState,
  fired: readonly TriggerDefinition[],
  old: Row | null,
  row: Row,
): Promise<void> {
  for (const t of fired) {
    const act = t.actions;
    if (act) await running(state, t, tx, (tx, budget) => act(tx, budget, old, row));
  }
}

/** Runs part of trigger `t` as the innermost of the triggers in flight, under a method's budget. */
async function running<T>(
  state: TxState,
  t: TriggerDefinition,
  tx: StoreTx,
  run: (tx: StoreTx, budget: RunBudgetCounter) => Promise<T>,
): Promise<T> {
  state.running.push(t);
  try {
    if (state.running.length > maxTriggerDepth) {
      const chain = state.running.map((r) => r.name).join(" → ");
      throw new OperationError(
        "aborted",
        `Triggers chained more than ${maxTriggerDepth} deep (${chain}); nothing was written. A trigger's actions write rows whose triggers write again: break the chain.`,
      );
    }
    return await state.budgeted("method", `Trigger ${t.name}`, state.call, run)(tx);
  } finally {
    state.running.pop();
  }
}
