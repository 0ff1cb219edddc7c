// One 2026-07-28 `subscriptions/listen` stream on a real `wo run --watch` (spec/live.md, "Row
// subscriptions over MCP", "List changes"): the same stream hears about a subscribed row after
// a REST PATCH and about the tools after a .wo edit, and after the swap it still hears about
// the row, named by the new build.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { patch, post, waitFor } from "./support.js";

// Each start and each edit runs a build in a worker: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const note = (mcpOps: string) => `type Note {
  id: Id
  title: Text
  service rest "/api/notes" expose list, get, create, update, subscribe
  service mcp "/mcp" expose ${mcpOps}
}
`;

let appDir: string;
let wo: WoProcess;
beforeAll(async () => {
  appDir = writeApp("watch-listen", { "note.wo": note("list, get, create, update") });
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch"]);
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

describe("wo run --watch, one subscriptions/listen stream", () => {
  it("receives notifications/resources/updated for its row after a REST PATCH and tools/list_changed after a .wo edit", async () => {
    const id = (await post(wo.url, "/api/notes", { title: "watched" })).id as number;
    const uri = `wo://note/${id}`;
    const client = new ClientV2({ name: "watch-listen", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await client.connect(new TransportV2(new URL(`${wo.url}/mcp`)));
    const updated: { uri: string; subscriptionId: unknown }[] = [];
    const toolsChanged: unknown[] = [];
    client.setNotificationHandler(
      "notifications/resources/updated",
      (n: { params: { uri: string; _meta?: Record<string, unknown> } }) => {
        updated.push({ uri: n.params.uri, subscriptionId: n.params._meta?.["io.modelcontextprotocol/subscriptionId"] });
      },
    );
    client.setNotificationHandler(
      "notifications/tools/list_changed",
      (n: { params?: { _meta?: Record<string, unknown> } }) => {
        toolsChanged.push(n.params?._meta?.["io.modelcontextprotocol/subscriptionId"]);
      },
    );
    const sub = await client.listen({ resourceSubscriptions: [uri], toolsListChanged: true });
    expect(sub.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] });

    await patch(wo.url, `/api/notes/${id}`, { title: "patched" });
    await waitFor(
      () => updated.length === 1,
      () => `no resources/updated after the PATCH: ${JSON.stringify(updated)}`,
    );
    expect(updated[0]!.uri).toBe(uri);
    const subscriptionId = updated[0]!.subscriptionId;
    expect(subscriptionId).toBeDefined();

    // The edit exposes delete over MCP: one more tool.
    writeFileSync(join(appDir, "note.wo"), note("list, get, create, update, delete"));
    await waitFor(
      () => toolsChanged.length === 1,
      () => `no tools/list_changed after the edit; wo run printed:\n${wo.output()}`,
    );
    expect(toolsChanged[0]).toEqual(subscriptionId);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("note_delete");

    // The stream outlived the swap: the row is still watched on it.
    await patch(wo.url, `/api/notes/${id}`, { title: "patched again" });
    await waitFor(
      () => updated.length === 2,
      () => `no resources/updated after the swap: ${JSON.stringify(updated)}`,
    );
    expect(updated[1]).toEqual({ uri, subscriptionId });

    await sub.close();
    expect(await sub.closed).toBe("local");
    await client.close();
  });
});
