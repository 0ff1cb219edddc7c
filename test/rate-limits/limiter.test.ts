// The rate limiter on its own (runtime/operations/rate-limit.ts) with a clock the test moves,
// and the shared buckets of PostgreSQL (runtime/store/postgres/rate-buckets.ts) on a real
// server: the bucket's size is the burst, it refills continuously, callers and kinds have
// buckets of their own, the owner is not limited, and two pools taking from one bucket at once
// never spend more than it holds.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CallContext } from "../../model/build-contract.js";
import { RateLimitedError } from "../../model/errors.js";
import { anonymousPrincipal, ownerPrincipal, type Principal } from "../../model/principal.js";
import { createRateLimiter, rateKindOf, type RateLimiter } from "../../runtime/operations/rate-limit.js";
import { pgCreateRateBucketTableSql, pgRateBuckets } from "../../runtime/store/postgres/rate-buckets.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const named = (name: string): Principal => ({ name, user: null, role: "agent", via: "token" });
const as = (principal: Principal, caller?: string): CallContext => ({
  principal,
  surface: "rest",
  ...(caller ? { caller } : {}),
});
const alice = as(named("alice"), "token:alice");
const bob = as(named("bob"), "token:bob");

/** Takes `n` tokens synchronously; the refusal of the first that fails, or undefined. */
function takeN(limiter: RateLimiter, kind: "reads" | "writes" | "calls", call: CallContext, n: number) {
  for (let i = 0; i < n; i++) {
    try {
      expect(limiter.take(kind, call)).toBeUndefined();
    } catch (err) {
      return { at: i, err: err as RateLimitedError };
    }
  }
  return undefined;
}

describe("the rate limiter in memory", () => {
  it("is absent when no kind is limited", () => {
    expect(createRateLimiter(undefined)).toBeUndefined();
    expect(createRateLimiter({})).toBeUndefined();
  });

  it("admits a burst of the per-minute figure, refuses the next with the wait, and refills continuously", () => {
    let now = 1_000_000;
    const refusals: string[] = [];
    const limiter = createRateLimiter({ reads: 5 }, { now: () => now, onRefused: (k) => refusals.push(k) })!;
    expect(takeN(limiter, "reads", alice, 5)).toBeUndefined();
    const refused = takeN(limiter, "reads", alice, 1)!;
    expect(refused.err).toBeInstanceOf(RateLimitedError);
    expect(refused.err.kind).toBe("rate_limited");
    // 5 a minute: one token every 12 s.
    expect(refused.err.retryAfterSeconds).toBe(12);
    expect(refused.err.message).toBe(
      "retry in 12 s: each caller may make 5 reads a minute, and this one made them; nothing ran.",
    );
    // Another caller has a bucket of its own.
    expect(takeN(limiter, "reads", bob, 5)).toBeUndefined();
    // 6 s later half a token is back: still refused, and the wait is what is left (rounded up).
    now += 6_000;
    expect(takeN(limiter, "reads", alice, 1)?.err.retryAfterSeconds).toBe(6);
    now += 6_000;
    expect(takeN(limiter, "reads", alice, 1)).toBeUndefined();
    expect(takeN(limiter, "reads", alice, 1)?.at).toBe(0);
    // A minute of quiet fills the bucket again, never beyond its size.
    now += 600_000;
    expect(takeN(limiter, "reads", alice, 6)?.at).toBe(5);
    expect(refusals).toEqual(["reads", "reads", "reads", "reads"]);
    expect(limiter.stats().refused).toEqual({ reads: 4, writes: 0, calls: 0 });
  });

  it("keeps a bucket per kind, leaves unlimited kinds and the owner alone, and waits at least 1 s", () => {
    const now = 5_000;
    const limiter = createRateLimiter({ writes: 2, calls: 6000 }, { now: () => now })!;
    expect(takeN(limiter, "writes", alice, 2)).toBeUndefined();
    expect(takeN(limiter, "writes", alice, 1)?.err.retryAfterSeconds).toBe(30);
    expect(takeN(limiter, "calls", alice, 6000)).toBeUndefined();
    // 100 a second: the next token is 10 ms away, said as 1 s (Retry-After is whole seconds).
    expect(takeN(limiter, "calls", alice, 1)?.err.retryAfterSeconds).toBe(1);
    expect(takeN(limiter, "reads", alice, 1000)).toBeUndefined();
    expect(takeN(limiter, "writes", as(ownerPrincipal), 100)).toBeUndefined();
    expect(takeN(limiter, "writes", {}, 100)).toBeUndefined();
  });

  it("keys anonymous callers by their address", () => {
    const limiter = createRateLimiter({ reads: 1 }, { now: () => 0 })!;
    expect(takeN(limiter, "reads", as(anonymousPrincipal, "10.0.0.1"), 1)).toBeUndefined();
    expect(takeN(limiter, "reads", as(anonymousPrincipal, "10.0.0.1"), 1)?.at).toBe(0);
    expect(takeN(limiter, "reads", as(anonymousPrincipal, "10.0.0.2"), 1)).toBeUndefined();
  });

  it("forgets the longest quiet callers past its bound", () => {
    const limiter = createRateLimiter({ reads: 1 }, { now: () => 0, maxCallers: 2 })!;
    const c = (n: number) => as(named(`c${n}`), `token:c${n}`);
    expect(takeN(limiter, "reads", c(1), 1)).toBeUndefined();
    expect(takeN(limiter, "reads", c(2), 1)).toBeUndefined();
    expect(takeN(limiter, "reads", c(3), 1)).toBeUndefined();
    // c1 was forgotten (a full bucket again); c3 is still remembered as empty.
    expect(takeN(limiter, "reads", c(1), 1)).toBeUndefined();
    expect(takeN(limiter, "reads", c(3), 1)?.at).toBe(0);
  });

  it("counts operations by kind: reads, writes, method calls", () => {
    expect(["list", "get", "me", "relation"].map((k) => rateKindOf(k as never))).toEqual(Array(4).fill("reads"));
    expect(["create", "update", "delete", "link", "unlink"].map((k) => rateKindOf(k as never))).toEqual(
      Array(5).fill("writes"),
    );
    expect(rateKindOf("method")).toBe("calls");
  });
});

