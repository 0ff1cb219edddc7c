// The run budget on its own (runtime/operations/run-budget.ts, the steps of body-helpers.ts):
// how many steps a run gets, that it hands the event loop back while it runs, that an aborted
// signal ends it at its next check, and that expect_abort's helper rethrows what ended it.
import { describe, expect, it } from "vitest";
import type { RunKind } from "../../model/app.js";
import { OperationError } from "../../model/errors.js";
import { createBodyHelpers } from "../../runtime/operations/body-helpers.js";
import { budgeted, RunEndedError, type RunBudget } from "../../runtime/operations/run-budget.js";
import type { CallContext } from "../../model/build-contract.js";

const abort = (message: string): never => {
  throw new OperationError("aborted", message);
};

function setup(steps: number, millis = 60_000) {
  const helpers = createBodyHelpers({ abort, invalid: abort });
  /** A run of `body` as rt.budgeted makes it, started on a transaction of no store. */
  const run = <T>(kind: RunKind, what: string, call: CallContext, body: (budget: RunBudget) => Promise<T>) =>
    budgeted(kind, what, { steps, millis }, call, (_tx: object, budget) => body(budget))({});
  return { helpers, run };
}

/** A loop as compiled bodies write it: `if (--budget.left <= 0) await budget.check();` per iteration. */
async function spin(budget: RunBudget, iterations: number): Promise<number> {
  let n = 0;
  for (let i = 0; i < iterations; i++) {
    if (--budget.left <= 0) await budget.check();
    n++;
  }
  return n;
}

describe("run budget", () => {
  it("lets a run take its steps and ends it at the limit with the message naming the key", async () => {
    const { run } = setup(2500);
    expect(await run("method", "Method A.m", {}, (b) => spin(b, 2499))).toBe(2499);
    await expect(run("method", "Method A.m", {}, (b) => spin(b, 2500))).rejects.toThrow(
      "Method A.m exceeded its run budget of 2,500 steps ([limits] method_steps in wo.toml); nothing was changed.",
    );
  });

  it("counts nested calls as steps, on the same budget as loop iterations", async () => {
    const { helpers, run } = setup(1000);
    const call = (b: RunBudget, d: number): Promise<number> =>
      d === 0 ? Promise.resolve(1) : helpers.nested(b, "a.wo:1", () => call(b, d - 1));
    await expect(run("test", 'Test "t"', {}, (b) => call(b, 99))).resolves.toBe(1);
    const both = run("test", 'Test "t"', {}, async (b) => {
      for (let i = 0; i < 11; i++) await call(b, 99);
    });
    await expect(both).rejects.toThrow(/Test "t" exceeded its run budget of 1,000 steps \(\[limits\] test_steps/);
  });

  it("ends a run past its time and hands the event loop back meanwhile", async () => {
    const { run } = setup(1e12, 300);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const t0 = performance.now();
    try {
      await expect(run("exec", "main", {}, (b) => spin(b, 1e12))).rejects.toThrow(
        "main exceeded its run budget of 300 ms ([limits] exec_millis in wo.toml); nothing was changed.",
      );
    } finally {
      clearInterval(timer);
    }
    expect(performance.now() - t0).toBeLessThan(3_000);
    // A timer every 20 ms fired during the run: it never kept the loop to itself.
    expect(ticks).toBeGreaterThan(3);
  });

  it("ends a run at its next check once the caller's signal aborts, and not before it started", async () => {
    const { run } = setup(1e12);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const call = { signal: caller.signal };
    const err = await run("method", "Method A.m", call, (b) => spin(b, 1e12)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunEndedError);
    expect((err as OperationError).kind).toBe("cancelled");
    await expect(run("method", "Method A.m", call, (b) => spin(b, 1))).rejects.toMatchObject({ kind: "cancelled" });
  });

  it("abortMessage gives an abort's message and rethrows an ended run", () => {
    const { helpers } = setup(10);
    expect(helpers.abortMessage(new OperationError("aborted", "no stock"))).toBe("no stock");
    const ended = new RunEndedError("aborted", "Method A.m exceeded its run budget");
    expect(() => helpers.abortMessage(ended)).toThrow(ended);
  });

  it("concat joins like text and refuses past 16 Mi characters", () => {
    const { helpers } = setup(10);
    expect(helpers.concat("n = ", 3, "a.wo:1")).toBe("n = 3");
    expect(helpers.concat(null, true, "a.wo:1")).toBe("nulltrue");
    const half = "x".repeat(8 * 1024 * 1024);
    expect(helpers.concat(half, half, "a.wo:1").length).toBe(16 * 1024 * 1024);
    expect(() => helpers.concat(half, `${half}!`, "a.wo:2")).toThrow(
      "text longer than 16,777,216 characters (the longest a body may build) at a.wo:2",
    );
  });
});
