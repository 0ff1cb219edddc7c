// Bare union variants (`status = Paid`) and `.field` through a `ref T` id (`self.customer.name`)
// in method bodies (spec/language.md, "Constructs of the full language"). Checked in memory;
// executed by a real `wo run` through REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { dumpDb } from "../support/wo-process.js";
import { cursorAt, errorsOf } from "./compile-fixture.js";
import { post, serveForSuite } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Customer {
  name: Text
  tier: Basic | Gold = Basic
  service rest "/api/customers" expose list, create
}

class Order {
  customer: ref Customer
  status: Pending | Paid | Cancelled = Pending

  fn pay() -> Order in txn {
    assert self.status == Pending otherwise abort "order is " + self.status
    update self set status = Paid
    return self
  }

  fn buyer() -> Text {
    return self.customer.name
  }

  fn gold() -> Bool {
    return self.customer.tier == Gold
  }

  fn rename(c: ref Customer) -> Text in txn {
    update self set status = Cancelled
    return c.name
  }

  service rest "/api/orders" expose list, create, pay, buyer, gold, rename
}
`;

describe("bare variants and ref reads: checking", () => {
  it("the app checks with no errors", () => {
    expect(errorsOf(app)).toEqual([]);
  });

  const broken: [string, string, string][] = [
    ["a variant of another union stored in a field", "update self set status = ┆Gold", "WO5020"],
    ["a variant of another union compared", 'assert self.status != ┆Basic otherwise abort "x"', "WO5020"],
    ["a name that is no variant", "update self set status = ┆Shipped", "WO5001"],
    ["a field the referenced type lacks", 'assert self.customer.┆nope otherwise abort "x"', "WO5003"],
    ["a ref field read from an id that is no ref", 'assert self.id.┆name otherwise abort "x"', "WO5017"],
  ];
  for (const [title, line, code] of broken) {
    it(`${title} → ${code}`, () => {
      const text = app.replace("    update self set status = Paid\n", `    ${line}\n`);
      expect(errorsOf(text)[0]).toBe(`${code} ${cursorAt(text)}`);
    });
  }
});

describe("bare variants and ref reads: wo run", () => {
  const served = serveForSuite("variants-refs", { "app.wo": app });

  it("a bare variant is stored and compared as its text", async () => {
    const customer = await post(served.wo.url, "/api/customers", { name: "ada" });
    const order = await post(served.wo.url, "/api/orders", { customer: customer.body.id });
    const paid = await post(served.wo.url, `/api/orders/${order.body.id}/pay`, {});
    expect(paid).toMatchObject({ status: 200, body: { id: order.body.id, status: "Paid" } });
    const again = await served.mcp.callTool({ name: "order_pay", arguments: { id: order.body.id } });
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again.content)).toContain("order is Paid");
  });

  it("reads a field of the referenced row, over REST and MCP", async () => {
    const customer = await post(served.wo.url, "/api/customers", { name: "bob", tier: "Gold" });
    const order = await post(served.wo.url, "/api/orders", { customer: customer.body.id });
    expect(await post(served.wo.url, `/api/orders/${order.body.id}/buyer`, {})).toMatchObject({
      status: 200,
      body: "bob",
    });
    const gold = await served.mcp.callTool({ name: "order_gold", arguments: { id: order.body.id } });
    expect(gold.structuredContent).toMatchObject({ result: true });
  });

  it("a ref to no row aborts the call with a clear message and keeps nothing", async () => {
    const customer = await post(served.wo.url, "/api/customers", { name: "cy" });
    const order = await post(served.wo.url, "/api/orders", { customer: customer.body.id });
    expect(await post(served.wo.url, `/api/orders/${order.body.id}/rename`, { c: customer.body.id })).toMatchObject({
      status: 200,
      body: "cy",
    });
    const before = dumpDb(served.dir);
    const res = await post(served.wo.url, `/api/orders/${order.body.id}/rename`, { c: 999 });
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("c refers to Customer 999, which does not exist (at app.wo:27)");
    expect(dumpDb(served.dir)).toEqual(before);
  });
});
