// Bounded concurrency (spec/security.md, "Limits and their defaults"): at most `running`
// operations execute at once, up to `queued` more wait their turn in arrival order, and
// anything beyond that is refused at once with OperationError("busy") — REST 503 with
// Retry-After, an MCP tool error — instead of piling up memory and latency for everyone. One
// limiter serves every bound operation (runtime/operations/bind.ts takes a slot after
// validation and the policy), so REST and MCP share one budget; under `wo run --watch` the
// builds swapped in share it too.
//
// At shutdown (`shutdown` aborted) calls still waiting have not started, so nothing of theirs
// is committed: they are refused as busy ("shutting down"), as is every new call, while the
// running ones finish.

import type { CallContext, Operation } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";

export interface ConcurrencyLimit {
  running: number;
  queued: number;
}

const shuttingDown = () =>
  new OperationError("busy", "The server is shutting down; the call was not started and nothing changed.");

/**
 * A slot per running call: `acquire` takes one (a promise only when the call has to wait; it
 * throws at once when refused) and `release` gives it back, exactly once per acquired slot.
 */
export interface ConcurrencyLimiter {
  acquire(call: CallContext): Promise<void> | undefined;
  release(): void;
  /** Calls holding a slot now, and calls waiting for one (the admin listener's gauges). */
  readonly running: number;
  readonly queued: number;
}

export function createConcurrencyLimit(limit: ConcurrencyLimit, shutdown?: AbortSignal): ConcurrencyLimiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const refusals = new Map<() => void, () => void>();
  shutdown?.addEventListener(
    "abort",
    () => {
      for (const grant of waiting.splice(0)) refusals.get(grant)?.();
    },
    { once: true },
  );

  const release = () => {
    const next = waiting.shift();
    if (next)
      next(); // the slot passes straight to the next caller: `active` is unchanged
    else active--;
  };

  const acquire = (call: CallContext): Promise<void> | undefined => {
    if (shutdown?.aborted) throw shuttingDown();
    if (active < limit.running) {
      active++;
      return undefined;
    }
    if (waiting.length >= limit.queued) {
      throw new OperationError(
        "busy",
        `The server is at its limit of ${limit.running} running and ${limit.queued} waiting calls; retry shortly.`,
      );
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        call.signal?.removeEventListener("abort", onAbort);
        refusals.delete(grant);
        resolve();
      };
      // A caller that gives up while waiting leaves the queue without taking a slot.
      const onAbort = () => {
        const at = waiting.indexOf(grant);
        if (at >= 0) waiting.splice(at, 1);
        refusals.delete(grant);
        reject(new OperationError("cancelled", "The call was cancelled before it started; nothing changed."));
      };
      call.signal?.addEventListener("abort", onAbort, { once: true });
      waiting.push(grant);
      refusals.set(grant, () => {
        call.signal?.removeEventListener("abort", onAbort);
        refusals.delete(grant);
        reject(shuttingDown());
      });
    });
  };

  return {
    acquire,
    release,
    get running() {
      return active;
    },
    get queued() {
      return waiting.length;
    },
  };
}

/** `operation` run only while holding a slot of `limiter`. */
export function withSlot(limiter: ConcurrencyLimiter, operation: Operation): Operation {
  return async (input, call) => {
    const wait = limiter.acquire(call);
    if (wait) await wait;
    try {
      return await operation(input, call);
    } finally {
      limiter.release();
    }
  };
}

/** Every operation of `operations` under one limiter. */
export function limitConcurrency(
  operations: Record<string, Operation>,
  limit: ConcurrencyLimit,
  shutdown?: AbortSignal,
): Record<string, Operation> {
  const limiter = createConcurrencyLimit(limit, shutdown);
  const limited: Record<string, Operation> = {};
  for (const [name, operation] of Object.entries(operations)) limited[name] = withSlot(limiter, operation);
  return limited;
}
