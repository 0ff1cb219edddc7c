// The list query surface over MCP (spec/mcp.md "List queries"): what the official SDK client
// reads in tools/list is enough to filter with `where`, sort, page and count, and every mistake
// is an `isError` result naming the argument. `wo run` of test/fixtures/apps/stock.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let appDir: string;
let wo: WoProcess;
let client: Client;
let tools: { name: string; title?: string; description?: string; inputSchema: any }[];

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<any>;
const list = async (args: Record<string, unknown>) => {
  const r = await call("item_list", args);
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as { items: { id: number }[]; nextCursor?: string; total?: number };
};
const ids = async (args: Record<string, unknown>) => (await list(args)).items.map((row) => row.id);

beforeAll(async () => {
  appDir = copyApp("test/fixtures/apps/stock");
  wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
  client = new Client({ name: "wo-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${wo.url}/mcp`)));
  tools = (await client.listTools()).tools as typeof tools;
  const keeper = (await call("keeper_create", { name: "Kim" })).structuredContent.id;
  const rows = [
    { name: "Apple pie", qty: 5, weight: 1.5, at: "2026-01-01T00:00:00.000Z", keeper },
    { name: "apple_juice", note: "fresh", qty: 10, size: "Large", at: "2026-02-01T00:00:00.000Z" },
    { name: "Banana 50%", note: "ripe", qty: 0, weight: 0.2, at: "2026-03-01T00:00:00.000Z", count: 3 },
    { name: "ÄPFEL", qty: 10, size: "Large", at: "2026-04-01T00:00:00.000Z", keeper },
  ];
  for (const row of rows) expect((await call("item_create", row)).isError).toBeFalsy();
});
afterAll(async () => {
  await client?.close();
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

describe("tools/list tells an agent how to query", () => {
  it("item_list's schema offers where per field with the operators its type takes, sort and count", () => {
    const schema = tools.find((t) => t.name === "item_list")!.inputSchema;
    const where = schema.properties.where.properties;
    expect(Object.keys(where.qty.properties)).toEqual(["eq", "ne", "lt", "lte", "gt", "gte", "in"]);
    expect(Object.keys(where.name.properties)).toEqual(["eq", "ne", "lt", "lte", "gt", "gte", "in", "contains"]);
    expect(Object.keys(where.note.properties)).toEqual([
      "eq",
      "ne",
      "lt",
      "lte",
      "gt",
      "gte",
      "in",
      "contains",
      "null",
    ]);
    expect(Object.keys(where.size.properties)).toEqual(["eq", "ne", "in"]);
    expect(where.size.properties.in.items).toEqual({ type: "string", enum: ["Small", "Large"] });
    expect(where.count).toBeDefined();
    expect(where.tags).toBeUndefined();
    expect(schema.properties.sort.enum).toEqual(expect.arrayContaining(["id", "-id", "qty", "-qty", "at", "-at"]));
    expect(schema.properties.sort.default).toBe("id");
    expect(schema.properties.count).toMatchObject({ type: "boolean", default: false });
    // `count` is the control; the field named count filters through where only.
    expect(schema.properties.count.type).toBe("boolean");
    expect(schema.properties.size).toEqual({
      type: "string",
      enum: ["Small", "Large"],
      description: expect.any(String),
    });
  });

  it("the server's instructions say how list tools query", () => {
    expect(client.getInstructions()).toContain("`where: { field: { op: value } }`, order with `sort`");
  });

  it("create shows defaults; titles and descriptions name the related tools", () => {
    const create = tools.find((t) => t.name === "item_create")!;
    expect(create.inputSchema.properties.price.default).toBe(0);
    expect(create.inputSchema.properties.done.default).toBe(false);
    expect(create.inputSchema.properties.size.default).toBe("Small");
    expect(create.title).toBe("Create item");
    expect(tools.find((t) => t.name === "item_list")!.title).toBe("List items");
    expect(tools.find((t) => t.name === "item_get")!.description).toContain(
      "keeper is the id of a keeper (keeper_get reads it)",
    );
    expect(tools.find((t) => t.name === "keeper_get")!.description).toContain(
      "item_list with { keeper: <id> } lists the items whose keeper it is",
    );
  });
});

describe("tools/call item_list", () => {
  it("filters with where and with the plain equality arguments it always took", async () => {
    expect(await ids({ size: "Large" })).toEqual([2, 4]);
    expect(await ids({ where: { qty: { gte: 5 } } })).toEqual([1, 2, 4]);
    expect(await ids({ where: { qty: { gt: 0, lt: 10 } } })).toEqual([1]);
    expect(await ids({ where: { name: { contains: "APPLE" } } })).toEqual([1, 2]);
    expect(await ids({ where: { note: { null: true } } })).toEqual([1, 4]);
    expect(await ids({ where: { note: { ne: "fresh" } } })).toEqual([1, 3, 4]);
    expect(await ids({ where: { id: { in: [4, 1] } }, size: "Large" })).toEqual([4]);
    expect(await ids({ where: { at: { gte: "2026-02-01T01:00:00+01:00" } } })).toEqual([2, 3, 4]);
    expect(await ids({ where: { count: { eq: 3 } } })).toEqual([3]);
  });

  it("sorts both ways and pages with the cursor of that sort; count gives the total", async () => {
    expect(await ids({ sort: "-qty" })).toEqual([4, 2, 1, 3]);
    expect(await ids({ sort: "weight" })).toEqual([2, 4, 3, 1]);
    const first = await list({ sort: "-qty", limit: 3, count: true });
    expect(first.items.map((r) => r.id)).toEqual([4, 2, 1]);
    expect(first.total).toBe(4);
    const second = await list({ sort: "-qty", limit: 3, cursor: first.nextCursor });
    expect(second.items.map((r) => r.id)).toEqual([3]);
    expect(second.nextCursor).toBeUndefined();
    expect(second.total).toBeUndefined();

    const wrong = await call("item_list", { sort: "qty", cursor: first.nextCursor });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0].text).toContain("The cursor belongs to a listing sorted by '-qty', not 'qty'.");
  });

  it.each([
    [{ where: { size: { lt: "Large" } } }, "/where/size/lt"],
    [{ where: { qty: { contains: "1" } } }, "/where/qty/contains"],
    [{ where: { name: { null: true } } }, "/where/name/null"],
    [{ where: { qty: { gte: "5" } } }, "/where/qty/gte"],
    [{ where: { qty: {} } }, "/where/qty"],
    [{ where: { tags: { eq: "x" } } }, "/where/tags"],
    [{ where: { id: { in: [] } } }, "/where/id/in"],
    [{ sort: "tags" }, "/sort"],
    [{ count: 3 }, "/count"],
  ])("%j is an isError result naming %s", async (args, path) => {
    const r = await call("item_list", args);
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/^Invalid input: /);
    expect(r.content[0].text).toContain(path);
  });

  it("an operator the field does not take is answered with those it does take", async () => {
    const r = await call("item_list", { where: { size: { lt: "Large" }, name: { null: true } } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain("- /where/size/lt: is not an operator of size; it takes eq, ne, in");
    expect(r.content[0].text).toContain(
      "- /where/name/null: is not an operator of name; it takes eq, ne, lt, lte, gt, gte, in, contains",
    );
  });
});
