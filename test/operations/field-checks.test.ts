// `@check(op value)` on fields (spec/language.md, "Checks"), observed as a client does: REST and
// MCP (the official SDK client) refuse a create or update that breaks one with the field's JSON
// pointer and what the check is; the tool's inputSchema states it; a method whose write breaks
// one answers 409 and stores nothing; `wo test` sees the abort. Inside a struct or a list's
// items the same, with the value's pointer (`/lines/1/qty`) and path (`Item.lines[1].qty`).

import { describe, expect, it, vi } from "vitest";
import { mcpClient, post, serveForSuite } from "../methods/wo-process.js";
import { runWoCommand, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Account {
  owner: Text @check(!= "")
  balance: Money = 0 @check(>= 0)
  limit: Int? @check(> 0)
  ratio: Float? @check(< 1.5)

  fn withdraw(amount: Money) -> Account in txn {
    update self set balance = self.balance - amount
    return self
  }

  fn open_overdrawn(owner: Text) -> Account in txn {
    insert Account { owner: owner, balance: 5 }
    let a = insert Account { owner: owner, balance: -1 }
    return a
  }

  service rest "/api/accounts" expose list, get, create, update, withdraw, open_overdrawn
  service mcp "/mcp" expose list, get, create, update, withdraw, open_overdrawn
}
`;

async function patch(base: string, path: string, body: unknown) {
  const res = await fetch(base + path, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Problem };
}

/** A stored account as the list gives it. */
type Account = { id: number; owner: string; balance: number };

/** A REST answer's body: a row, or a problem with its errors. */
type Problem = Record<string, unknown> & { id?: number; detail?: string; errors?: unknown[] };

const list = async (base: string) =>
  ((await (await fetch(`${base}/api/accounts`)).json()) as { items: Account[] }).items;

describe("@check", () => {
  const served = serveForSuite("field-checks", { "app.wo": app });

  it("REST refuses a create breaking checks with 400, each field's pointer and its check; nothing stored", async () => {
    const r = await post(served.wo.url, "/api/accounts", { owner: "", balance: -5, limit: 0, ratio: 2 });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: "/owner", message: 'must be != "" (@check)' },
      { path: "/balance", message: "must be >= 0 (@check)" },
      { path: "/limit", message: "must be > 0 (@check)" },
      { path: "/ratio", message: "must be < 1.5 (@check)" },
    ]);
    expect(await list(served.wo.url)).toEqual([]);
  });

  it("REST accepts values on the bound and null for an optional checked field; refuses an update below it", async () => {
    const ok = await post(served.wo.url, "/api/accounts", { owner: "ada", balance: 0, limit: null, ratio: 1.49 });
    expect(ok.status).toBe(201);
    const id = ok.body.id;
    const r = await patch(served.wo.url, `/api/accounts/${id}`, { balance: -1 });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe("The input does not match account_update: /balance must be >= 0 (@check).");
    expect(r.body.errors).toEqual([{ path: "/balance", message: "must be >= 0 (@check)" }]);
    expect((await patch(served.wo.url, `/api/accounts/${id}`, { balance: 7 })).status).toBe(200);
  });

  it("MCP: the tool's inputSchema states the checks; a call breaking one is a tool error naming it", async () => {
    const mcp = await mcpClient(served.wo.url);
    try {
      const { tools } = await mcp.listTools();
      const create = tools.find((t) => t.name === "account_create")!;
      const props = create.inputSchema.properties as Record<string, Record<string, unknown>>;
      expect(props.balance!.minimum).toBe(0);
      expect(props.limit!.exclusiveMinimum).toBe(0);
      expect(props.ratio!.exclusiveMaximum).toBe(1.5);
      expect(props.owner!.not).toEqual({ const: "" });
      const result = await mcp.callTool({ name: "account_create", arguments: { owner: "bob", limit: -2 } });
      expect(result.isError).toBe(true);
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      expect(text).toContain("/limit must be > 0 (@check)");
      const update = await mcp.callTool({ name: "account_update", arguments: { id: 1, owner: "" } });
      expect(update.isError).toBe(true);
      expect((update.content as { text: string }[])[0]!.text).toContain('/owner must be != "" (@check)');
    } finally {
      await mcp.close();
    }
    expect((await list(served.wo.url)).map((a: { owner: string }) => a.owner)).toEqual(["ada"]);
  });

  it("a method whose update breaks a check answers 409 naming the field and check, and changes nothing", async () => {
    const [ada] = await list(served.wo.url);
    const r = await post(served.wo.url, `/api/accounts/${ada.id}/withdraw`, { amount: ada.balance + 1 });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      `Account.balance must be >= 0 (@check), and the call would store -1; nothing was written.`,
    );
    expect(r.body.errors).toEqual([{ path: "/balance", message: "must be >= 0 (@check)" }]);
    expect((await list(served.wo.url))[0].balance).toBe(ada.balance);
    const ok = await post(served.wo.url, `/api/accounts/${ada.id}/withdraw`, { amount: ada.balance });
    expect(ok.status).toBe(200);
    expect(ok.body.balance).toBe(0);
  });

  it("a method whose insert breaks a check rolls back its earlier writes too (409; MCP tool error)", async () => {
    const before = (await list(served.wo.url)).length;
    const r = await post(served.wo.url, "/api/accounts/1/open_overdrawn", { owner: "eve" });
    expect(r.status).toBe(409);
    expect(r.body.detail).toContain("Account.balance must be >= 0 (@check)");
    const mcp = await mcpClient(served.wo.url);
    try {
      const result = await mcp.callTool({ name: "account_open_overdrawn", arguments: { id: 1, owner: "eve" } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toContain("Account.balance must be >= 0 (@check)");
    } finally {
      await mcp.close();
    }
    expect((await list(served.wo.url)).length).toBe(before);
  });
});

describe("@check in wo test", () => {
  it("a test expecting the abort passes, and the store holds nothing of the aborted write", async () => {
    const dir = writeApp("field-checks-test", {
      "app.wo": app,
      "tests/t.wo": `test "a negative balance aborts" {
  let a = insert Account { owner: "ada", balance: 3 }
  expect_abort "Account.balance must be >= 0 (@check)" {
    a.withdraw(4)
  }
  assert Account{ id == a.id }.balance == 3
}
test "an insert breaking a check fails the test" {
  insert Account { owner: "", balance: 1 }
}
`,
    });
    const r = await runWoCommand(["test", dir]);
    const out = r.stdout.replace(/\(\d+ms\)/g, "(Nms)");
    expect(out).toContain("✔ a negative balance aborts (Nms)");
    expect(out).toContain('✖ an insert breaking a check fails the test (Nms)\n  Account.owner must be != "" (@check)');
    expect(out).toContain("1 passed, 1 failed");
    expect(r.code).toBe(1);
  });
});

// Checks on fields inside a struct and a list's items: the same rules, with the value's path.
const nestedApp = `class Item {
  sku: Text
  stock: { on_hand: Int = 0 @check(>= 0), held: Int = 0 @check(>= 0), note: Text? }
  lines: [{ qty: Int @check(> 0), label: Text? @check(!= "") }]

  fn take(n: Int) -> Item in txn {
    update self set stock.on_hand = stock.on_hand - n, stock.held = stock.held + n
    return self
  }

  fn add_line(q: Int) -> Item in txn {
    update self set lines = [{ qty: 1 }, { qty: q }]
    return self
  }

  service rest "/api/items" expose list, get, create, update, take, add_line
  service mcp "/mcp" expose list, get, create, update, take, add_line
}
`;

describe("@check inside structs and list items", () => {
  const served = serveForSuite("nested-field-checks", { "app.wo": nestedApp });
  const items = async () =>
    ((await (await fetch(`${served.wo.url}/api/items`)).json()) as { items: Record<string, unknown>[] }).items;

  it("REST refuses a create or update breaking one with 400 and the value's pointer; nothing stored", async () => {
    const r = await post(served.wo.url, "/api/items", {
      sku: "a",
      stock: { on_hand: -1 },
      lines: [{ qty: 1 }, { qty: 0, label: "" }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: "/stock/on_hand", message: "must be >= 0 (@check)" },
      { path: "/lines/1/qty", message: "must be > 0 (@check)" },
      { path: "/lines/1/label", message: 'must be != "" (@check)' },
    ]);
    expect(await items()).toEqual([]);
    const ok = await post(served.wo.url, "/api/items", { sku: "a", stock: { on_hand: 2 }, lines: [{ qty: 3 }] });
    expect(ok.status).toBe(201);
    const u = await patch(served.wo.url, `/api/items/${ok.body.id}`, { lines: [{ qty: -4 }] });
    expect(u.status).toBe(400);
    expect(u.body.errors).toEqual([{ path: "/lines/0/qty", message: "must be > 0 (@check)" }]);
  });

  it("MCP: the nested schemas state the checks; a call breaking one is a tool error naming its pointer", async () => {
    const mcp = await mcpClient(served.wo.url);
    try {
      const { tools } = await mcp.listTools();
      const props = tools.find((t) => t.name === "item_create")!.inputSchema.properties as Record<string, any>;
      expect(props.stock.properties.on_hand.minimum).toBe(0);
      expect(props.lines.items.properties.qty.exclusiveMinimum).toBe(0);
      const result = await mcp.callTool({
        name: "item_create",
        arguments: { sku: "b", stock: { held: -2 }, lines: [] },
      });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toContain("/stock/held must be >= 0 (@check)");
      const [item] = await items();
      const take = await mcp.callTool({ name: "item_take", arguments: { id: item!.id, n: 5 } });
      expect(take.isError).toBe(true);
      expect((take.content as { text: string }[])[0]!.text).toContain(
        "Item.stock.on_hand must be >= 0 (@check), and the call would store -3; nothing was written.",
      );
    } finally {
      await mcp.close();
    }
  });

  it("a method whose update breaks one answers 409 naming the value's path, and changes nothing", async () => {
    const [item] = await items();
    const r = await post(served.wo.url, `/api/items/${item!.id}/add_line`, { q: 0 });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      "Item.lines[1].qty must be > 0 (@check), and the call would store 0; nothing was written.",
    );
    expect(r.body.errors).toEqual([{ path: "/lines/1/qty", message: "must be > 0 (@check)" }]);
    const ok = await post(served.wo.url, `/api/items/${item!.id}/take`, { n: 2 });
    expect(ok).toMatchObject({ status: 200, body: { stock: { on_hand: 0, held: 2 } } });
    expect((await items())[0]).toMatchObject({ stock: { on_hand: 0, held: 2 }, lines: [{ qty: 3 }] });
  });
});

describe("@check inside structs in wo test", () => {
  it("an abort names the value's path, and the store keeps the row as it was", async () => {
    const dir = writeApp("nested-field-checks-test", {
      "app.wo": nestedApp,
      "tests/t.wo": `test "taking too much aborts" {
  let a = insert Item { sku: "a", stock: { on_hand: 3 }, lines: [] }
  expect_abort "Item.stock.on_hand must be >= 0 (@check)" {
    a.take(4)
  }
  assert Item{ id == a.id }.stock.on_hand == 3
  expect_abort "Item.lines[0].qty must be > 0 (@check)" {
    insert Item { sku: "b", lines: [{ qty: 0 }] }
  }
}
`,
    });
    const r = await runWoCommand(["test", dir]);
    expect(r.stdout).toContain("1 passed, 0 failed");
    expect(r.code).toBe(0);
  });
});
