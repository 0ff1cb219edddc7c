// Free (top-level) fns: checked like method bodies, callable from methods and from each other,
// run in the caller's transaction (spec/language.md, "Free functions"). Checked in memory;
// executed by a real `wo run` through REST and the official MCP SDK client.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { dumpDb, runToExit, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { compileSources, cursorAt } from "./compile-fixture.js";
import { mcpClient, post } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const classes = `class Account {
  owner: Text
  balance: Money = 0

  fn deposit(amount: Money) -> Account in txn {
    credit(self.id, amount)
    return Account{ id == self.id }
  }

  fn fee() -> Int {
    return fee_for(self.balance)
  }

  service rest "/api/accounts" expose list, get, create, deposit, fee
}

class Entry {
  account: ref Account
  amount: Money
  service rest "/api/entries" expose list
}
`;

const functions = `-- Books an entry and moves the balance; aborts on a non-positive amount.
fn credit(account: ref Account, amount: Money) {
  assert amount > 0 otherwise abort "amount must be positive, got " + amount
  insert Entry { account: account, amount: amount }
  update Account{ id == account } set balance = Account{ id == account }.balance + amount
}

fn fee_for(balance: Money) -> Int {
  if balance > 1000 {
    return 0
  }
  return half(10)
}

fn half(n: Int) -> Int {
  return n / 2
}

fn not_yet(a: Account) {
  as session owner {
    print(a)
  }
}
`;

describe("free fns: checking", () => {
  it("a fn that uses what wo does not run is one warning with the reason, not an error", () => {
    const { catalog, diagnostics } = compileSources({ "app.wo": classes, "fns.wo": functions });
    expect(diagnostics.map((d) => `${d.code} ${d.span.line}:${d.span.col}`)).toEqual(["WO2111 19:4"]);
    expect(diagnostics[0]!.message).toBe(
      "fn 'not_yet' is not executed: 'as session owner' is not supported in a method yet: name the caller as 'as session { user: …, role: … }', 'as session anonymous' or 'as session $row'. (fns.wo:20:3).",
    );
    expect(catalog!.functions!.map((f) => f.name)).toEqual(["credit", "fee_for", "half"]);
  });

  const broken: [string, string, string][] = [
    ["call of a fn that is not executed", `  fn m() in txn {\n    ┆not_yet(self.id)\n  }`, "WO5028"],
    ["wrong argument count", `  fn m() -> Int {\n    return ┆half(1, 2)\n  }`, "WO5005"],
    ["wrong argument type", `  fn m() -> Int {\n    return half(┆"a")\n  }`, "WO5006"],
    ["a call whose value is thrown away", `  fn m() in txn {\n    ┆self.owner\n  }`, "WO5025"],
  ];
  for (const [title, fn, code] of broken) {
    it(`${title} → ${code}`, () => {
      const app = classes.replace('  service rest "/api/accounts"', `${fn}\n\n  service rest "/api/accounts"`);
      const { diagnostics } = compileSources({ "app.wo": app, "fns.wo": functions });
      const errors = diagnostics.filter((d) => d.severity === "error");
      expect(errors.map((d) => `${d.code} ${d.span.line}:${d.span.col}`)[0]).toBe(`${code} ${cursorAt(app)}`);
    });
  }

  it("a typo in a fn body keeps the fn out, and its callers get WO5028 naming the typo", () => {
    const typo = functions.replace("return n / 2", "return nn / 2");
    const { diagnostics } = compileSources({ "app.wo": classes, "fns.wo": typo });
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([
      "fn 'fee_for' cannot be called: it is not executed (fn 'half' cannot be called: it is not executed (Unknown name 'nn'. Did you mean 'n'? at fns.wo:16:10). at fns.wo:12:10).",
    ]);
  });
});

