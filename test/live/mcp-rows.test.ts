// Row subscriptions over MCP (spec/live.md, "Row subscriptions over MCP") against a real
// `wo run`: the official SDK v1 client (2025-11-25, resources/subscribe on its session) and the
// v2 client (2026-07-28, subscriptions/listen). A write over REST, or by another MCP client, is
// what the subscriber hears about; a row it did not subscribe to is not.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { writeApp } from "../support/wo-process.js";
import { startWoRunApp, type WoRun } from "../mcp/support/wo-run.js";
import { env, initialize, modernHeaders, post as rawPost, req, sessionHeaders } from "../mcp/support/raw.js";
import { liveApp, patch, post, waitFor } from "./support.js";

vi.setConfig({ hookTimeout: 120_000, testTimeout: 30_000 });

let srv: WoRun;
beforeAll(async () => {
  srv = await startWoRunApp(writeApp("rows", liveApp));
});
afterAll(async () => {
  await srv?.stop();
});

const count = (seen: string[], uri: string) => seen.filter((u) => u === uri).length;

/**
 * Writes the fence row over REST and waits for its notification. Notifications reach a stream
 * in commit order, so once the fence's has come, any for an earlier write has come too: what
 * "no notification for that row" waits for, without a timer.
 */
async function fence(seen: string[], id: number): Promise<void> {
  const uri = `wo://note/${id}`;
  const before = count(seen, uri);
  await patch(srv.base, `/api/notes/${id}`, { title: `fence ${before}` });
  await waitFor(
    () => count(seen, uri) > before,
    () => `no notification for the fence ${uri}: ${JSON.stringify(seen)}`,
  );
}

describe("SDK v1 client (2025-11-25): resources/subscribe on the session", () => {
  it("declares resources.subscribe; a PATCH over REST notifies that row only; unsubscribe stops it; a delete notifies", async () => {
    const a = (await post(srv.base, "/api/notes", { title: "a" })).id as number;
    const b = (await post(srv.base, "/api/notes", { title: "b" })).id as number;
    const c = (await post(srv.base, "/api/notes", { title: "fence" })).id as number;
    const client = new ClientV1({ name: "sub", version: "1" });
    const transport = new TransportV1(new URL(srv.url));
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    await client.connect(transport);
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: false });
    expect(await client.subscribeResource({ uri: `wo://note/${a}` })).toEqual({});
    expect(await client.subscribeResource({ uri: `wo://note/${c}` })).toEqual({});
    // The client opens the GET stream that carries notifications on its own, just after
    // initialize: write the fence row until one arrives, then start counting.
    for (let i = 0; i < 200 && seen.length === 0; i++) {
      await patch(srv.base, `/api/notes/${c}`, { title: "warm-up" });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.length, "the session's GET stream never carried a notification").toBeGreaterThan(0);
    seen.length = 0;

    await patch(srv.base, `/api/notes/${a}`, { title: "a2" });
    await patch(srv.base, `/api/notes/${b}`, { title: "b2" });
    await fence(seen, c);
    expect(seen.filter((u) => u !== `wo://note/${c}`)).toEqual([`wo://note/${a}`]);

    // A write through an MCP tool of another client is heard the same way.
    const other = new ClientV1({ name: "writer", version: "1" });
    const otherTransport = new TransportV1(new URL(srv.url));
    await other.connect(otherTransport);
    await other.callTool({ name: "note_update", arguments: { id: a, title: "a3" } });
    await waitFor(
      () => count(seen, `wo://note/${a}`) === 2,
      () => JSON.stringify(seen),
    );

    expect(await client.unsubscribeResource({ uri: `wo://note/${a}` })).toEqual({});
    await patch(srv.base, `/api/notes/${a}`, { title: "a4" });
    await fence(seen, c);
    expect(count(seen, `wo://note/${a}`)).toBe(2);

    const fences = count(seen, `wo://note/${c}`);
    await other.callTool({ name: "note_delete", arguments: { id: c } });
    await waitFor(
      () => count(seen, `wo://note/${c}`) === fences + 1,
      () => JSON.stringify(seen),
    );

    await otherTransport.terminateSession();
    await other.close();
    await transport.terminateSession();
    await client.close();
  });

  it("refuses what resources/read refuses: a missing row, a type not readable over MCP, a malformed URI", async () => {
    const client = new ClientV1({ name: "sub", version: "1" });
    const transport = new TransportV1(new URL(srv.url));
    await client.connect(transport);
    await expect(client.subscribeResource({ uri: "wo://note/999999" })).rejects.toMatchObject({ code: -32002 });
    const secret = (await post(srv.base, "/api/secrets", { code: "x" })).id as number;
    await expect(client.subscribeResource({ uri: `wo://secret/${secret}` })).rejects.toMatchObject({ code: -32002 });
    await expect(client.subscribeResource({ uri: "wo://note/abc" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.subscribeResource({ uri: 42 as unknown as string })).rejects.toMatchObject({ code: -32602 });
    await transport.terminateSession();
    await client.close();
  });
});

