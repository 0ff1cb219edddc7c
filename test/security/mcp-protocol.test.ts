// MCP protocol robustness against a real `wo run samples/hello` (spec/security.md, "What MCP
// reveals", and spec/mcp.md): client strings never reach Object.prototype (method, tool, resource,
// completion and prompt names such as `constructor` are unknown names), the Content-Type is
// parsed as a media type rather than searched for a substring, and a flood of initialize calls
// cannot evict a session a client is using.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyApp } from "../support/wo-process.js";
import { base, env, initialize, modernHeaders, post, req, sessionHeaders } from "../mcp/support/raw.js";
import { startWoRun, startWoRunApp, type WoRun } from "../mcp/support/wo-run.js";

// Starting `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 });

/** Both session pools of the flood server (WO_MCP_MAX_SESSIONS, a test hook: spec/mcp.md). */
const CAP = 20;

let srv: WoRun;
let flooded: WoRun;
beforeAll(async () => {
  [srv, flooded] = await Promise.all([
    startWoRun("hello"),
    startWoRunApp(copyApp("samples/hello"), [], { WO_MCP_MAX_SESSIONS: String(CAP) }),
  ]);
});
afterAll(async () => {
  await Promise.all([srv?.stop(), flooded?.stop()]);
});

const countRows = async (s: WoRun) =>
  ((await (await fetch(`${s.base}/api/greetings?limit=1000`)).json()) as { items: unknown[] }).items.length;
const prototypeNames = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "__defineGetter__"];

describe("names from the wire never reach Object.prototype", () => {
  it("2025-11-25: methods named like Object.prototype members → 200 -32601 Method not found", async () => {
    const { sid } = await initialize(srv.url);
    for (const method of prototypeNames) {
      const r = await post(srv.url, req(method, {}, 7), sessionHeaders(sid));
      expect([r.status, r.json]).toEqual([
        200,
        { jsonrpc: "2.0", id: 7, error: { code: -32601, message: `Method not found: ${method}` } },
      ]);
    }
  });
  it("2026-07-28: the same methods → 404 -32601", async () => {
    for (const method of prototypeNames) {
      const r = await post(srv.url, req(method, { _meta: env }, 8), modernHeaders(method));
      expect([r.status, r.json]).toEqual([
        404,
        { jsonrpc: "2.0", id: 8, error: { code: -32601, message: `Method not found: ${method}` } },
      ]);
    }
  });
  it("tool, resource, prompt and completion names like `constructor` are unknown names", async () => {
    const { sid } = await initialize(srv.url);
    const call = (method: string, params: object) => post(srv.url, req(method, params), sessionHeaders(sid));
    for (const name of prototypeNames) {
      const tool = await call("tools/call", { name, arguments: {} });
      expect(tool.json.error).toEqual({ code: -32602, message: `Unknown tool: ${name}`, data: { name } });
      for (const uri of [`wo://schema/${name}`, `wo://${name}/1`]) {
        const read = await call("resources/read", { uri });
        expect(read.json.error).toEqual({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
      }
      const completion = await call("completion/complete", {
        ref: { type: "ref/resource", uri: `wo://${name}/{id}` },
        argument: { name: "id", value: "" },
      });
      expect(completion.json.result.completion).toEqual({ values: [], total: 0, hasMore: false });
      const prompt = await call("prompts/get", { name });
      expect(prompt.json.error.code).toBe(-32601);
    }
  });
});

describe("Content-Type is application/json, parsed as a media type", () => {
  it("accepts application/json in any case, with parameters", async () => {
    for (const type of [
      "application/json",
      "Application/JSON",
      "application/json; charset=utf-8",
      "APPLICATION/JSON;charset=UTF-8",
      'application/json ; charset="utf-8"',
    ]) {
      const r = await post(
        srv.url,
        req("initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "ct", version: "1" },
        }),
        { ...base, "content-type": type },
      );
      expect([type, r.status]).toEqual([type, 200]);
    }
  });
  it("refuses anything else with 415, and the refused call stores nothing", async () => {
    const { sid } = await initialize(srv.url);
    const before = await countRows(srv);
    for (const type of [
      "application/jsonx",
      "text/plain; application/json",
      "text/plain;charset=application/json",
      "application/json-patch+json",
      "application/x-json",
      "xapplication/json",
      "application /json",
      "application/json/x",
      "",
    ]) {
      const r = await post(
        srv.url,
        req("tools/call", { name: "greeting_create", arguments: { message: `via ${type}` } }),
        { ...sessionHeaders(sid), "content-type": type },
      );
      expect([type, r.status, r.json?.error?.code]).toEqual([type, 415, -32000]);
    }
    expect(await countRows(srv)).toBe(before);
  });
});

describe("a flood of initialize cannot evict a session in use", () => {
  it(`${CAP * 10} initialize calls later, a client's session still answers; the flood's oldest sessions are gone`, async () => {
    const client = new Client({ name: "active", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(flooded.url));
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const flood: string[] = [];
    for (let i = 0; i < CAP * 10; i++) flood.push((await initialize(flooded.url)).sid);
    // The active client carries on with its session.
    const created = await client.callTool({ name: "greeting_create", arguments: { message: "still here" } });
    expect(created.isError).toBeFalsy();
    expect(await client.ping()).toEqual({});
    // The flood only churned its own bounded pool: the first of its sessions were evicted,
    // the last ones still work.
    expect((await post(flooded.url, req("ping"), sessionHeaders(flood[0]!))).status).toBe(404);
    expect((await post(flooded.url, req("ping"), sessionHeaders(flood[flood.length - 1]!))).json.result).toEqual({});
    await transport.terminateSession();
    await client.close();
  });
});
