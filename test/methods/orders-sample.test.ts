// samples/orders through a real `wo run`: its `on startup` seed is written once (a restart adds
// nothing), and its methods — bare variants, reads through a ref, method calls on rows, object
// and list literals — run over REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { copyApp, dumpDb, startWo } from "../support/wo-process.js";
import { mcpClient, post } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("samples/orders: wo run", () => {
  it("seeds the demo customer and order once, across restarts, before serving", async () => {
    const app = copyApp("samples/orders");
    for (let start = 0; start < 2; start++) {
      const wo = await startWo([app, "--listen", "127.0.0.1:0"]);
      try {
        const customers = (await (await fetch(`${wo.url}/api/customers`)).json()) as any;
        expect(customers.items).toEqual([
          {
            id: 1,
            name: "Demo",
            email: "demo@example.com",
            tier: "Gold",
            address: { street: "1 Main St", city: "Springfield", zip: null },
          },
        ]);
        const orders = (await (await fetch(`${wo.url}/api/orders`)).json()) as any;
        expect(orders.items).toEqual([
          {
            id: 1,
            customer: 1,
            status: "Open",
            total: 0,
            items: [
              { sku: "TEA-1", qty: 2 },
              { sku: "CUP-4", qty: 1 },
            ],
          },
        ]);
      } finally {
        await wo.stop();
      }
    }
  });

  it("runs its methods over REST and MCP, and an abort in a called method keeps nothing", async () => {
    const app = copyApp("samples/orders");
    const wo = await startWo([app, "--listen", "127.0.0.1:0"]);
    const mcp = await mcpClient(wo.url);
    try {
      // The seeded customer is Gold: paying its order adds no shipping.
      expect(await post(wo.url, "/api/orders/1/pay", {})).toMatchObject({
        status: 200,
        body: { status: "Paid", total: 0 },
      });
      const bo = await post(wo.url, "/api/customers", { name: "Bo", email: "bo@example.com" });
      const order = await post(wo.url, "/api/orders", { customer: bo.body.id, items: [] });
      expect(
        (await mcp.callTool({ name: "order_buyer", arguments: { id: order.body.id } })).structuredContent,
      ).toMatchObject({ result: "Bo" });
      expect(await post(wo.url, `/api/orders/${order.body.id}/pay`, {})).toMatchObject({
        status: 200,
        body: { total: 500 },
      });
      await post(wo.url, "/api/orders", { customer: bo.body.id, items: [] });
      const cancelled = await mcp.callTool({ name: "customer_cancel_open", arguments: { id: bo.body.id } });
      expect(cancelled.structuredContent).toMatchObject({ result: 1 });
      const before = dumpDb(app);
      const again = await post(wo.url, `/api/orders/${order.body.id}/cancel`, {});
      expect(again.status).toBe(409);
      expect(JSON.stringify(again.body)).toContain("order is Paid");
      expect(dumpDb(app)).toEqual(before);
    } finally {
      await mcp.close();
      await wo.stop();
    }
  });
});
