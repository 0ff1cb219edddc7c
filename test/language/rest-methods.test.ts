// Every method of a class with a `service rest` block is routed `POST P/:id/m`, listed or not
// (spec/language.md, "Services and exposure"; the language's plan 13b); MCP tools stay the
// listed ones. Served by a real `wo run`, called over HTTP and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Product {
  name: Text
  price: Int = 0

  fn set_price(p: Int) -> Product in txn {
    update self set price = p
    return self
  }

  fn label() -> Text {
    return self.name
  }

  service rest "/api/products" expose list, create, label
}
`;

describe("methods on REST: every method of a class is routed", () => {
  const served = serveForSuite("rest-methods", { "app.wo": app });

  it("an unlisted method answers POST P/:id/m and writes", async () => {
    const made = await post(served.wo.url, "/api/products", { name: "tea" });
    expect(made.status).toBe(201);
    const priced = await post(served.wo.url, `/api/products/${made.body.id}/set_price`, { p: 7 });
    expect(priced).toMatchObject({ status: 200, body: { id: made.body.id, price: 7 } });
    const listed = await fetch(`${served.wo.url}/api/products`)
      .then((r) => r.json())
      .then((b: any) => b.items);
    expect(listed).toMatchObject([{ name: "tea", price: 7 }]);
  });

  it("a bad argument to the unlisted method is a 400 and changes nothing", async () => {
    const made = await post(served.wo.url, "/api/products", { name: "milk" });
    const bad = await post(served.wo.url, `/api/products/${made.body.id}/set_price`, { p: "x" });
    expect(bad.status).toBe(400);
    const row = await fetch(`${served.wo.url}/api/products`)
      .then((r) => r.json())
      .then((b: any) => b.items);
    expect(row.find((p: { id: number }) => p.id === made.body.id)).toMatchObject({ price: 0 });
  });

  it("the OpenAPI document lists the route; MCP lists only the named method", async () => {
    const doc = (await (await fetch(`${served.wo.url}/openapi.json`)).json()) as { paths: Record<string, any> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/products/{id}/set_price", "/api/products/{id}/label"]),
    );
    expect(doc.paths["/api/products/{id}/set_price"].post).toBeDefined();
    const tools = (await served.mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("product_label");
    expect(tools).not.toContain("product_set_price");
  });
});
