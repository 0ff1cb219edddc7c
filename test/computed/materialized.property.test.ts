// `@materialized` (spec/language.md, "Computed fields"): a random sequence of writes — orders
// and lines created, changed, moved between orders, deleted, some refused by a check or a
// reference — against a real `wo run` keeps every order's stored `total` equal to its expression
// recomputed from scratch (the sum of its lines' amounts, read back over REST), and the
// evaluated `n` equal to the count of its lines.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { post } from "../methods/wo-process.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { shopWo } from "./shop-app.js";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

type Write =
  | { kind: "order" }
  | { kind: "deleteOrder"; pick: number }
  | { kind: "line"; pick: number; amount: number }
  | { kind: "amend"; pick: number; amount: number }
  | { kind: "move"; pick: number; to: number }
  | { kind: "deleteLine"; pick: number };

const amount = fc.integer({ min: 0, max: 40 }); // 0 breaks the line's @check(> 0): refused, nothing changes
const pick = fc.nat(1000);
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.constant({ kind: "order" as const }),
  fc.record({ kind: fc.constant("deleteOrder" as const), pick }),
  fc.record({ kind: fc.constant("line" as const), pick, amount }),
  fc.record({ kind: fc.constant("amend" as const), pick, amount }),
  fc.record({ kind: fc.constant("move" as const), pick, to: pick }),
  fc.record({ kind: fc.constant("deleteLine" as const), pick }),
);

async function send(base: string, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

async function all(base: string, path: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await fetch(`${base}${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const page = (await res.json()) as { items: any[]; nextCursor?: string | null };
    rows.push(...page.items);
    if (!page.nextCursor) return rows;
    cursor = page.nextCursor;
  }
}

describe("@materialized under random writes", () => {
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    dir = writeApp("shop", { "app/shop.wo": shopWo });
    wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("every order's total stays the sum of its lines' amounts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
        const base = wo.url;
        const orders: number[] = [(await post(base, "/api/orders", { name: "seed" })).body.id];
        const lines: number[] = [];
        const of = <T>(list: T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);
        for (const w of writes) {
          switch (w.kind) {
            case "order":
              orders.push((await post(base, "/api/orders", { name: "o" })).body.id);
              break;
            case "deleteOrder": {
              const id = of(orders, w.pick)!;
              // Refused (409) while lines refer to it.
              if ((await send(base, "DELETE", `/api/orders/${id}`)) < 300) orders.splice(orders.indexOf(id), 1);
              break;
            }
            case "line": {
              const res = await post(base, "/api/lines", { order: of(orders, w.pick), amount: w.amount });
              if (res.status === 201) lines.push(res.body.id);
              else expect(res.status).toBe(400);
              break;
            }
            case "amend": {
              const id = of(lines, w.pick);
              if (id !== undefined) await send(base, "PATCH", `/api/lines/${id}`, { amount: w.amount });
              break;
            }
            case "move": {
              const id = of(lines, w.pick);
              if (id !== undefined) await send(base, "PATCH", `/api/lines/${id}`, { order: of(orders, w.to) });
              break;
            }
            case "deleteLine": {
              const id = of(lines, w.pick);
              if (id !== undefined && (await send(base, "DELETE", `/api/lines/${id}`)) < 300)
                lines.splice(lines.indexOf(id), 1);
              break;
            }
          }
        }
        // From scratch: every line, grouped by its order.
        const allLines = await all(base, "/api/lines");
        for (const order of await all(base, "/api/orders")) {
          const mine = allLines.filter((l) => l.order === order.id);
          expect(order.total).toBe(mine.reduce((s, l) => s + l.amount, 0));
          expect(order.n).toBe(mine.length);
        }
        // And the stored column answers filters the same way.
        const probe = (await all(base, "/api/orders"))[0];
        if (probe) {
          const filtered = await fetch(`${base}/api/orders?total=${probe.total}&limit=100`).then((r) => r.json());
          expect((filtered as { items: any[] }).items.map((r) => r.id)).toContain(probe.id);
        }
      }),
      { numRuns: 25 },
    );
  });
});