describe("shared buckets on PostgreSQL", () => {
  let server: PostgresServer;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    for (const pool of pools) await pool.end();
    await server?.stop();
  });

  it("two instances taking from one bucket at once spend exactly what it holds", async () => {
    const url = await server.createDatabase();
    const [a, b] = [0, 1].map(() => {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      pools.push(pool);
      return pool;
    });
    await a!.query(pgCreateRateBucketTableSql);
    const query = (pool: pg.Pool) => (text: string, values: unknown[]) => pool.query(text, values);
    const one = pgRateBuckets(query(a!));
    const two = pgRateBuckets(query(b!));
    // 10 a minute; 20 takes at once, half from each: exactly 10 get a token.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).take("reads:token:alice", 10, 10 / 60)),
    );
    expect(answers.filter((x) => x.taken)).toHaveLength(10);
    const refused = answers.filter((x) => !x.taken);
    // The next token is 6 s away (less the little time the takes took).
    for (const r of refused) {
      expect(r.waitSeconds).toBeGreaterThan(4);
      expect(r.waitSeconds).toBeLessThanOrEqual(6);
    }
    // Another key is another bucket.
    expect((await one.take("reads:token:bob", 10, 10 / 60)).taken).toBe(true);
    // Through the limiter: the shared refusal is noted locally, so the next is refused without asking.
    let asked = 0;
    const counting = pgRateBuckets((text, values) => {
      asked++;
      return a!.query(text, values);
    });
    const limiter = createRateLimiter({ reads: 10 }, { buckets: counting })!;
    await expect(limiter.take("reads", alice)).rejects.toBeInstanceOf(RateLimitedError);
    expect(asked).toBe(1);
    expect(() => limiter.take("reads", alice)).toThrow(RateLimitedError);
    expect(asked).toBe(1);
    await expect(limiter.take("reads", bob)).resolves.toBeUndefined();
    expect(asked).toBe(2);
  });
});
