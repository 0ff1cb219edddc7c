// Methods end to end: a real `wo run` of the samples, called through REST and the official
// MCP SDK client, with the SQLite file inspected directly (spec/language.md, "Method language").

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { copyApp, dumpDb, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { mcpClient, openTwoAccounts, post, transfersUntilKilled } from "./wo-process.js";

// Every suite starts `wo run` (a build first), some tests start it twice: allow for a busy
// two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const text = (r: any): string => r.content?.map((c: any) => c.text).join("") ?? "";

/** `wo run <app>` on a free port, its data in the app's own `.wo/data` (what dumpDb reads). */
const serve = (app: string): Promise<WoProcess> => startWo([app, "--listen", "127.0.0.1:0"]);

describe("samples/pricing: set_price, current_price, history", () => {
  let app: string;
  let wo: WoProcess;
  let mcp: Client;

  beforeAll(async () => {
    app = copyApp("samples/pricing");
    wo = await serve(app);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
  });

  it("exposes methods as tools with id + parameters", async () => {
    const { tools } = await mcp.listTools();
    const setPrice = tools.find((t) => t.name === "product_set_price")!;
    expect(setPrice.inputSchema.required).toEqual(["id", "amount"]);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["product_current_price", "product_history"]));
  });

  it("REST and MCP run the same method; results are rows", async () => {
    const created = await post(wo.url, "/api/products", { sku: "SKU-1", title: "Lamp" });
    expect(created.status).toBe(201);
    const id = created.body.id;

    const none = await mcp.callTool({ name: "product_current_price", arguments: { id } });
    expect(none.isError).toBe(true);
    expect(text(none)).toContain("this product has no price yet");

    const p1 = await post(wo.url, `/api/products/${id}/set_price`, { amount: 4999 });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ product: id, amount: 4999, currency: "EUR" });
    const p2 = await mcp.callTool({ name: "product_set_price", arguments: { id, amount: 3999 } });
    expect(p2.isError).toBeFalsy();
    // spec/schemas.md: a method tool's structured content is { result: <value> }.
    expect(p2.structuredContent).toMatchObject({ result: { product: id, amount: 3999 } });

    const current = await post(wo.url, `/api/products/${id}/current_price`, {});
    expect(current.body.amount).toBe(3999);
    const history = await mcp.callTool({ name: "product_history", arguments: { id } });
    expect(JSON.parse(text(history)).map((p: any) => p.amount)).toEqual([4999, 3999]);
  });

  it("errors: unknown row 404, bad arguments 400, abort 409 — and nothing changes", async () => {
    const { body } = await post(wo.url, "/api/products", { sku: "SKU-2", title: "Chair", status: "Discontinued" });
    const before = dumpDb(app);
    const missing = await post(wo.url, "/api/products/999/set_price", { amount: 5 });
    expect(missing.status).toBe(404);
    const bad = await post(wo.url, `/api/products/${body.id}/set_price`, { amount: "five" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("/amount");
    const negative = await post(wo.url, `/api/products/${body.id}/set_price`, { amount: -1 });
    expect(negative.status).toBe(409);
    expect(negative.body.detail).toBe("a price must be positive");
    const discontinued = await mcp.callTool({ name: "product_set_price", arguments: { id: body.id, amount: 100 } });
    expect(discontinued.isError).toBe(true);
    expect(text(discontinued)).toContain("a discontinued product cannot be repriced");
    const missingTool = await mcp.callTool({ name: "product_set_price", arguments: { id: 999, amount: 100 } });
    expect(missingTool.isError).toBe(true);
    expect(dumpDb(app)).toEqual(before);
    const get = await fetch(`${wo.url}/api/products/${body.id}/set_price`);
    expect(get.status).toBe(405);
  });
});

// A method that writes first and fails afterwards, in each way a call can fail.
const rollbackApp = {
  "wo.toml": 'name = "rollback"\n',
  "counter.wo": `class Counter {
  name: Text
  value: Int = 0
  logs: backlink Log.counter

  fn bump(by: Int, note: Text) -> Int in txn {
    update self set value = self.value + by
    insert Log { counter: self.id, note: note }
    assert self.value < 10 otherwise abort "too big"
    let q = 100 / (by - 4)
    insert Log { counter: by, note: "third" }
    return self.value
  }

  service rest "/api/counters" expose list, get, create, bump
  service mcp "/mcp" expose list, get, create, bump
}

class Log {
  counter: ref Counter
  note: Text @unique

  service rest "/api/logs" expose list
}
`,
};

