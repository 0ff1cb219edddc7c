// Method forms written for writeonce that wo accepts (spec/language.md, "Calls and
// transactions", "Return values"): writes without `in txn`, and a method returning a
// projection of its declared row type, whose output schema names exactly the projected keys.
// A real `wo run` of an app with pricing's shape, over REST and the official MCP client.
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { post, serveForSuite } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

/** Validates `value` against `schema` with the dialect given, and says why it does not fit. */
function problems(ajv: Ajv | Ajv2020, schema: object, value: unknown): string {
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return validate(value) ? "" : ajv.errorsText(validate.errors);
}

const source = `class Product {
  sku: SKU @unique
  name: Text
  prices: multi Price

  fn set_price(amount: Money) {
    assert amount > 0 otherwise abort "price must be positive"
    insert Price { product: self.id, amount: amount }
  }

  fn history() -> [Price] {
    return select Price { product == self.id, amount, at, note }
  }

  service rest "/api/products" expose list, get, create, set_price, history
}

class Price {
  product: ref Product
  amount: Money
  at: Timestamp = now()
  note: Text?

  service rest "/api/prices" expose list
}
`;

describe("a pricing-shaped app: set_price without in txn, history returning a projection", () => {
  const served = serveForSuite("prices", { "app.wo": source });

  it("a method without in txn writes, atomically", async () => {
    const product = await post(served.wo.url, "/api/products", { sku: "LAMP-1", name: "Lamp" });
    expect(product.status).toBe(201);
    const id = product.body.id;
    expect((await post(served.wo.url, `/api/products/${id}/set_price`, { amount: 4999 })).status).toBe(200);
    const viaMcp = await served.mcp.callTool({ name: "product_set_price", arguments: { id, amount: 3999 } });
    expect(viaMcp.isError).toBeFalsy();
    const refused = await post(served.wo.url, `/api/products/${id}/set_price`, { amount: 0 });
    expect(refused.status).toBe(409);
    const prices = await fetch(`${served.wo.url}/api/prices`).then((r) => r.json() as Promise<any>);
    expect(prices.items.map((p: { amount: number }) => p.amount)).toEqual([4999, 3999]);
  });

  it("history returns only the projected fields, and its output schema names exactly those", async () => {
    const product = await post(served.wo.url, "/api/products", { sku: "DESK-1", name: "Desk" });
    const id = product.body.id;
    await post(served.wo.url, `/api/products/${id}/set_price`, { amount: 100 });
    const rest = await post(served.wo.url, `/api/products/${id}/history`, {});
    expect(rest.status).toBe(200);
    expect(rest.body).toHaveLength(1);
    expect(Object.keys(rest.body[0])).toEqual(["amount", "at", "note"]);
    expect(rest.body[0]).toMatchObject({ amount: 100, note: null });

    // MCP: the tool's outputSchema (draft-07, as the SDK compiles it) describes the projected
    // rows — every projected key present, the optional `note` nullable, no other field of Price.
    const { tools } = await served.mcp.listTools();
    const toolSchema = tools.find((t) => t.name === "product_history")!.outputSchema as any;
    const toolRow = toolSchema.properties.result.items;
    expect(Object.keys(toolRow.properties)).toEqual(["amount", "at", "note"]);
    expect(toolRow.required).toEqual(["amount", "at", "note"]);
    expect(toolRow.properties.note.type).toEqual(["string", "null"]);
    expect(problems(new Ajv({ strict: false }), toolSchema, { result: rest.body })).toBe("");

    // The official client validates structuredContent against that outputSchema: it accepts it.
    const called = await served.mcp.callTool({ name: "product_history", arguments: { id } });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({ result: rest.body });

    // REST: the OpenAPI response of the method route (JSON Schema 2020-12) says the same.
    const openapi = await fetch(`${served.wo.url}/openapi.json`).then((r) => r.json() as Promise<any>);
    const response =
      openapi.paths["/api/products/{id}/history"].post.responses["200"].content["application/json"].schema;
    expect(Object.keys(response.items.properties)).toEqual(["amount", "at", "note"]);
    expect(response.items.required).toEqual(["amount", "at", "note"]);
    expect(problems(new Ajv2020({ strict: false }), response, rest.body)).toBe("");

    // Writing methods are no longer read-only, with or without in txn.
    expect(tools.find((t) => t.name === "product_set_price")!.annotations).toMatchObject({ readOnlyHint: false });
  });
});

describe("a method reads a multi … via relation through its link type", () => {
  let app: string;
  let wo: WoProcess;

  beforeAll(async () => {
    app = writeApp("tagged", {
      "app.wo": `class Post {
  title: Text
  tags: multi Tag via Tagging

  fn tag_count() -> Int {
    return count(self.tags)
  }

  fn tag_list() -> [Tagging] {
    return self.tags
  }

  fn first_label() -> Text {
    return self.tags[0].target.label
  }

  service rest "/api/posts" expose create, get, update, tag_count, tag_list, first_label
}

type Tag {
  label: Text
  service rest "/api/tags" expose create
}

type Tagging link Post -> Tag {
}
`,
    });
    wo = await startWo([app, "--listen", "127.0.0.1:0"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (app) removeApp(app);
  });

  it("count(self.tags) and self.tags see the links: the edges in link order, each naming its target", async () => {
    const p = (await post(wo.url, "/api/posts", { title: "T" })).body.id;
    const [b, a] = [
      (await post(wo.url, "/api/tags", { label: "b" })).body.id,
      (await post(wo.url, "/api/tags", { label: "a" })).body.id,
    ];
    for (const t of [a, b]) {
      const r = await fetch(`${wo.url}/api/posts/${p}/tags/${t}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
      });
      expect(r.status).toBe(201);
    }
    expect((await post(wo.url, `/api/posts/${p}/tag_count`, {})).body).toBe(2);
    const edges = (await post(wo.url, `/api/posts/${p}/tag_list`, {})).body as { post: number; tag: number }[];
    expect(edges.map((e) => [e.post, e.tag])).toEqual([
      [p, a],
      [p, b],
    ]);
    expect((await post(wo.url, `/api/posts/${p}/first_label`, {})).body).toBe("a");
  });
});