describe("v2 client (2026-07-28): subscriptions/listen with resourceSubscriptions", () => {
  it("honours the readable rows it names; notifies that row after a REST PATCH and not another; close stops it", async () => {
    const a = (await post(srv.base, "/api/notes", { title: "a" })).id as number;
    const b = (await post(srv.base, "/api/notes", { title: "b" })).id as number;
    const c = (await post(srv.base, "/api/notes", { title: "fence" })).id as number;
    const client = new ClientV2({ name: "listen", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await client.connect(new TransportV2(new URL(srv.url)));
    const seen: string[] = [];
    client.setNotificationHandler(
      "notifications/resources/updated",
      (n: { params: { uri: string } }) => void seen.push(n.params.uri),
    );
    const sub = await client.listen({
      resourceSubscriptions: [`wo://note/${a}`, `wo://note/${c}`, "wo://note/999999", "wo://nothing/1"],
    });
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [`wo://note/${a}`, `wo://note/${c}`] });

    await patch(srv.base, `/api/notes/${a}`, { title: "a2" });
    await patch(srv.base, `/api/notes/${b}`, { title: "b2" });
    await fence(seen, c);
    expect(seen.filter((u) => u !== `wo://note/${c}`)).toEqual([`wo://note/${a}`]);

    await sub.close();
    expect(await sub.closed).toBe("local");
    await client.close();
  });

  it("a listen whose filter names nothing readable is acknowledged empty and ends gracefully", async () => {
    const client = new ClientV2({ name: "listen", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await client.connect(new TransportV2(new URL(srv.url)));
    const sub = await client.listen({ resourceSubscriptions: ["wo://note/999999"] });
    expect(sub.honoredFilter).toEqual({});
    expect(await sub.closed).toBe("graceful");
    await client.close();
  });
});

describe("bad input and sessionless mode", () => {
  it("subscriptions/listen with resourceSubscriptions that is not an array of strings: -32602, no stream", async () => {
    for (const bad of ["wo://note/1", [1], { uri: "wo://note/1" }]) {
      const r = await rawPost(
        srv.url,
        req("subscriptions/listen", { _meta: env, notifications: { resourceSubscriptions: bad } }),
        modernHeaders("subscriptions/listen"),
      );
      expect([r.status, r.json?.error?.code]).toEqual([200, -32602]);
    }
  });

  it("resources/unsubscribe without a uri: -32602; of a URI never subscribed: {}", async () => {
    const { sid } = await initialize(srv.url);
    const missing = await rawPost(srv.url, req("resources/unsubscribe", {}), sessionHeaders(sid));
    expect(missing.json.error.code).toBe(-32602);
    const never = await rawPost(srv.url, req("resources/unsubscribe", { uri: "wo://note/1" }), sessionHeaders(sid));
    expect(never.json.result).toEqual({});
  });

  it("without sessions a 2025 client is not offered resources.subscribe, and resources/subscribe is -32601", async () => {
    const sessionless = await startWoRunApp(writeApp("rows", liveApp), ["--no-mcp-sessions"]);
    try {
      const init = await initialize(sessionless.url);
      expect(init.json.result.capabilities.resources).toEqual({ subscribe: false, listChanged: false });
      const r = await rawPost(sessionless.url, req("resources/subscribe", { uri: "wo://note/1" }));
      expect(r.json.error.code).toBe(-32601);
      // 2026-07-28 still offers it: its stream needs no session.
      const d = await rawPost(
        sessionless.url,
        req("server/discover", { _meta: env }),
        modernHeaders("server/discover"),
      );
      expect(d.json.result.capabilities.resources).toEqual({ subscribe: true, listChanged: false });
    } finally {
      await sessionless.stop();
    }
  });
});