describe("a failing method rolls back every write of the call", () => {
  let app: string;
  let wo: WoProcess;
  let mcp: Client;
  beforeAll(async () => {
    app = writeApp("rollback", rollbackApp);
    wo = await serve(app);
    mcp = await mcpClient(wo.url);
    await post(wo.url, "/api/counters", { name: "c" });
    await post(wo.url, "/api/counters", { name: "d" });
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
  });

  it("succeeds when nothing fails", async () => {
    const ok = await post(wo.url, "/api/counters/1/bump", { by: 2, note: "first" });
    expect(ok).toEqual({ status: 200, body: 2 });
  });

  // Each call first updates Counter 2 (and inserts a Log), then fails. The unique violation
  // uses the note "third", which the method's own last insert writes: whether or not the
  // successful bump above has run yet (tests may run shuffled), one of the call's two inserts
  // collides, after the update has been made.
  it.each([
    ["abort", { by: 20, note: "a" }, 409, "too big"],
    ["division by zero", { by: 4, note: "b" }, 409, "division by zero at counter.wo:10"],
    ["unique violation", { by: 1, note: "third" }, 409, "unique"],
    ["dangling ref", { by: 3, note: "c" }, 422, "no Counter with id 3"],
  ] as const)("%s: tables exactly as before", async (_what, args, status, message) => {
    const before = dumpDb(app);
    const res = await post(wo.url, "/api/counters/2/bump", args);
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body).toLowerCase()).toContain(message.toLowerCase());
    expect(dumpDb(app)).toEqual(before);
    const viaMcp = await mcp.callTool({ name: "counter_bump", arguments: { id: 2, ...args } });
    expect(viaMcp.isError).toBe(true);
    expect(text(viaMcp).toLowerCase()).toContain(message.toLowerCase());
    expect(dumpDb(app)).toEqual(before);
  });

  it("a dangling ref stored from an argument points at the argument, not the stored field", async () => {
    const res = await post(wo.url, "/api/counters/2/bump", { by: 3, note: "pointer" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ path: "/by", message: "no Counter with id 3 exists" }]);
    expect(res.body.detail).toContain("(by: no Counter with id 3 exists)");
  });
});

describe("samples/ledger: transfer under concurrency", () => {
  let app: string;
  let wo: WoProcess;
  beforeAll(async () => {
    app = copyApp("samples/ledger");
    wo = await serve(app);
  });
  afterAll(async () => {
    await wo?.stop();
  });

  it("100 concurrent transfers through REST and MCP never overdraw and conserve the total", async () => {
    for (const owner of ["a", "b", "c"]) await post(wo.url, "/api/accounts", { owner });
    await post(wo.url, "/api/accounts/1/deposit", { amount: 500 });
    await post(wo.url, "/api/accounts/2/deposit", { amount: 300 });
    const clients = await Promise.all([mcpClient(wo.url), mcpClient(wo.url)]);
    // Deterministic amounts, large enough that many transfers must be refused.
    const calls = Array.from({ length: 100 }, (_, i) => {
      const from = (i % 3) + 1;
      const to = ((i + 1) % 3) + 1;
      // Every tenth call asks for more than exists in total: it must be refused whatever the order.
      const amount = i % 10 === 9 ? 10_000 : 37 + ((i * 53) % 150);
      if (i % 2 === 0) return post(wo.url, `/api/accounts/${from}/transfer`, { to, amount }).then((r) => r.status);
      return clients[i % 4 === 1 ? 0 : 1]!.callTool({
        name: "account_transfer",
        arguments: { id: from, to, amount },
      }).then((r) => (r.isError ? (text(r).includes("insufficient funds") ? 409 : 500) : 200));
    });
    const statuses = await Promise.all(calls);
    await Promise.all(clients.map((c) => c.close()));
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(90);

    const db = dumpDb(app) as { accounts: any[]; entries: any[] };
    const total = db.accounts.reduce((n, a) => n + a.balance, 0);
    expect(total).toBe(800);
    for (const a of db.accounts) {
      expect(a.balance).toBeGreaterThanOrEqual(0);
      expect(db.entries.filter((e) => e.account === a.id).reduce((n, e) => n + e.amount, 0)).toBe(a.balance);
    }
    expect(db.entries.filter((e) => e.memo === "transfer out").length).toBe(ok);
    expect(db.entries.filter((e) => e.memo === "transfer in").length).toBe(ok);
  });
});

