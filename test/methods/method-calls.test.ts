// Method calls on rows (`o.m(args)`) and rows passed for `ref T` parameters (spec/language.md,
// "Constructs of the full language"). Checked in memory; executed by a real `wo run` through
// REST and the official MCP SDK client.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { dumpDb, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { cursorAt, errorsOf } from "./compile-fixture.js";
import { mcpClient, post } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Account {
  owner: Text
  balance: Money = 0

  fn withdraw(amount: Money) -> Money in txn {
    assert self.balance >= amount otherwise abort "insufficient funds: " + self.balance
    update self set balance = self.balance - amount
    return self.balance
  }

  fn deposit(amount: Money) in txn {
    update self set balance = self.balance + amount
  }

  fn transfer(to: ref Account, amount: Money) -> Account in txn {
    let left = self.withdraw(amount)
    to.deposit(amount)
    book(self, 0 - amount)
    return Account{ id == self.id }
  }

  fn peek() -> Money {
    return self.balance
  }

  fn spin() -> Int {
    return self.spin()
  }

  fn nothing() -> Int {
    return null
  }

  fn plus_one() -> Int {
    return self.nothing() + 1
  }

  service rest "/api/accounts" expose list, create, transfer, spin, plus_one
}

class Entry {
  account: ref Account
  amount: Money
  service rest "/api/entries" expose list
}

fn book(account: ref Account, amount: Money) {
  insert Entry { account: account, amount: amount }
}
`;

describe("method calls: checking", () => {
  it("the app checks with no errors", () => {
    expect(errorsOf(app)).toEqual([]);
  });

  const broken: [string, string, string][] = [
    ["a method the class lacks", "let left = self.┆nope(amount)", "WO5003"],
    ["wrong argument count", "let left = self.┆withdraw()", "WO5005"],
    ["wrong argument type", 'let left = self.withdraw(┆"ten")', "WO5006"],
    ["a call on a value that is no row", "let left = ┆amount.withdraw(1)", "WO5026"],
    ["a row of another type for a ref parameter", "let left = book(┆latest(Entry{ amount == 1 }), 1)", "WO5006"],
  ];
  for (const [title, call, code] of broken) {
    it(`${title} → ${code}`, () => {
      const text = app.replace("let left = self.withdraw(amount)", call);
      expect(errorsOf(text)[0]).toBe(`${code} ${cursorAt(text)}`);
    });
  }
});

describe("method calls: wo run", () => {
  let dir: string;
  let wo: WoProcess;
  let mcp: Client;
  let a: number;
  let b: number;

  beforeAll(async () => {
    dir = writeApp("method-calls", { "app.wo": app });
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    mcp = await mcpClient(wo.url);
    a = (await post(wo.url, "/api/accounts", { owner: "ada", balance: 100 })).body.id;
    b = (await post(wo.url, "/api/accounts", { owner: "bob" })).body.id;
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
  });

  it("calls methods on rows and passes a row for a ref parameter, in one transaction", async () => {
    const res = await post(wo.url, `/api/accounts/${a}/transfer`, { to: b, amount: 30 });
    expect(res).toMatchObject({ status: 200, body: { id: a, balance: 70 } });
    const viaMcp = await mcp.callTool({ name: "account_transfer", arguments: { id: a, to: b, amount: 20 } });
    expect(viaMcp.structuredContent).toMatchObject({ result: { id: a, balance: 50 } });
    const db = dumpDb(dir);
    expect(db.account!.map((r: any) => r.balance)).toEqual([50, 50]);
    expect(db.entry).toEqual([
      { id: 1, account: a, amount: -30 },
      { id: 2, account: a, amount: -20 },
    ]);
  });

  it("an abort in the called method rolls back the whole call", async () => {
    const before = dumpDb(dir);
    const res = await post(wo.url, `/api/accounts/${a}/transfer`, { to: b, amount: 500 });
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("insufficient funds: 50");
    expect(dumpDb(dir)).toEqual(before);
  });

  it("a call on a ref to no row aborts, after the caller's earlier writes, and keeps none of them", async () => {
    const before = dumpDb(dir);
    const res = await post(wo.url, `/api/accounts/${a}/transfer`, { to: 999, amount: 10 });
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("Account 999, which Account.deposit() was called on, does not exist");
    expect(dumpDb(dir)).toEqual(before);
  });

  it("unbounded recursion ends the call (409) and the server keeps answering", async () => {
    const res = await post(wo.url, `/api/accounts/${a}/spin`, {});
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("calls nested more than 100 deep at app.wo:27");
    expect((await fetch(`${wo.url}/healthz`)).status).toBe(200);
  });

  it("a called method that returns null where a value is used ends the call (409)", async () => {
    const res = await post(wo.url, `/api/accounts/${a}/plus_one`, {});
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("Account.nothing() has no value at app.wo:35");
  });
});
