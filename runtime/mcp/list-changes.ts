// List-change notifications (`wo run --watch`; spec/live.md, "List changes"). When a new build
// replaces the one serving and its tools or resources differ, every client that asked to hear
// about it is told: a 2025-era session on its GET stream (`notifications/tools/list_changed`,
// `notifications/resources/list_changed`), a 2026-07-28 client on its `subscriptions/listen`
// stream (the same methods, each tagged with the subscription id, and only the kinds its filter
// asked for). Without --watch nothing here is on: the capabilities say `listChanged: false`
// and subscriptions/listen honours nothing.
//
// The feed outlives every build, like the session table: a swap must not cut the streams.

import { notificationBody, type JsonRpcId } from "./json-rpc.js";
import { createSseStream, sseFrame, type SseStream } from "../sse.js";
import type { StreamSlot } from "../stream-budget.js";

export type ListKind = "tools" | "resources";

const notificationOf: Record<ListKind, string> = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
};

/** The subscriptions/listen filter key of each kind (2026-07-28 `SubscriptionFilter`). */
const filterKeyOf: Record<ListKind, string> = { tools: "toolsListChanged", resources: "resourcesListChanged" };
const kinds = Object.keys(filterKeyOf) as ListKind[];

interface Listener {
  kinds: ReadonlySet<ListKind>;
  stream: SseStream;
  /** `_meta` of its notifications: the subscription id. */
  meta: { "io.modelcontextprotocol/subscriptionId": JsonRpcId };
  /** The graceful end (the listen request's result), sent when the server stops. */
  endFrame: string;
}

export interface ListChangeFeed {
  /** True with --watch: capabilities declare listChanged and listen streams stay open. */
  readonly enabled: boolean;
  /** The part of a listen filter honoured: `{ toolsListChanged: true, … }` for the kinds asked for (none when off). */
  honoured(filter: Record<string, unknown>): Record<string, true>;
  /**
   * An open listen stream for these honoured keys (none: a stream for other notifications, row
   * updates), or undefined when `maxListeners` are open. `onClose` runs when it closes.
   */
  open(
    id: JsonRpcId,
    honoured: Record<string, true>,
    endFrame: string,
    slot: StreamSlot,
    onClose?: () => void,
  ): SseStream | undefined;
  /** Tells every interested client that these lists changed. */
  notify(changed: readonly ListKind[]): void;
  readonly listenerCount: number;
  /** Server shutdown: each listen stream gets its graceful end, then closes. */
  close(): void;
}

export interface ListChangeFeedOptions {
  enabled: boolean;
  keepAliveMs: number;
  maxQueuedFrames: number;
  /** Listen streams open at once; one more is refused (a flood must not hold unbounded streams). */
  maxListeners: number;
  /** The 2025-era sessions' open GET streams. */
  legacyStreams: () => Iterable<SseStream>;
}

export function createListChangeFeed(opts: ListChangeFeedOptions): ListChangeFeed {
  const listeners = new Set<Listener>();
  // 2025 frames carry nothing per client: written once.
  const legacyFrame = Object.fromEntries(
    kinds.map((k) => [k, sseFrame(notificationBody(notificationOf[k], {}))]),
  ) as Record<ListKind, string>;
  return {
    enabled: opts.enabled,
    honoured(filter) {
      const out: Record<string, true> = {};
      if (!opts.enabled) return out;
      for (const k of kinds) if (filter[filterKeyOf[k]] === true) out[filterKeyOf[k]] = true;
      return out;
    },
    open(id, honoured, endFrame, slot, onClose) {
      if (listeners.size >= opts.maxListeners) {
        slot.release();
        return undefined;
      }
      const listener: Listener = {
        kinds: new Set(kinds.filter((k) => honoured[filterKeyOf[k]] === true)),
        stream: createSseStream({
          keepAliveMs: opts.keepAliveMs,
          maxQueuedFrames: opts.maxQueuedFrames,
          slot,
          onClose: () => {
            listeners.delete(listener);
            onClose?.();
          },
        }),
        meta: { "io.modelcontextprotocol/subscriptionId": id },
        endFrame,
      };
      listeners.add(listener);
      return listener.stream;
    },
    notify(changed) {
      if (!opts.enabled || changed.length === 0) return;
      for (const stream of opts.legacyStreams()) for (const k of changed) stream.send(legacyFrame[k]);
      for (const l of [...listeners]) {
        for (const k of changed)
          if (l.kinds.has(k)) l.stream.send(sseFrame(notificationBody(notificationOf[k], { _meta: l.meta })));
      }
    },
    get listenerCount() {
      return listeners.size;
    },
    close() {
      for (const l of [...listeners]) {
        l.stream.send(l.endFrame);
        l.stream.close();
      }
    },
  };
}