describe("samples/ledger: SIGKILL during a method load", () => {
  let wo: WoProcess | undefined;
  afterAll(async () => {
    await wo?.stop();
  });

  it("loses no acknowledged transfer and leaves no partial one", async () => {
    const app = copyApp("samples/ledger");
    wo = await serve(app);
    const base = wo.url;
    await openTwoAccounts(base);

    // Workers keep sending until the server is gone, so calls are in flight when it dies.
    const inFlight = 8;
    const { acked, sent } = await transfersUntilKilled(base, () => wo!.stop("SIGKILL"), inFlight);

    const db = dumpDb(app, { afterCrash: true }) as { accounts: any[]; entries: any[] };
    const outs = db.entries.filter((e) => e.memo === "transfer out").length;
    const ins = db.entries.filter((e) => e.memo === "transfer in").length;
    expect(outs).toBe(ins); // no half of a transfer
    expect(outs).toBeGreaterThanOrEqual(acked); // nothing acknowledged is lost
    expect(outs).toBeLessThanOrEqual(acked + inFlight); // at most the calls in flight at the kill
    expect(db.accounts.reduce((n, a) => n + a.balance, 0)).toBe(2_000_000);
    for (const a of db.accounts) {
      expect(db.entries.filter((e) => e.account === a.id).reduce((n, e) => n + e.amount, 0)).toBe(a.balance);
    }

    // The app starts again on the same data and serves the same balances.
    wo = await serve(app);
    const res = await fetch(`${wo.url}/api/accounts`);
    const { items } = (await res.json()) as { items: any[] };
    expect(items.map((a) => a.balance)).toEqual(db.accounts.map((a) => a.balance));
    expect(sent).toBeGreaterThan(acked);
  });
});

// Expression semantics at run time (spec/language.md, "Method language": integers, truthiness,
// null operands, union values).
const calcApp = {
  "wo.toml": 'name = "calc"\n',
  "calc.wo": `class Calc {
  name: Text
  bonus: Int?
  level: Low | High = Low

  fn quotient(a: Int, b: Int) -> Int {
    return a / b
  }

  fn remainder(a: Int, b: Int) -> Int {
    return a % b
  }

  fn is_truthy(a: Int) -> Bool {
    if a {
      return true
    }
    return false
  }

  fn before(x: Text, y: Text) -> Bool {
    return x < y and not (x == y)
  }

  fn plus_bonus(a: Int) -> Int {
    return a + self.bonus
  }

  fn relevel(to: Text) -> Calc in txn {
    update self set level = to
    return self
  }

  service rest "/api/calcs" expose create, get, quotient, remainder, is_truthy, before, plus_bonus, relevel
}
`,
};

describe("method expressions at run time", () => {
  let app: string;
  let wo: WoProcess;
  beforeAll(async () => {
    app = writeApp("calc", calcApp);
    wo = await serve(app);
    await post(wo.url, "/api/calcs", { name: "c" });
  });
  afterAll(async () => {
    await wo?.stop();
  });

  it.each([
    ["quotient", { a: -7, b: 2 }, 200, -3],
    ["quotient", { a: 7, b: 2 }, 200, 3],
    ["remainder", { a: -7, b: 2 }, 200, -1],
    ["is_truthy", { a: 0 }, 200, true],
    ["before", { x: "apple", y: "banana" }, 200, true],
    ["before", { x: "b", y: "a" }, 200, false],
  ] as const)("%s(%j) → %d %j", async (m, args, status, value) => {
    const res = await post(wo.url, `/api/calcs/1/${m}`, args);
    expect(res).toEqual({ status, body: value });
  });

  it.each([
    ["quotient", { a: 7, b: 0 }, 409, "division by zero at calc.wo:7"],
    ["remainder", { a: 7, b: 0 }, 409, "modulo by zero at calc.wo:11"],
    ["plus_bonus", { a: 1 }, 409, "self.bonus has no value at calc.wo:26"],
    ["relevel", { to: "Mid" }, 400, "'Mid' is not one of Low, High"],
  ] as const)("%s(%j) → %d naming the problem, nothing changed", async (m, args, status, message) => {
    const before = dumpDb(app);
    const res = await post(wo.url, `/api/calcs/1/${m}`, args);
    expect(res.status).toBe(status);
    expect(res.body.detail).toContain(message);
    expect(dumpDb(app)).toEqual(before);
  });

  it("stores a Text value that names a variant", async () => {
    const res = await post(wo.url, "/api/calcs/1/relevel", { to: "High" });
    expect(res).toMatchObject({ status: 200, body: { id: 1, level: "High" } });
  });
});
