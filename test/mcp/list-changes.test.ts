// List-change notifications on the MCP endpoint (runtime/mcp/list-changes.ts; spec/live.md,
// "List changes"), raw HTTP against the fixture with listChanged on, as `wo run --watch` runs
// it: what a swap (setBuild) sends on a 2025 GET stream and on 2026-07-28 listen streams, only
// what was asked for, nothing when the lists are the same, and the bound on listen streams.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOperations, manifest, notesApp, startFixture, type FixtureServer } from "./support/fixture.js";
import { env, initialize, modernHeaders, req } from "./support/raw.js";

let fx: FixtureServer;
beforeAll(async () => {
  fx = await startFixture({ options: { listChanged: true, maxSessions: 2, keepAliveMs: 0 } });
});
afterAll(async () => {
  await fx?.close();
});

/** An open SSE response read frame by frame (`event: message` frames as JSON; comments skipped). */
function frames(res: Response) {
  const reader = res.body!.getReader();
  let buffer = "";
  return async function next(): Promise<any> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith("event: message")) return JSON.parse(frame.slice(frame.indexOf("data: ") + 6));
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffer += new TextDecoder().decode(value);
    }
  };
}

const listen = (filter: object, id: number) =>
  fetch(fx.url, {
    method: "POST",
    headers: { ...modernHeaders("subscriptions/listen"), accept: "text/event-stream" },
    body: JSON.stringify(req("subscriptions/listen", { notifications: filter, _meta: env }, id)),
  });

const build = (tools = manifest.tools) => ({
  catalog: { ...notesApp, operations: notesApp.operations.filter((o) => tools.some((t) => t.name === o.name)) },
  operations: createOperations(fx.store),
  store: fx.store,
  serverInfo: { name: "notes", version: "0.1.0" },
});

describe("list changes (listChanged on)", () => {
  it("initialize and server/discover declare listChanged; lists carry ttlMs 0", async () => {
    const init = await initialize(fx.url);
    expect(init.json.result.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
    });
    const list = await fetch(fx.url, {
      method: "POST",
      headers: modernHeaders("tools/list"),
      body: JSON.stringify(req("tools/list", { _meta: env })),
    });
    expect(await list.json()).toMatchObject({ result: { ttlMs: 0, cacheScope: "public" } });
  });

  it("a swap that changes the tools: the GET stream gets tools/list_changed, a listener for tools gets it tagged, a listener for resources gets nothing", async () => {
    const { sid } = await initialize(fx.url);
    const get = await fetch(fx.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" },
    });
    const onGet = frames(get);
    const tools = frames(
      await listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["wo://note/1"] }, 11),
    );
    expect(await tools()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": 11 } },
    });
    const resources = frames(await listen({ resourcesListChanged: true }, 12));
    expect((await resources()).params.notifications).toEqual({ resourcesListChanged: true });

    // The same lists: nothing is sent.
    expect(fx.mcp.setBuild(build())).toEqual([]);
    // One tool fewer (one that no schema resource names): the tools list changed, the resources did not.
    expect(fx.mcp.setBuild(build(manifest.tools.filter((t) => t.name !== "note_slow_create")))).toEqual(["tools"]);
    expect(await onGet()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} });
    expect(await tools()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": 11 } },
    });
    // The session serves the new build.
    const listed = await fetch(fx.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-session-id": sid,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify(req("tools/list", {})),
    });
    expect((((await listed.json()) as any).result.tools as { name: string }[]).map((t) => t.name)).not.toContain(
      "note_slow_create",
    );

    // At most maxSessions (2) listen streams: a third is refused until one closes.
    const refused = await listen({ toolsListChanged: true }, 13);
    expect(await refused.json()).toMatchObject({ id: 13, error: { code: -32000 } });

    // Shutdown: each listen stream gets its graceful end, tagged, then ends (the resources
    // listener's first frame after its acknowledgement: it was told nothing about tools).
    fx.mcp.close();
    expect(await resources()).toEqual({
      jsonrpc: "2.0",
      id: 12,
      result: {
        resultType: "complete",
        _meta: {
          "io.modelcontextprotocol/subscriptionId": 12,
          "io.modelcontextprotocol/serverInfo": { name: "notes", version: "0.1.0" },
        },
      },
    });
    expect(await resources()).toBeUndefined();
    expect((await tools()).id).toBe(11);
    expect(await onGet()).toBeUndefined();
  });
});
