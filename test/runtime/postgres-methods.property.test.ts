// Methods running concurrently on two `wo run` instances over one PostgreSQL database
// (spec/storage.md, "Transactions"): random deposits and transfers of samples/ledger, all in
// flight at once, spread over both instances. Each call's answer (the account's balance after
// it, or "insufficient funds") must be explained by one serial order of every call, and the
// stored balances and entries must be exactly those of the acknowledged calls.

import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { post } from "../methods/wo-process.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

type Call =
  | { kind: "deposit"; on: number; account: number; amount: number }
  | { kind: "transfer"; on: number; account: number; to: number; amount: number };
/** What the caller observed: the account's balance after the call, or a refusal for lack of funds. */
type Answer = { ok: true; balance: number } | { ok: false };

const accountsPerRun = 3;
const opening = 60;

/**
 * Whether some order of all `calls` gives every one of `answers` from `start` (balances by
 * account index). A refused call changes nothing, so the balances after a set of calls do not
 * depend on their order: a search over subsets (2^n) decides it.
 */
function hasSerialOrder(calls: Call[], answers: Answer[], start: number[]): boolean {
  const done = new Set<number>();
  const balancesAfter = (mask: number) => {
    const b = [...start];
    calls.forEach((c, i) => {
      if (!(mask & (1 << i)) || !answers[i]!.ok) return;
      b[c.account]! += c.kind === "deposit" ? c.amount : -c.amount;
      if (c.kind === "transfer") b[c.to]! += c.amount;
    });
    return b;
  };
  const search = (mask: number): boolean => {
    if (mask === (1 << calls.length) - 1) return true;
    if (done.has(mask)) return false;
    done.add(mask);
    const b = balancesAfter(mask);
    return calls.some((c, i) => {
      if (mask & (1 << i)) return false;
      const a = answers[i]!;
      const fits =
        c.kind === "deposit"
          ? a.ok && a.balance === b[c.account]! + c.amount
          : b[c.account]! >= c.amount
            ? a.ok && a.balance === b[c.account]! - c.amount
            : !a.ok;
      return fits && search(mask | (1 << i));
    });
  };
  return search(0);
}

const callArb = fc.oneof(
  fc.record({
    kind: fc.constant("deposit" as const),
    on: fc.integer({ min: 0, max: 1 }),
    account: fc.integer({ min: 0, max: accountsPerRun - 1 }),
    amount: fc.integer({ min: 1, max: 40 }),
  }),
  fc
    .record({
      kind: fc.constant("transfer" as const),
      on: fc.integer({ min: 0, max: 1 }),
      account: fc.integer({ min: 0, max: accountsPerRun - 1 }),
      to: fc.integer({ min: 1, max: accountsPerRun - 1 }),
      amount: fc.integer({ min: 1, max: 90 }),
    })
    .map((c) => ({ ...c, to: (c.account + c.to) % accountsPerRun })),
);

describe("methods on two instances over one PostgreSQL database", () => {
  let server: PostgresServer;
  let url: string;
  const instances: WoProcess[] = [];
  const apps: string[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    for (let i = 0; i < 2; i++) {
      const dir = copyApp("samples/ledger");
      apps.push(dir);
      instances.push(await startWo([dir, "--db", url, "--listen", "127.0.0.1:0"]));
    }
  });
  afterAll(async () => {
    for (const wo of instances) await wo.stop();
    for (const dir of apps) removeApp(dir);
    await server?.stop();
  });

  it("random concurrent deposits and transfers: every answer fits one serial order, and the stored state is its end", async () => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(callArb, { minLength: 2, maxLength: 12 }), async (calls) => {
          // Fresh accounts for each run, so runs do not depend on each other.
          const ids: number[] = [];
          for (let i = 0; i < accountsPerRun; i++) {
            const created = await post(instances[i % 2]!.url, "/api/accounts", { owner: `p${i}` });
            expect(created.status).toBe(201);
            ids.push(created.body.id);
            expect(
              (await post(instances[0]!.url, `/api/accounts/${created.body.id}/deposit`, { amount: opening })).status,
            ).toBe(200);
          }
          const answers = await Promise.all(
            calls.map(async (c): Promise<Answer> => {
              const base = instances[c.on]!.url;
              const r =
                c.kind === "deposit"
                  ? await post(base, `/api/accounts/${ids[c.account]}/deposit`, { amount: c.amount })
                  : await post(base, `/api/accounts/${ids[c.account]}/transfer`, { to: ids[c.to], amount: c.amount });
              if (r.status === 200) return { ok: true, balance: r.body.balance };
              // Anything but a refusal for lack of funds (a 503, a deadlock) fails the property.
              expect({ status: r.status, body: r.body }).toMatchObject({ status: 409 });
              expect(JSON.stringify(r.body)).toContain("insufficient funds");
              return { ok: false };
            }),
          );
          const start = ids.map(() => opening);
          expect(hasSerialOrder(calls, answers, start), JSON.stringify({ calls, answers })).toBe(true);

          // The stored state is the end of that order: each balance is the opening plus the
          // acknowledged calls' deltas, and equals the sum of the account's entries.
          const expected = [...start];
          calls.forEach((c, i) => {
            if (!answers[i]!.ok) return;
            expected[c.account]! += c.kind === "deposit" ? c.amount : -c.amount;
            if (c.kind === "transfer") expected[c.to]! += c.amount;
          });
          const stored = await db.query(
            `SELECT a.id::int, a.balance::int, (SELECT COALESCE(sum(e.amount), 0)::int FROM entries e WHERE e.account = a.id) AS entries
             FROM accounts a WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`,
            [ids],
          );
          expect(stored.rows.map((r) => r.balance)).toEqual(expected);
          expect(stored.rows.map((r) => r.entries)).toEqual(expected);
        }),
        { numRuns: 25 },
      );
    } finally {
      await db.end();
    }
  });

  it("the serial-order check refuses answers no order explains", () => {
    const calls: Call[] = [
      { kind: "transfer", on: 0, account: 0, to: 1, amount: 50 },
      { kind: "transfer", on: 1, account: 0, to: 2, amount: 50 },
    ];
    // Both transfers of 50 out of 60 acknowledged: a lost update.
    expect(
      hasSerialOrder(
        calls,
        [
          { ok: true, balance: 10 },
          { ok: true, balance: 10 },
        ],
        [60, 0, 0],
      ),
    ).toBe(false);
    expect(hasSerialOrder(calls, [{ ok: true, balance: 10 }, { ok: false }], [60, 0, 0])).toBe(true);
  });
});
