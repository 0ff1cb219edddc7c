// The run budget of language code (spec/security.md, "Budgets"): every method call, test,
// `main` and `on startup` run may take so many steps (a fn or method call, a loop iteration)
// and so many milliseconds, from when its transaction starts. Past either, or once the
// caller's signal aborts (a disconnect, MCP notifications/cancelled), the run ends with an
// OperationError and its transaction rolls back.
//
// Compiled bodies run on microtasks only (SQLite answers synchronously), so a long run would
// keep the event loop to itself: at every check it hands the loop back (setImmediate) once it
// has run `sliceMillis` on end, so /healthz and other callers are served meanwhile.
//
// A step costs a decrement and a compare (`left`); the clock is read once per `stepsPerCheck`.

import type { RunKind, RunLimits } from "../../model/app.js";
import type { CallContext, RunBudgetCounter } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";

/** Steps between two looks at the clock and the signal. */
export const stepsPerCheck = 1000;

/** How long a run keeps the event loop before it lets others run. */
export const sliceMillis = 10;

export class RunBudget implements RunBudgetCounter {
  /** Steps left until the next check; counted down by every step, the only per-step work. */
  left: number;
  /** How deep fn and method calls nest right now (rt.helpers.nested). */
  depth = 0;
  /** Steps taken before the current stretch. */
  private spent = 0;
  /** Steps the current stretch started with. */
  private stretch: number;
  private readonly deadline: number;
  private lastYield: number;
  private isCancelled = false;

  constructor(
    private readonly kind: RunKind,
    private readonly what: string,
    private readonly limits: RunLimits,
  ) {
    const now = performance.now();
    this.deadline = now + limits.millis;
    this.lastYield = now;
    this.stretch = this.left = Math.min(stepsPerCheck, limits.steps);
  }

  /** The caller gave up: the next step ends the run. */
  readonly cancel = (): void => {
    this.isCancelled = true;
    this.spent += this.stretch - this.left;
    this.stretch = this.left = 0;
  };

  /** At the end of a stretch: the limits, the signal, then the event loop's turn if it is due. */
  async check(): Promise<void> {
    if (this.isCancelled) throw cancelledError();
    this.spent += this.stretch - Math.max(this.left, 0);
    if (this.spent >= this.limits.steps) throw this.exceeded(this.limits.steps, "steps");
    const now = performance.now();
    if (now > this.deadline) throw this.exceeded(this.limits.millis, "millis");
    this.stretch = this.left = Math.min(stepsPerCheck, this.limits.steps - this.spent);
    if (now - this.lastYield >= sliceMillis) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.lastYield = performance.now();
      if (this.isCancelled) throw cancelledError();
    }
  }

  private exceeded(limit: number, unit: "steps" | "millis"): RunEndedError {
    const budget = `${limit.toLocaleString("en-US")} ${unit === "steps" ? "steps" : "ms"}`;
    return new RunEndedError(
      "aborted",
      `${this.what} exceeded its run budget of ${budget} ([limits] ${this.kind}_${unit} in wo.toml); nothing was changed.`,
    );
  }
}

/** A run ended from outside its code (budget, cancellation): no `expect_abort` catches it. */
export class RunEndedError extends OperationError {}

function cancelledError(): RunEndedError {
  return new RunEndedError("cancelled", "The call was cancelled before it committed; nothing was changed.");
}

/**
 * `body` as a store callback that runs under a budget of its own, handed to it with the
 * transaction (OperationRuntime.budgeted): the clock starts when the transaction does.
 */
export function budgeted<Tx, T>(
  kind: RunKind,
  what: string,
  limits: RunLimits,
  call: CallContext,
  body: (tx: Tx, budget: RunBudget) => Promise<T>,
): (tx: Tx) => Promise<T> {
  return async (tx) => {
    const signal = call.signal;
    if (signal?.aborted) throw cancelledError();
    const budget = new RunBudget(kind, what, limits);
    signal?.addEventListener("abort", budget.cancel, { once: true });
    try {
      return await body(tx, budget);
    } finally {
      signal?.removeEventListener("abort", budget.cancel);
    }
  };
}
