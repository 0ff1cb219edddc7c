// Application events over MCP (spec/mcp.md, "Application events"): the resource `wo://events`
// (every event) and `wo://events/<name>` (one name's), listed where some trigger emits. Reading
// one returns the recent events the caller may hear of, oldest first, with the change log
// position of the newest; subscribing to one (resources/subscribe in 2025 sessions,
// `resourceSubscriptions` of subscriptions/listen in 2026-07-28) makes each committed event it
// covers notify `notifications/resources/updated { uri }`, after which the client reads it. Who
// hears of an event is decided by ../app-events.ts: the read policy of the emitting row.

import { emittedEvents, type Catalog } from "../../model/app.js";
import type { Principal } from "../../model/principal.js";
import { eventLogTable, type AppEvent, type RowChange, type Store } from "../../model/store.js";
import { eventAudience, eventsUri, isEvent, publishedEvent, type PublishedEvent } from "../app-events.js";

/** Events a read returns at most, the newest ones. */
export const eventsPerRead = 100;
/** How far back in the change log (positions of every logged table) a read looks. */
const readWindow = 1000;

export interface EventResources {
  /** resources/list entries: none when no trigger emits. */
  listed: { uri: string; name: string; title: string; description: string; mimeType: string }[];
  /** Whether `uri` is one of the event resources. */
  has(uri: string): boolean;
  /** The resource's text: `{ events, last }` for `principal`. */
  read(uri: string, principal: Principal | undefined): Promise<string>;
  /** The resources a committed event is part of (empty for any other change). */
  urisOf(change: RowChange): string[];
  /** Whether `principal` may hear of the event `change` holds. */
  mayHear(change: RowChange, principal: Principal | undefined): Promise<boolean>;
}

export function eventResources(
  catalog: Pick<Catalog, "types" | "bypassPolicies" | "config">,
  store: Pick<Store, "read" | "changesAfter">,
): EventResources {
  const names = emittedEvents(catalog);
  const uris = new Set(names.length === 0 ? [] : [eventsUri, ...names.map((n) => `${eventsUri}/${n}`)]);
  const listed = [...uris].map((uri) => {
    const name = uri === eventsUri ? undefined : uri.slice(eventsUri.length + 1);
    return {
      uri,
      name: name === undefined ? "events" : `events ${name}`,
      title: name === undefined ? "Application events" : `Events '${name}'`,
      description: `The recent ${name === undefined ? "application events" : `'${name}' events`} (emitted by triggers), oldest first; subscribe to hear of new ones.`,
      mimeType: "application/json",
    };
  });
  const retention = catalog.config.liveRetention ?? 10_000;
  // One audience per caller, kept while the caller is (a session's principal is one object):
  // each notification asks it, and its per-type tests are built on its first event.
  const audiences = new WeakMap<Principal, ReturnType<typeof eventAudience>>();
  const owners = eventAudience(catalog, store, undefined);
  const audienceOf = (principal: Principal | undefined) => {
    if (principal === undefined) return owners;
    let audience = audiences.get(principal);
    if (audience === undefined) audiences.set(principal, (audience = eventAudience(catalog, store, principal)));
    return audience;
  };
  return {
    listed,
    has: (uri) => uris.has(uri),
    async read(uri, principal) {
      const name = uri === eventsUri ? undefined : uri.slice(eventsUri.length + 1);
      // The newest position: asking past any seq answers `gone` with it.
      const probe = await store.changesAfter(eventLogTable, Number.MAX_SAFE_INTEGER, 1);
      const newest = probe.gone ? probe.newest : 0;
      const audience = audienceOf(principal);
      let after = Math.max(0, newest - Math.min(readWindow, retention));
      const found: PublishedEvent[] = [];
      for (;;) {
        const page = await store.changesAfter(eventLogTable, after, 256);
        if (page.gone) break;
        for (const change of page.changes) {
          after = change.seq ?? after;
          if (name !== undefined && (change.row as unknown as AppEvent).name !== name) continue;
          if (await audience(change).catch(() => false)) found.push(publishedEvent(change));
        }
        if (!page.more) break;
      }
      return JSON.stringify({ events: found.slice(-eventsPerRead), last: newest });
    },
    urisOf(change) {
      if (!isEvent(change) || uris.size === 0) return [];
      const named = `${eventsUri}/${(change.row as unknown as AppEvent).name}`;
      return uris.has(named) ? [eventsUri, named] : [eventsUri];
    },
    mayHear: (change, principal) => audienceOf(principal)(change),
  };
}
