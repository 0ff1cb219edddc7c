// The stream budget's rules on their own (runtime/stream-budget.ts): the caps on streams in all
// and per caller, slots freed on release, the total of unsent bytes, and the stall timeout.
// The same rules against a real `wo run` are test/live/stream-budget.test.ts and stream-cap.test.ts.
import { expect, it } from "vitest";
import { isRefusal, StreamBudget, type StreamSlot } from "../../runtime/stream-budget.js";

const limits = { maxStreams: 3, maxStreamsPerCaller: 2, maxQueuedBytes: 1_000, stallMs: 1_000 };

it("refuses past the cap per caller and in all, with a retry time; a released slot is free again", () => {
  const budget = new StreamBudget(limits);
  const a1 = budget.admit("10.0.0.1") as StreamSlot;
  const a2 = budget.admit("10.0.0.1") as StreamSlot;
  const perCaller = budget.admit("10.0.0.1");
  expect(isRefusal(perCaller) && perCaller.detail).toMatch(/limit per client/);
  const b1 = budget.admit("10.0.0.2") as StreamSlot;
  const all = budget.admit("10.0.0.3");
  expect(isRefusal(all) && all.detail).toMatch(/3 streams open, its limit/);
  expect(isRefusal(all) && all.retryAfterSeconds).toBeGreaterThan(0);
  a1.release();
  a1.release(); // twice is once
  expect(budget.openCount).toBe(2);
  expect(isRefusal(budget.admit("10.0.0.1"))).toBe(false);
  for (const s of [a2, b1]) s.release();
});

it("counts unsent bytes in all; cuts a stream backlogged for the stall time, and only that one", () => {
  const budget = new StreamBudget(limits);
  const streams = [0, 1].map(() => {
    const slot = budget.admit("local") as StreamSlot;
    const s = { queued: 0, backlogged: false, aborted: false };
    slot.attach({
      queuedBytes: () => s.queued,
      isBacklogged: () => s.backlogged,
      abort: () => {
        s.aborted = true;
        slot.release();
      },
    });
    return { slot, s };
  });
  const [stalled, reading] = streams as [(typeof streams)[0], (typeof streams)[0]];
  stalled.slot.charge(1_500);
  expect(stalled.slot.isOverBudget()).toBe(true);
  stalled.s.queued = 1_500;
  stalled.s.backlogged = true;
  budget.sweep(10_000);
  expect(budget.isOverBudget).toBe(true);
  budget.sweep(10_500);
  expect(stalled.s.aborted).toBe(false);
  budget.sweep(11_000);
  expect(stalled.s.aborted).toBe(true);
  expect(reading.s.aborted).toBe(false);
  expect(budget.openCount).toBe(1);
  budget.sweep(11_250);
  expect(budget.isOverBudget).toBe(false);
  reading.slot.release();
});
