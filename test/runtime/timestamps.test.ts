// Timestamps are stored in UTC whatever offset they were sent with (spec/storage.md,
// "Timestamps"): on create, update, a method storing its argument, a literal default, nested in
// a struct, and in list filters over REST and MCP. A real `wo run` and its SQLite file.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { dumpDb, removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { mcpClient, post } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const app = {
  "event.wo": `class Event {
  title: Text
  at: Timestamp
  starts: Timestamp = "2026-06-01T12:00:00+02:00"
  slots: [{ from: Timestamp }]

  fn reschedule(to: Timestamp) -> Event in txn {
    update self set at = to
    return self
  }

  service rest "/api/events" expose list, get, create, update, reschedule
  service mcp "/mcp" expose list, create
}
`,
};

let dir: string;
let wo: WoProcess;
let mcp: Client;

beforeAll(async () => {
  dir = writeApp("timestamps", app);
  wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
  mcp = await mcpClient(wo.url);
});
afterAll(async () => {
  await mcp?.close();
  await wo?.stop();
  if (dir) removeApp(dir);
});

async function get(path: string): Promise<any> {
  const res = await fetch(wo.url + path);
  expect(res.status).toBe(200);
  return res.json();
}

describe("Timestamps are stored in UTC", () => {
  it("create: offsets become Z with milliseconds, top-level, nested and defaults", async () => {
    const created = await post(wo.url, "/api/events", {
      title: "a",
      at: "2026-01-01T10:00:00+02:00",
      slots: [{ from: "2026-01-01T10:00:00.5+02:00" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      at: "2026-01-01T08:00:00.000Z",
      starts: "2026-06-01T10:00:00.000Z",
      slots: [{ from: "2026-01-01T08:00:00.500Z" }],
    });
    const stored = dumpDb(dir).event!.find((r: any) => r.id === created.body.id) as any;
    expect(stored.at).toBe("2026-01-01T08:00:00.000Z");
    expect(JSON.parse(stored.slots)).toEqual([{ from: "2026-01-01T08:00:00.500Z" }]);
  });

  it("list filters: the same instant written with any offset finds the row (REST and MCP)", async () => {
    const created = await post(wo.url, "/api/events", { title: "b", at: "2026-02-01T23:30:00-05:00", slots: [] });
    expect(created.body.at).toBe("2026-02-02T04:30:00.000Z");
    for (const written of ["2026-02-02T04:30:00Z", "2026-02-02T05:30:00+01:00", "2026-02-01T23:30:00.000-05:00"]) {
      const page = await get(`/api/events?at=${encodeURIComponent(written)}`);
      expect(
        page.items.map((r: any) => r.id),
        written,
      ).toEqual([created.body.id]);
    }
    // Range operators compare instants, not texts: both bounds written with an offset.
    const range = await get(
      `/api/events?at[gte]=${encodeURIComponent("2026-02-02T05:30:00+01:00")}&at[lte]=${encodeURIComponent("2026-02-01T23:30:00-05:00")}`,
    );
    expect(range.items.map((r: any) => r.id)).toEqual([created.body.id]);
    const viaMcp = await mcp.callTool({ name: "event_list", arguments: { at: "2026-02-02T06:30:00+02:00" } });
    expect((viaMcp.structuredContent as any).items.map((r: any) => r.id)).toEqual([created.body.id]);
  });

  it("update and a method storing its argument normalise too", async () => {
    const { body } = await post(wo.url, "/api/events", { title: "c", at: "2026-03-01T00:00:00Z", slots: [] });
    const patched = await fetch(`${wo.url}/api/events/${body.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ at: "2026-03-01T09:15:00+09:00", slots: [{ from: "2026-03-01T01:00:00-01:00" }] }),
    });
    expect(await patched.json()).toMatchObject({
      at: "2026-03-01T00:15:00.000Z",
      slots: [{ from: "2026-03-01T02:00:00.000Z" }],
    });
    const moved = await post(wo.url, `/api/events/${body.id}/reschedule`, { to: "2026-03-02T12:00:00+05:30" });
    expect(moved.status).toBe(200);
    expect(moved.body.at).toBe("2026-03-02T06:30:00.000Z");
    expect((await get(`/api/events/${body.id}`)).at).toBe("2026-03-02T06:30:00.000Z");
  });

  it("create over MCP", async () => {
    const r = await mcp.callTool({
      name: "event_create",
      arguments: { title: "d", at: "2026-04-01T10:00:00.123456+02:00", slots: [] },
    });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).at).toBe("2026-04-01T08:00:00.123Z");
  });
});
