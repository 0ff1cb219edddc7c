// Row subscriptions (spec/live.md, "Row subscriptions over MCP"): which MCP streams asked to
// hear about which row URIs, fed by the store's commit events. A 2025-era session subscribes
// with resources/subscribe and hears on its GET stream; a 2026-07-28 `subscriptions/listen`
// stream subscribes for as long as it is open. Both hand in a sink that writes one
// `notifications/resources/updated` frame to their own bounded stream, so a slow client only
// ever fills (and loses) its own stream.

import { eventLogTable, type RowChange, type Store } from "../../model/store.js";
import type { MethodTable } from "./methods.js";
import { isOwner, type Principal } from "../../model/principal.js";

/**
 * Writes the notification for `uri` to one stream; must not throw or block. `deleted`: the row
 * is gone. `event`: the application event that changed an event resource (event-resources.ts).
 */
export type RowSink = (uri: string, deleted: boolean, event?: RowChange) => void;

/**
 * `sink` for a caller under read policies: an update is sent only when the caller may still
 * read the row (asked again after the commit, as resources/read would), so a row an update
 * makes unreadable goes silent. A delete is sent: the caller already knows the URI and may
 * have read the row. The owner's sink is `sink` itself.
 */
export function readableOnly(
  ep: { current: { methods: Pick<MethodTable, "mayRead" | "events"> } },
  principal: Principal | undefined,
  sink: (uri: string) => void,
): RowSink {
  if (isOwner(principal)) return sink;
  return (uri, deleted, event) => {
    if (deleted) return sink(uri);
    // An event resource: the caller hears of the events of rows it may read (app-events.ts).
    if (event !== undefined)
      return void ep.current.methods.events.mayHear(event, principal).then(
        (ok) => ok && sink(uri),
        () => undefined,
      );
    void ep.current.methods.mayRead(uri, principal).then(
      (ok) => ok && sink(uri),
      () => undefined,
    );
  };
}

export interface RowSubscriptions {
  add(uri: string, sink: RowSink): void;
  remove(uri: string, sink: RowSink): void;
  /** Stops listening to the store (server shutdown). */
  close(): void;
  /** Sinks subscribed to anything, for tests and limits. */
  readonly size: number;
}

/**
 * `uriOf` names the resource of a changed row: undefined for rows that are not resources
 * (types without `get` over MCP), which no one can have subscribed to.
 */
export function createRowSubscriptions(
  store: Store,
  uriOf: (table: string, id: number) => string | undefined,
  eventUrisOf: (change: RowChange) => string[] = () => [],
): RowSubscriptions {
  const byUri = new Map<string, Set<RowSink>>();
  const onCommit = (changes: readonly RowChange[]) => {
    // A row written twice in one commit is one notification: the client reads it once anyway.
    const notified = new Set<string>();
    for (const change of changes) {
      if (change.table === eventLogTable) {
        // Every event is its own notification: a reader may hear of one and not another.
        for (const uri of eventUrisOf(change)) for (const sink of byUri.get(uri) ?? []) sink(uri, false, change);
        continue;
      }
      const uri = uriOf(change.table, change.id);
      if (uri === undefined || notified.has(uri)) continue;
      notified.add(uri);
      for (const sink of byUri.get(uri) ?? []) sink(uri, change.row === null);
    }
  };
  // Listening only while someone subscribes: with no listener the store records nothing.
  let stop: (() => void) | undefined;
  return {
    add(uri, sink) {
      let sinks = byUri.get(uri);
      if (sinks === undefined) byUri.set(uri, (sinks = new Set()));
      sinks.add(sink);
      stop ??= store.onCommit(onCommit);
    },
    remove(uri, sink) {
      const sinks = byUri.get(uri);
      if (sinks === undefined) return;
      sinks.delete(sink);
      if (sinks.size === 0) byUri.delete(uri);
      if (byUri.size === 0) {
        stop?.();
        stop = undefined;
      }
    },
    close() {
      stop?.();
      stop = undefined;
    },
    get size() {
      let n = 0;
      for (const sinks of byUri.values()) n += sinks.size;
      return n;
    },
  };
}
