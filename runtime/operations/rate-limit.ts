// Per-caller rate limits (spec/operations.md, "Rate limits"): `[limits] reads_per_minute`,
// `writes_per_minute`, `calls_per_minute`. Each caller has a token bucket per kind, as big as the
// per-minute figure (the burst it may send at once) and refilled continuously at that rate; a
// call that finds its bucket empty is refused with RateLimitedError before it takes a
// concurrency slot or opens a transaction (runtime/operations/bind.ts), so nothing of it runs.
//
// Who is a caller: a named token's or a JWT's principal by its name, an anonymous caller by its
// address (CallContext.caller, the key streams are counted by: runtime/stream-budget.ts). The
// owner is not limited: it is the operator, whose own tools (and every caller of an app with no
// identity source) must not be locked out of the app by a limit meant for its clients.
//
// Where the buckets live: in a store that several instances share (PostgreSQL), in its
// `_wo_rate_buckets` (runtime/store/postgres/rate-buckets.ts), one atomic statement per call;
// otherwise in this process's memory. In front of the shared buckets a local note of each
// bucket found empty answers that caller's next calls at once until a token can be there again:
// other instances only ever take from a bucket, never add, so the note is never wrong, and a
// caller looping on a refusal costs the database nothing.

import type { RateKind, RateLimits } from "../../model/app.js";
import type { CallContext, OperationKind } from "../../model/build-contract.js";
import { RateLimitedError, OperationError } from "../../model/errors.js";
import { isOwner } from "../../model/principal.js";
import { StoreUnavailableError, type BucketTake, type RateBucketDirectory } from "../../model/store.js";
import { streamCallerOf } from "../stream-budget.js";

/** The rate kind an operation is counted in: method calls apart, then reads and writes. */
export function rateKindOf(kind: OperationKind): RateKind {
  switch (kind) {
    case "list":
    case "get":
    case "me":
    case "relation":
      return "reads";
    case "create":
    case "update":
    case "delete":
    case "link":
    case "unlink":
      return "writes";
    case "method":
      return "calls";
  }
}

export interface RateLimiter {
  /**
   * Takes one `kind` token of the call's caller. Returns undefined when the call is admitted at
   * once, a promise when the shared buckets are asked; throws (or rejects with) RateLimitedError
   * when the bucket is empty. Owner calls and unlimited kinds are always admitted.
   */
  take(kind: RateKind, call: CallContext): Promise<void> | undefined;
  /** Calls refused so far, by kind, since the process started. */
  stats(): { refused: Record<RateKind, number> };
}

export interface RateLimiterOptions {
  /** The shared buckets (PostgreSQL); absent: buckets in this process's memory. */
  buckets?: RateBucketDirectory;
  /** Told of every refusal (the metrics' `wo_rate_limited_total{kind}`). */
  onRefused?: (kind: RateKind) => void;
  /** Milliseconds; tests move it. */
  now?: () => number;
  /** Callers whose buckets are kept in memory at most (default 100,000). */
  maxCallers?: number;
}

const perWord: Record<RateKind, string> = { reads: "reads", writes: "writes", calls: "method calls" };

/** Undefined when no kind is limited: the pipeline then has nothing to ask. */
export function createRateLimiter(
  limits: RateLimits | undefined,
  options: RateLimiterOptions = {},
): RateLimiter | undefined {
  if (limits === undefined || Object.values(limits).every((v) => v === undefined)) return undefined;
  const now = options.now ?? Date.now;
  const maxCallers = options.maxCallers ?? 100_000;
  const refused: Record<RateKind, number> = { reads: 0, writes: 0, calls: 0 };
  const local = new MemoryBuckets(maxCallers);
  // Shared buckets: when each caller's empty bucket can hold a token again (this process's clock).
  const emptyUntil = new BoundedMap<number>(maxCallers);

  const refuse = (kind: RateKind, waitSeconds: number): never => {
    refused[kind]++;
    options.onRefused?.(kind);
    const seconds = Math.max(1, Math.ceil(waitSeconds));
    throw new RateLimitedError(
      `retry in ${seconds} s: each caller may make ${limits[kind]} ${perWord[kind]} a minute, and this one made them; nothing ran.`,
      seconds,
    );
  };

  const take = (kind: RateKind, call: CallContext): Promise<void> | undefined => {
    const perMinute = limits[kind];
    if (perMinute === undefined || isOwner(call.principal)) return undefined;
    // A named principal by its name; an anonymous one by the address its surface gave.
    const key = `${kind}:${call.caller ?? streamCallerOf(undefined, call.principal)}`;
    const perSecond = perMinute / 60;
    const at = now();
    const shared = options.buckets;
    if (!shared) {
      const answer = local.take(key, perMinute, perSecond, at);
      return answer.taken ? undefined : refuse(kind, answer.waitSeconds);
    }
    const until = emptyUntil.get(key);
    if (until !== undefined) {
      if (at < until) return refuse(kind, (until - at) / 1000);
      emptyUntil.delete(key);
    }
    return shared.take(key, perMinute, perSecond).then(
      (answer: BucketTake) => {
        if (answer.taken) return;
        emptyUntil.set(key, at + answer.waitSeconds * 1000);
        refuse(kind, answer.waitSeconds);
      },
      (err: unknown) => {
        if (err instanceof StoreUnavailableError)
          throw new OperationError("unavailable", "The database cannot be reached; nothing was done. Retry shortly.");
        throw err;
      },
    );
  };

  return { take, stats: () => ({ refused: { ...refused } }) };
}

/**
 * A Map that keeps at most `max` keys: one more evicts the least recently set. A key set again
 * moves to the end, so the callers evicted are the ones longest quiet.
 */
class BoundedMap<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

interface Bucket {
  tokens: number;
  /** Milliseconds: when it was last refilled. */
  at: number;
}

/**
 * Buckets of one process. A bucket that would be full again is the same as none, so the
 * longest quiet callers are the ones forgotten when there are too many; a bucket forgotten
 * before it refilled gives its caller a full one, which only a flood of distinct callers causes.
 */
class MemoryBuckets {
  private readonly buckets: BoundedMap<Bucket>;
  constructor(max: number) {
    this.buckets = new BoundedMap(max);
  }
  take(key: string, capacity: number, perSecond: number, at: number): BucketTake {
    const bucket = this.buckets.get(key);
    const level =
      bucket === undefined
        ? capacity
        : Math.min(capacity, bucket.tokens + (Math.max(0, at - bucket.at) / 1000) * perSecond);
    const taken = level >= 1;
    this.buckets.set(key, { tokens: taken ? level - 1 : level, at: Math.max(at, bucket?.at ?? at) });
    return { taken, waitSeconds: taken ? 0 : (1 - level) / perSecond };
  }
}
