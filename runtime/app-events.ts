// Application events (spec/live.md, "Application events"): what `do emit "name"(args)` in a
// trigger records, and who may hear of it. An event is an entry of the durable change log under
// `eventLogTable` (model/store.ts), written in the transaction of the write that fired the
// trigger, so it exists exactly when that write commits and resumes by seq like a row change.
// Both the REST stream (`GET /api/_events`, rest/live.ts) and MCP (`wo://events`, mcp/) send a
// caller only the events of rows it may read under their type's read policy, tested here on the
// emitting row as it was stored when the event was emitted (the row before a delete).

import type { Catalog, CatalogType } from "../model/app.js";
import type { Principal } from "../model/principal.js";
import { eventLogTable, type AppEvent, type Row, type RowChange, type Store, type StoreTx } from "../model/store.js";
import { anonymousReadsNothing, readFilter } from "./operations/read-policy.js";
import { catalogTables, rowTest } from "./store/conditions.js";

/** An event as clients receive it: never its emitting row (`AppEvent.source`). */
export interface PublishedEvent {
  /** Its position in the change log: the SSE `id:`, and what `Last-Event-ID` resumes from. */
  seq: number | undefined;
  name: string;
  type: string;
  id: number;
  args: unknown[];
  at: string;
}

/** The MCP resource of every event, and the prefix of one name's (`wo://events/<name>`). */
export const eventsUri = "wo://events";

/** Records `do emit "name"(args)` in `tx`, the write transaction of the row `row` of `type`. */
export function emitEvent(
  tx: StoreTx,
  event: { name: string; type: string; table: string; row: Row; args: readonly unknown[] },
  now: string,
): Promise<void> {
  const record: AppEvent = {
    name: event.name,
    // As JSON: what a client receives and what the log keeps are the same values.
    args: event.args.map((a) => (a === undefined ? null : (JSON.parse(JSON.stringify(a)) as unknown))),
    type: event.type,
    table: event.table,
    rowId: event.row.id as number,
    at: now,
    source: { ...event.row },
  };
  return tx.appendEvent(record);
}

export function isEvent(change: RowChange): boolean {
  return change.table === eventLogTable && change.row !== null;
}

/** What a client is told of the event `change` holds. */
export function publishedEvent(change: RowChange): PublishedEvent {
  const e = change.row as unknown as AppEvent;
  return { seq: change.seq, name: e.name, type: e.type, id: e.rowId, args: e.args, at: e.at };
}

/** The event's SSE frame: `event:` its name, `id:` its seq, `data:` the event. */
export function eventFrame(change: RowChange): string {
  const { seq, ...event } = publishedEvent(change);
  return `event: ${event.name}\n${seq !== undefined ? `id: ${seq}\n` : ""}data: ${JSON.stringify(event)}\n\n`;
}

/**
 * Whether `principal` may hear of the event in `change`: it may read the emitting row under its
 * type's read policy (spec/policies.md). An anonymous caller hears only of types whose policy
 * lines let it read, as on every read path; the owner hears of everything.
 */
export function eventAudience(
  catalog: Pick<Catalog, "types" | "bypassPolicies">,
  store: Pick<Store, "read">,
  principal: Principal | undefined,
): (change: RowChange) => Promise<boolean> {
  const byTable = new Map(catalog.types.map((t) => [t.table, t]));
  const tables = catalogTables(catalog);
  const tests = new Map<string, (row: Row) => Promise<boolean>>();
  const testOf = (type: CatalogType): ((row: Row) => Promise<boolean>) => {
    const filter = readFilter(type, principal, catalog);
    if (anonymousReadsNothing(type, principal, filter) || filter?.kind === "false") return async () => false;
    return filter === undefined ? async () => true : rowTest(store, filter, type.table, tables);
  };
  return async (change) => {
    if (!isEvent(change)) return false;
    const event = change.row as unknown as AppEvent;
    const type = byTable.get(event.table);
    // A type no longer in the build (a swap removed it): nobody's policy can admit its events.
    if (type === undefined) return false;
    let test = tests.get(type.table);
    if (test === undefined) tests.set(type.table, (test = testOf(type)));
    return test(event.source);
  };
}
