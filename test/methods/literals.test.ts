// Object `{ … }` and list `[ … ]` literals in method bodies, typed against the struct, row or
// list they go into (spec/language.md, "Constructs of the full language"). Checked in memory;
// executed by a real `wo run` through REST and the official MCP SDK client.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { dumpDb, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { compileSources, cursorAt, errorsOf } from "./compile-fixture.js";
import { mcpClient, post } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `class Shop {
  name: Text
  address: { street: Text, city: Text, zip: Text? }?
  tags: [Text]
  hours: [{ day: Text, open: Int, kind: Regular | Holiday = Regular }]

  fn move(street: Text, city: Text) -> Shop in txn {
    update self set address = { street: street, city: city }
    return self
  }

  fn retag() -> Shop in txn {
    update self set tags = ["local", self.name], hours = [{ day: "mon", open: 9 }, { day: "tue", open: 10, kind: Holiday }]
    return self
  }

  fn empty() -> Int in txn {
    update self set tags = []
    assert 1 > 2 otherwise abort "no " + len(self.tags)
    return 0
  }

  service rest "/api/shops" expose list, create, move, retag, empty
}
`;

describe("literals: checking", () => {
  it("the app checks with no errors", () => {
    expect(errorsOf(app)).toEqual([]);
  });

  const broken: [string, string, string][] = [
    ["a struct member of the wrong type", "address = { street: ┆1, city: city }", "WO5029"],
    ["a struct member left out", "address = ┆{ street: street }", "WO5029"],
    ["a member the struct lacks", "address = { street: street, city: city, ┆country: city }", "WO5029"],
    ["a member given twice", "address = { street: street, city: city, ┆city: city }", "WO5016"],
    ["a list element of the wrong type", 'tags = ["a", ┆2]', "WO5026"],
    ["a list element that does not fit the field", "tags = [┆2]", "WO5029"],
    ["a variant of no union in a nested literal", 'hours = [{ day: street, open: 1, kind: ┆"Gone" }]', "WO5020"],
    ["an object where a list goes", "tags = ┆{ a: 1 }", "WO5029"],
    ["a list where a struct goes", "address = ┆[street]", "WO5029"],
  ];
  for (const [title, assignment, code] of broken) {
    it(`${title} → ${code}`, () => {
      const text = app.replace("address = { street: street, city: city }", assignment);
      expect(errorsOf(text)[0]).toBe(`${code} ${cursorAt(text)}`);
    });
  }

  it("an object literal where no struct or row is expected is WO5025 with the reason", () => {
    const text = app.replace("    return 0\n", "    let o = ┆{ a: 1 }\n    return 0\n");
    const { diagnostics } = compileSources({ "app.wo": text });
    const error = diagnostics.find((d) => d.severity === "error")!;
    expect(`${error.code} ${error.span.line}:${error.span.col}`).toBe(`WO5025 ${cursorAt(text)}`);
    expect(error.message).toContain("it is built only where a struct or row value is expected");
  });
});

describe("literals: wo run", () => {
  let dir: string;
  let wo: WoProcess;
  let mcp: Client;

  beforeAll(async () => {
    dir = writeApp("literals", { "app.wo": app });
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
  });

  it("stores an object literal into a struct field; a member left out is null", async () => {
    const shop = await post(wo.url, "/api/shops", { name: "corner", tags: [], hours: [] });
    const moved = await post(wo.url, `/api/shops/${shop.body.id}/move`, { street: "1 Main St", city: "Oslo" });
    expect(moved).toMatchObject({ status: 200, body: { address: { street: "1 Main St", city: "Oslo", zip: null } } });
    expect(JSON.parse((dumpDb(dir).shop!.find((s: any) => s.id === shop.body.id) as any).address)).toEqual({
      street: "1 Main St",
      city: "Oslo",
      zip: null,
    });
  });

  it("stores list literals, with nested objects and their defaults, over MCP", async () => {
    const shop = await post(wo.url, "/api/shops", { name: "kiosk", tags: [], hours: [] });
    const res = await mcp.callTool({ name: "shop_retag", arguments: { id: shop.body.id } });
    expect(res.structuredContent).toMatchObject({
      result: {
        tags: ["local", "kiosk"],
        hours: [
          { day: "mon", open: 9, kind: "Regular" },
          { day: "tue", open: 10, kind: "Holiday" },
        ],
      },
    });
  });

  it("an empty list literal is a list; an abort after it keeps nothing", async () => {
    const shop = await post(wo.url, "/api/shops", { name: "stall", tags: ["x"], hours: [] });
    const res = await post(wo.url, `/api/shops/${shop.body.id}/empty`, {});
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).toContain("no 0");
    expect((await post(wo.url, `/api/shops/${shop.body.id}/move`, { street: "s", city: "c" })).body.tags).toEqual([
      "x",
    ]);
  });
});
