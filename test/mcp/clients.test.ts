// The official MCP clients as peers: SDK v1 (2025-11-25, sessions) and the v2 client with
// versionNegotiation auto (2026-07-28, stateless) run connect → tools/list → create → list →
// resources/read against a real `wo run samples/hello` (real socket, real SQLite file), with
// the details the per-sample test (samples.test.ts) does not look at.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { startWoRun, type WoRun } from "./support/wo-run.js";

// Starting `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000 });

let srv: WoRun;
beforeAll(async () => {
  srv = await startWoRun("hello");
});
afterAll(async () => {
  await srv?.stop();
});

const exposed = ["greeting_create", "greeting_delete", "greeting_get", "greeting_list", "greeting_update"];

describe("official SDK v1 client (2025-11-25)", () => {
  it("connects with a session, lists tools, creates, lists, reads", async () => {
    const client = new ClientV1({ name: "t", version: "1" });
    const transport = new TransportV1(new URL(srv.url));
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(client.getServerVersion()).toEqual({ name: "hello", version: "0.1.0" });
    expect(client.getInstructions()).toContain("wo://greeting/{id}");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(exposed);
    const created = await client.callTool({ name: "greeting_create", arguments: { message: "from v1" } });
    expect(created.isError).toBeFalsy();
    const row = created.structuredContent as { id: number; message: string; created_at: string };
    expect(row).toEqual({ id: row.id, message: "from v1", from: null, created_at: row.created_at });
    expect(JSON.parse((created.content as { text: string }[])[0]!.text)).toEqual(row);
    const listed = await client.callTool({ name: "greeting_list", arguments: {} });
    expect((listed.structuredContent as { items: unknown[] }).items).toContainEqual(row);
    const read = await client.readResource({ uri: `wo://greeting/${row.id}` });
    const rest = await (await fetch(`${srv.base}/api/greetings/${row.id}`)).text();
    expect((read.contents[0] as { text: string }).text).toBe(rest);
    const bad = await client.callTool({ name: "greeting_create", arguments: { message: 42 } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]!.text).toContain("/message");
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.readResource({ uri: "wo://greeting/999999" })).rejects.toMatchObject({ code: -32002 });
    expect(await client.ping()).toEqual({});
    await transport.terminateSession();
    await client.close();
  });
});

describe("official v2 client, versionNegotiation auto (2026-07-28)", () => {
  it("negotiates 2026-07-28 and runs the same flow statelessly", async () => {
    const client = new ClientV2({ name: "t2", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    const transport = new TransportV2(new URL(srv.url));
    await client.connect(transport);
    expect((client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion()).toBe(
      "2026-07-28",
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(exposed);
    const created = await client.callTool({ name: "greeting_create", arguments: { message: "from v2" } });
    const row = created.structuredContent as { id: number };
    expect(row).toMatchObject({ message: "from v2", from: null });
    const listed = await client.callTool({ name: "greeting_list", arguments: {} });
    expect((listed.structuredContent as { items: unknown[] }).items).toContainEqual(row);
    const read = await client.readResource({ uri: `wo://greeting/${row.id}` });
    const rest = await (await fetch(`${srv.base}/api/greetings/${row.id}`)).text();
    expect((read.contents[0] as { text: string }).text).toBe(rest);
    const schema = await client.readResource({ uri: "wo://schema/greeting" });
    expect(
      JSON.parse((schema.contents[0] as { text: string }).text).fields.map((f: { name: string }) => f.name),
    ).toEqual(["id", "message", "from", "created_at"]);
    await expect(client.readResource({ uri: "wo://greeting/999999" })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });
});
