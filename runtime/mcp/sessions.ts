// 2025-era sessions (T5): ids minted at initialize, the session's standalone GET SSE stream
// (T4) with keep-alive comments, and the calls in flight that notifications/cancelled can
// abort. The 2026-07-28 era is stateless and never touches this module.
//
// The streams themselves are ../sse.ts: bounded, so a client that stops reading has its own
// stream closed and never slows anyone else down.

import { randomBytes } from "node:crypto";
import type { SseStream } from "../sse.js";
import type { JsonRpcId } from "./json-rpc.js";

export interface Session {
  id: string;
  protocolVersion: string;
  lastSeen: number;
  /** Recency rank: higher is more recently used (a counter, so ties within a millisecond order). */
  usedAt: number;
  getStream?: SseStream;
  /** Calls in flight, by JSON-RPC id, so notifications/cancelled can abort them. */
  pending: Map<JsonRpcId, AbortController>;
  /** Row URIs this session subscribed to (resources/subscribe), each with its sink (legacy-subscriptions.ts). */
  rowSubscriptions?: Map<string, (uri: string) => void>;
  /** Called once when the session ends, however it ends. */
  onEnd?: () => void;
}

export interface SessionTable {
  /** A new session, not used yet; `id` when the caller minted one (session-ids.ts). */
  create(protocolVersion: string, id?: string): Session;
  /** A session another instance made (an McpSessionDirectory knows it): kept here from now on. */
  adopt(id: string, protocolVersion: string): Session;
  /** The session, marked used (a first use moves it out of the not-yet-used pool). */
  get(id: string): Session | undefined;
  end(id: string): boolean;
  readonly size: number;
  /** The open GET streams (list-change notifications go to each). */
  streams(): Iterable<SseStream>;
  /** Ids of the sessions with an open GET stream or a call in flight. */
  busyIds(): string[];
  closeAll(): void;
}

export interface SessionLimits {
  /** Sessions that have made a request since initialize, kept at most. */
  maxSessions: number;
  /** Sessions not used since initialize, kept at most (a separate pool: see createSessionTable). */
  maxUnusedSessions: number;
  idleMs: number;
}

/**
 * Past the cap of sessions in use on a shared table (PostgreSQL): a new session cannot start
 * until idle ones expire; the sessions in use are never evicted for it. Answered 503.
 */
export class SessionsFullError extends Error {
  constructor(readonly maxSessions: number) {
    super(`the server holds its limit of ${maxSessions} MCP sessions in use`);
  }
}

/** Session ids: 128 bits from the CSPRNG, hex (visible ASCII as the spec requires). */
function mintId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Two pools, so that a flood of `initialize` cannot push out the sessions clients are using:
 *
 * - **unused**: minted by initialize, no request since. Bounded by `maxUnusedSessions`; a new
 *   session evicts the oldest unused one. A real client leaves this pool with its very next
 *   message (`notifications/initialized`), so the churn of a flood only hits sessions nobody
 *   has used.
 * - **in use**: has made a request. Bounded by `maxSessions`; when full, idle sessions are
 *   swept, then the least recently used one goes, preferring one with no open GET stream and
 *   no call in flight. Only a client that uses its sessions can compete for these slots.
 */
export function createSessionTable(limits: SessionLimits): SessionTable {
  // Map order is creation order, and an unused session is never touched (a touch moves it to
  // `inUse`): the first entry is always the oldest.
  const unused = new Map<string, Session>();
  const inUse = new Map<string, Session>();
  let clock = 0;
  const terminate = (s: Session) => {
    unused.delete(s.id);
    inUse.delete(s.id);
    s.getStream?.close();
    for (const ac of s.pending.values()) ac.abort();
    s.pending.clear();
    s.onEnd?.();
  };
  const isBusy = (s: Session) => s.pending.size > 0 || (s.getStream !== undefined && !s.getStream.closed);
  /** Room for one more session in use: idle ones are swept first (no timer: no work when nothing happens). */
  const makeRoomInUse = (now: number) => {
    if (inUse.size < limits.maxSessions) return;
    for (const s of inUse.values()) if (now - s.lastSeen > limits.idleMs && !isBusy(s)) terminate(s);
    if (inUse.size < limits.maxSessions) return;
    // A scan, only when the pool is full, keeps get() (every request of a session) down to two
    // assignments.
    let oldest: Session | undefined;
    let oldestIdle: Session | undefined;
    for (const s of inUse.values()) {
      if (oldest === undefined || s.usedAt < oldest.usedAt) oldest = s;
      if (!isBusy(s) && (oldestIdle === undefined || s.usedAt < oldestIdle.usedAt)) oldestIdle = s;
    }
    const victim = oldestIdle ?? oldest;
    if (victim) terminate(victim);
  };
  return {
    create(protocolVersion, id = mintId()) {
      const now = Date.now();
      for (const s of unused.values()) {
        if (unused.size < limits.maxUnusedSessions && now - s.lastSeen <= limits.idleMs) break;
        terminate(s);
      }
      const s: Session = { id, protocolVersion, lastSeen: now, usedAt: ++clock, pending: new Map() };
      unused.set(s.id, s);
      return s;
    },
    adopt(id, protocolVersion) {
      const existing = inUse.get(id) ?? unused.get(id);
      if (existing) return existing;
      const now = Date.now();
      makeRoomInUse(now);
      const s: Session = { id, protocolVersion, lastSeen: now, usedAt: ++clock, pending: new Map() };
      inUse.set(id, s);
      return s;
    },
    get(id) {
      let s = inUse.get(id);
      if (s === undefined) {
        s = unused.get(id);
        if (s === undefined) return undefined;
        unused.delete(id);
        makeRoomInUse(Date.now());
        inUse.set(id, s);
      }
      s.lastSeen = Date.now();
      s.usedAt = ++clock;
      return s;
    },
    end(id) {
      const s = inUse.get(id) ?? unused.get(id);
      if (!s) return false;
      terminate(s);
      return true;
    },
    get size() {
      return unused.size + inUse.size;
    },
    *streams() {
      // A GET marks its session used, so only the in-use pool can hold streams.
      for (const s of inUse.values()) if (s.getStream && !s.getStream.closed) yield s.getStream;
    },
    busyIds() {
      const ids: string[] = [];
      for (const s of inUse.values()) if (isBusy(s)) ids.push(s.id);
      return ids;
    },
    closeAll() {
      for (const s of [...unused.values(), ...inUse.values()]) terminate(s);
    },
  };
}
