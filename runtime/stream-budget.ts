// The budget of every long-lived stream a caller can hold open: REST live streams
// (rest/live.ts), MCP GET streams (mcp/session-verbs.ts) and `subscriptions/listen`
// (mcp/listen.ts). One per process (the runtime instance's, so a `--watch` swap keeps its count), shared
// by all three, bounding (spec/security.md, "Streams and sessions"):
//
// - how many streams are open, in all and per caller: one more is refused (503, Retry-After);
// - the unsent bytes all streams hold together: past it, a stream whose client has not taken
//   what it was sent is overflowed (closed) instead of being sent more, and replays wait;
// - how long a stream may sit with its client not reading (its queue above `drainedBytes`):
//   then its connection is cut, and what it held is freed.
//
// Each stream (../sse.ts) keeps its own per-stream bound; this module only sees the totals. It
// does no work while no stream is open: the sweep runs only then.

import type { Principal } from "../model/principal.js";

/** What the budget reads of a stream and may do to it. */
export interface BudgetedStream {
  /** Bytes sent to the stream that its client has not taken yet (0 when the stream cannot tell). */
  queuedBytes(): number;
  /** True while the client has not taken what it was sent (beyond `drainedBytes`, or any frame). */
  isBacklogged(): boolean;
  /** Cuts the connection: what the stream holds is dropped. */
  abort(): void;
}

export interface StreamLimits {
  /** Streams open at once, all kinds together. */
  maxStreams: number;
  /** Streams one caller (streamCallerOf) may hold open at once. */
  maxStreamsPerCaller: number;
  /** Unsent bytes all streams may hold together. */
  maxQueuedBytes: number;
  /** How long a stream may stay backlogged before its connection is cut. */
  stallMs: number;
}

export const defaultStreamLimits: StreamLimits = {
  maxStreams: 10_000,
  maxStreamsPerCaller: 10_000,
  maxQueuedBytes: 64 * 1024 * 1024,
  stallMs: 30_000,
};

/**
 * A stream's queue counts as taken (the client keeps up) at or below this many bytes; a replay
 * queues no more than this before it waits for the client (rest/live.ts).
 */
export const drainedBytes = 64 * 1024;

/** Why a stream was not opened, and when to try again. */
export interface StreamRefusal {
  refused: true;
  detail: string;
  retryAfterSeconds: number;
}

/** A place for one stream, held from admission to its close. */
export interface StreamSlot {
  /** The stream this slot is for: the budget watches it from now on. */
  attach(stream: BudgetedStream): void;
  /** Counts bytes just queued on the stream (the sweep recounts exactly). */
  charge(bytes: number): void;
  /** True while the streams together hold more unsent bytes than the budget. */
  isOverBudget(): boolean;
  /** Resolves once they are within it again. */
  whenUnderBudget(): Promise<void>;
  /** Resolves at a replay's turn to send one page (StreamBudget.replayTurn). */
  replayTurn(): Promise<void>;
  /** Frees the slot (idempotent). */
  release(): void;
}

/**
 * Who a stream is counted against: a named token's or a JWT's principal by its name, whatever
 * address it comes from; the owner and anonymous callers, who share one principal each, by the
 * remote address of the connection; in process (no socket), one caller, "local".
 */
export function streamCallerOf(
  socket: { remoteAddress?: string | undefined } | undefined,
  principal?: Principal,
): string {
  if (principal && (principal.via === "token" || principal.via === "jwt")) return `${principal.via}:${principal.name}`;
  return socket?.remoteAddress ?? "local";
}

interface Member {
  caller: string;
  stream?: BudgetedStream;
  /** When the stream was first seen backlogged in a row of sweeps. */
  backloggedSince?: number;
}

/** How often the sweep recounts the bytes and looks for stalled streams (at most). */
const sweepEveryMs = 250;

export class StreamBudget {
  private readonly members = new Set<Member>();
  private readonly perCaller = new Map<string, number>();
  /** Unsent bytes of all streams: exact at each sweep, plus what was charged since. */
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];

  constructor(readonly limits: StreamLimits = defaultStreamLimits) {}

  get openCount(): number {
    return this.members.size;
  }

  /** True while the streams together hold more unsent bytes than the budget. */
  get isOverBudget(): boolean {
    return this.queued > this.limits.maxQueuedBytes;
  }

  /** A slot for one more stream of `caller`, or why not. */
  admit(caller: string): StreamSlot | StreamRefusal {
    if (this.members.size >= this.limits.maxStreams)
      return refusal(`The server has ${this.limits.maxStreams} streams open, its limit; retry shortly.`);
    const held = this.perCaller.get(caller) ?? 0;
    if (held >= this.limits.maxStreamsPerCaller)
      return refusal(`This client has ${held} streams open, the limit per client; close one and retry.`);
    const member: Member = { caller };
    this.members.add(member);
    this.perCaller.set(caller, held + 1);
    this.timer ??= setInterval(() => this.sweep(), Math.min(sweepEveryMs, this.limits.stallMs / 4)).unref();
    let released = false;
    return {
      attach: (stream) => {
        if (!released) member.stream = stream;
      },
      charge: (bytes) => {
        this.queued += bytes;
      },
      isOverBudget: () => this.isOverBudget,
      whenUnderBudget: () => this.whenUnderBudget(),
      replayTurn: () => this.replayTurn(),
      release: () => {
        if (released) return;
        released = true;
        this.members.delete(member);
        const n = (this.perCaller.get(caller) ?? 1) - 1;
        if (n > 0) this.perCaller.set(caller, n);
        else this.perCaller.delete(caller);
        if (this.members.size === 0) {
          clearInterval(this.timer);
          this.timer = undefined;
          this.queued = 0;
          this.wake();
        }
      },
    };
  }

  /**
   * Resolves at the replay's turn: one page of one replay per turn of the event loop, across
   * the process. A page to a socket the kernel still takes from is sent at once, so without
   * turns a few hundred replays would each send a page before the next request is read.
   */
  replayTurn(): Promise<void> {
    return new Promise((resolve) => {
      this.turns.push(resolve);
      if (!this.isPumping) {
        this.isPumping = true;
        setImmediate(this.pump);
      }
    });
  }

  private turns: (() => void)[] = [];
  private isPumping = false;
  private readonly pump = () => {
    this.turns.shift()?.();
    if (this.turns.length > 0) setImmediate(this.pump);
    else this.isPumping = false;
  };

  /** Resolves once the streams together are within the budget again. */
  whenUnderBudget(): Promise<void> {
    if (!this.isOverBudget) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Recounts the bytes; cuts streams backlogged for longer than stallMs. */
  sweep(now = Date.now()): void {
    let total = 0;
    for (const m of [...this.members]) {
      const s = m.stream;
      if (!s) continue;
      if (!s.isBacklogged()) {
        m.backloggedSince = undefined;
        total += s.queuedBytes();
        continue;
      }
      m.backloggedSince ??= now;
      if (now - m.backloggedSince >= this.limits.stallMs) s.abort();
      else total += s.queuedBytes();
    }
    this.queued = total;
    if (!this.isOverBudget) this.wake();
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}

function refusal(detail: string): StreamRefusal {
  return { refused: true, detail, retryAfterSeconds: 5 };
}

export function isRefusal(x: unknown): x is StreamRefusal {
  return typeof x === "object" && x !== null && (x as StreamRefusal).refused === true;
}