describe("free fns: wo run", () => {
  let app: string;
  let wo: WoProcess;
  let mcp: Client;

  beforeAll(async () => {
    app = writeApp("functions", { "app.wo": classes, "fns.wo": functions });
    wo = await startWo([app, "--listen", "127.0.0.1:0"]);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
  });

  it("a method's call of a fn writes in the method's transaction", async () => {
    const created = await post(wo.url, "/api/accounts", { owner: "ada" });
    const id = created.body.id;
    const d = await post(wo.url, `/api/accounts/${id}/deposit`, { amount: 700 });
    expect(d).toMatchObject({ status: 200, body: { id, balance: 700 } });
    const viaMcp = await mcp.callTool({ name: "account_deposit", arguments: { id, amount: 400 } });
    expect(viaMcp.structuredContent).toMatchObject({ result: { id, balance: 1100 } });
    expect(dumpDb(app).entry!.map((e: any) => e.amount)).toEqual([700, 400]);
  });

  it("an abort inside a fn rolls back the whole call and carries the computed message", async () => {
    const created = await post(wo.url, "/api/accounts", { owner: "bob" });
    const before = dumpDb(app);
    const bad = await post(wo.url, `/api/accounts/${created.body.id}/deposit`, { amount: 0 });
    expect(bad.status).toBe(409);
    expect(JSON.stringify(bad.body)).toContain("amount must be positive, got 0");
    expect(dumpDb(app)).toEqual(before);
  });

  it("fns call fns and return values to read-only methods", async () => {
    const created = await post(wo.url, "/api/accounts", { owner: "cy" });
    expect(await post(wo.url, `/api/accounts/${created.body.id}/fee`, {})).toMatchObject({ status: 200, body: 5 });
  });
});

const seeded = `${classes}
on startup
  do: seed()

fn seed() {
  if count(Account{ owner == "house" }) == 0 {
    let house = insert Account { owner: "house" }
    credit(house.id, 5)
  }
}
${functions}`;

describe("on startup", () => {
  it("names the free fn it runs; a hook wo cannot run is a warning with the reason", () => {
    const { catalog, diagnostics } = compileSources({ "app.wo": seeded });
    expect(catalog!.startup).toEqual(["seed"]);
    const hooks = (text: string) =>
      compileSources({ "app.wo": `${classes}\non startup\n  do: ${text}\n${functions}` })
        .diagnostics.filter((d) => d.code === "WO2112")
        .map((d) => d.message);
    expect(hooks("nope()")).toEqual(["'on startup' hook is not run: there is no top-level fn 'nope'."]);
    expect(hooks("half()")).toEqual([
      "'on startup' hook is not run: fn 'half' takes parameters, and a hook passes none.",
    ]);
    expect(hooks("seed(1)")).toEqual(["'on startup' hook is not run: write it as 'do: f()', naming a top-level fn."]);
    expect(hooks("not_yet()")[0]).toMatch(
      /^'on startup' hook is not run: fn 'not_yet' is not executed \('as session owner' is not supported/,
    );
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("runs once per start before serving, in one transaction; an idempotent seed stays one row", async () => {
    const app = writeApp("startup", { "app.wo": seeded });
    for (let start = 0; start < 2; start++) {
      const wo = await startWo([app, "--listen", "127.0.0.1:0"]);
      try {
        // Served only after the hook committed: the very first request sees the seed.
        const res = await fetch(`${wo.url}/api/accounts`);
        expect(((await res.json()) as any).items).toEqual([{ id: 1, owner: "house", balance: 5 }]);
      } finally {
        await wo.stop();
      }
    }
    expect(dumpDb(app).entry).toEqual([{ id: 1, account: 1, amount: 5 }]);
  });

  it("a hook that aborts stops wo run from starting, and writes nothing", async () => {
    const app = writeApp("startup-abort", { "app.wo": seeded.replace("credit(house.id, 5)", "credit(house.id, 0)") });
    const { code, output } = await runToExit([app, "--listen", "127.0.0.1:0"]);
    expect(code).toBe(1);
    expect(output).toContain("on startup failed: amount must be positive, got 0");
    expect(dumpDb(app).account).toEqual([]);
  });
});
