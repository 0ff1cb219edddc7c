// Bounded concurrency over the operation handlers: a slot budget, a FIFO queue, and an
// immediate "busy" refusal past both — the same for REST and MCP since both call these.
import { describe, expect, it } from "vitest";
import { limitConcurrency } from "../../runtime/operations/limit.js";
import { OperationError } from "../../model/errors.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe("limitConcurrency", () => {
  it("runs at most `running` at once, queues `queued` more in order, refuses the rest as busy", async () => {
    const g = gate();
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const ops = limitConcurrency(
      {
        slow: async (input) => {
          started.push(input as number);
          active++;
          peak = Math.max(peak, active);
          await g.opened;
          active--;
          return input;
        },
      },
      { running: 2, queued: 3 },
    );
    const calls = [1, 2, 3, 4, 5].map((n) => ops.slow!(n, {}));
    await expect(ops.slow!(6, {})).rejects.toMatchObject({ kind: "busy" });
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2]);
    g.open();
    expect(await Promise.all(calls)).toEqual([1, 2, 3, 4, 5]);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    // Every slot came back: a new burst runs again.
    expect(await ops.slow!(7, {})).toBe(7);
  });

  it("a waiting call that is cancelled leaves the queue and never runs", async () => {
    const g = gate();
    const ran: string[] = [];
    const ops = limitConcurrency(
      {
        op: async (input) => {
          ran.push(input as string);
          await g.opened;
        },
      },
      { running: 1, queued: 5 },
    );
    const first = ops.op!("first", {});
    const controller = new AbortController();
    const second = ops.op!("second", { signal: controller.signal });
    const third = ops.op!("third", {});
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(OperationError);
    await expect(second).rejects.toMatchObject({ kind: "cancelled" });
    g.open();
    await Promise.all([first, third]);
    expect(ran).toEqual(["first", "third"]);
  });

  it("a failing operation releases its slot", async () => {
    const ops = limitConcurrency(
      {
        bad: async () => {
          throw new OperationError("not_found", "no");
        },
      },
      { running: 1, queued: 0 },
    );
    for (let i = 0; i < 3; i++) await expect(ops.bad!(null, {})).rejects.toMatchObject({ kind: "not_found" });
  });

  it("at shutdown, waiting calls are refused as busy without running, running ones finish, new ones are refused", async () => {
    const g = gate();
    const ran: string[] = [];
    const shutdown = new AbortController();
    const ops = limitConcurrency(
      {
        op: async (input) => {
          ran.push(input as string);
          await g.opened;
          return input;
        },
      },
      { running: 1, queued: 5 },
      shutdown.signal,
    );
    const running = ops.op!("running", {});
    const waiting = ops.op!("waiting", {});
    shutdown.abort();
    await expect(waiting).rejects.toMatchObject({ kind: "busy", message: expect.stringContaining("shutting down") });
    await expect(ops.op!("late", {})).rejects.toMatchObject({
      kind: "busy",
      message: expect.stringContaining("shutting down"),
    });
    g.open();
    expect(await running).toBe("running");
    expect(ran).toEqual(["running"]);
  });
});
