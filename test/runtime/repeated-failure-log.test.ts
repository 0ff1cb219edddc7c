// RepeatedFailureLog: a failure that persists is logged once, its repeats are summed up in at
// most one line per interval, and the first success ends it (spec/security.md, "Storage faults").
import { expect, it } from "vitest";
import { RepeatedFailureLog } from "../../runtime/repeated-failure-log.js";

const words = {
  repeats: (n: number, seconds: number) => `still failing: ${n} more in ${seconds} s`,
  over: (n: number) => `over after ${n}`,
};

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

it("logs the first failure, one summary per interval for the repeats, and the end", async () => {
  const lines: string[] = [];
  const log = new RepeatedFailureLog((l) => lines.push(l), words, 200);
  for (let i = 0; i < 50; i++) log.failed(`failure ${i}`);
  expect(lines).toEqual(["failure 0"]);
  await until(() => lines.length === 2);
  expect(lines).toEqual(["failure 0", "still failing: 49 more in 0 s"]);

  // A later repeat is summed up in a line of its own, an interval later.
  log.failed("failure 50");
  await until(() => lines.length === 3);
  expect(lines[2]).toBe("still failing: 1 more in 0 s");

  log.failed("failure 51");
  log.succeeded();
  log.succeeded();
  expect(lines.slice(3)).toEqual(["over after 52"]);

  // A new episode starts with its own first line.
  log.failed("again");
  expect(lines.slice(4)).toEqual(["again"]);
});
