// `wo run --watch` end to end (spec/live.md, "Watching and hot swap", "List changes"): a real
// `wo run --watch` process, real edits of its .wo files, the official MCP clients. An edit that
// exposes one more operation is migrated and swapped in while a 2025-11-25 session (SDK v1,
// with its GET stream) and a 2026-07-28 listener (v2 client, subscriptions/listen) stay
// connected, and both are told; a broken edit and a destructive one change nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { dumpDb, removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

// Each start and each edit runs a build in a worker: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const note = (fields: string, ops: string) => `type Note {
  id: Id
${fields}
  service rest "/api/notes" expose ${ops}
  service mcp "/mcp" expose ${ops}
}
`;
const v1 = note("  title: Text", "list, get, create");
const v2 = note("  title: Text\n  body: Text?", "list, get, create, update");
const v3 = note("  title: Text\n  body: Text?\n  tag: Text?", "list, get, create, update");

let appDir: string;
let wo: WoProcess;
beforeAll(async () => {
  appDir = writeApp("notes", { "note.wo": v1 });
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch"]);
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

/** Resolves once `pattern` has been printed `count` times (polling the output: no timing assumed). */
async function printed(pattern: RegExp, count = 1): Promise<string> {
  for (;;) {
    const out = wo.output();
    if ((out.match(new RegExp(pattern.source, "g")) ?? []).length >= count) return out;
    if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A promise of the first notification a handler registration sees. */
function first<T>(register: (handler: (n: T) => void) => void): Promise<T> {
  return new Promise((resolve) => register(resolve));
}

const edit = (text: string) => writeFileSync(join(appDir, "note.wo"), text);
const toolNames = (tools: { name: string }[]) => tools.map((t) => t.name);

let v1Client: ClientV1;
let v2Client: ClientV2;

describe("wo run --watch", () => {
  it("an edit that exposes update: the SDK v1 session is notified on its GET stream and lists the new tool; the v2 listener is notified; rows stay", async () => {
    const created = await (
      await fetch(`${wo.url}/api/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "kept" }),
      })
    ).json();
    expect(created).toEqual({ id: 1, title: "kept" });

    // SDK v1 (2025-11-25): a session whose GET stream is open before the edit.
    let getStreamOpen!: () => void;
    const streamOpen = new Promise<void>((r) => (getStreamOpen = r));
    const fetchSeeingGet: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if ((init?.method ?? "GET") === "GET" && res.status === 200) getStreamOpen();
      return res;
    };
    v1Client = new ClientV1({ name: "watch-v1", version: "1" });
    const v1Transport = new TransportV1(new URL(`${wo.url}/mcp`), { fetch: fetchSeeingGet });
    await v1Client.connect(v1Transport);
    expect(v1Client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
    });
    expect(toolNames((await v1Client.listTools()).tools)).toEqual(["note_create", "note_get", "note_list"]);
    const v1Tools = first((h) => v1Client.setNotificationHandler(ToolListChangedNotificationSchema, h));
    const v1Resources = first((h) => v1Client.setNotificationHandler(ResourceListChangedNotificationSchema, h));
    await streamOpen;

    // v2 client (2026-07-28): listens for tools only; prompts are asked for and not honoured.
    v2Client = new ClientV2({ name: "watch-v2", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await v2Client.connect(new TransportV2(new URL(`${wo.url}/mcp`)));
    const v2Tools = first((h) => v2Client.setNotificationHandler("notifications/tools/list_changed", h));
    const v2Resources: unknown[] = [];
    v2Client.setNotificationHandler("notifications/resources/list_changed", (n) => void v2Resources.push(n));
    const subscription = await v2Client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });

    edit(v2);
    const out = await printed(/wo: reloaded: /);
    expect(out).toContain("wo: migrated: new optional field 'Note.body'");
    expect(out).toMatch(
      /wo: reloaded: tools \+note_update, ~note_create, ~note_get, ~note_list; routes \+PATCH \/api\/notes\/:id; types ~Note\n/,
    );

    await v1Tools;
    await v1Resources;
    expect(toolNames((await v1Client.listTools()).tools)).toEqual([
      "note_create",
      "note_get",
      "note_list",
      "note_update",
    ]);
    const updated = await v1Client.callTool({ name: "note_update", arguments: { id: 1, body: "added" } });
    expect(updated.structuredContent).toEqual({ id: 1, title: "kept", body: "added" });

    const toolsChanged = (await v2Tools) as { params?: { _meta?: Record<string, unknown> } };
    expect(toolsChanged.params?._meta?.["io.modelcontextprotocol/subscriptionId"]).toBeDefined();
    expect(toolNames((await v2Client.listTools()).tools)).toContain("note_update");
    // Only what the filter asked for: the resources changed too (the schema has a new field).
    expect(v2Resources).toEqual([]);
    await subscription.close();

    expect(await (await fetch(`${wo.url}/api/notes/1`)).json()).toEqual({ id: 1, title: "kept", body: "added" });
  });

  it("writes while an edit is swapped in: every write is answered 201 and every acknowledged row is stored", async () => {
    const acknowledged: number[] = [];
    const failures: string[] = [];
    let swapped = false;
    const writer = async () => {
      while (!swapped) {
        const res = await fetch(`${wo.url}/api/notes`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ title: "during" }),
        });
        if (res.status === 201) acknowledged.push(((await res.json()) as { id: number }).id);
        else failures.push(`${res.status} ${await res.text()}`);
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    // Some writes before the edit, so the swap happens among them.
    while (acknowledged.length < 8 && failures.length === 0) await new Promise((r) => setTimeout(r, 10));
    edit(v3);
    await printed(/wo: reloaded: /, 2);
    swapped = true;
    await Promise.all(writers);
    expect(failures).toEqual([]);
    const stored = new Set((dumpDb(appDir).note as { id: number }[]).map((r) => r.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(wo.output()).toContain("wo: migrated: new optional field 'Note.tag'");
  });

  it("a broken edit prints the diagnostics and changes nothing: same tools on the same session, same rows", async () => {
    const rows = dumpDb(appDir);
    edit(`${v2}\ntype Broken {\n`);
    const out = await printed(/not reloaded, the previous build keeps serving: the app has errors/);
    expect(out).toMatch(/note\.wo:\d+:\d+: error WO\d{4}: /);
    expect(toolNames((await v1Client.listTools()).tools)).toEqual([
      "note_create",
      "note_get",
      "note_list",
      "note_update",
    ]);
    expect(dumpDb(appDir)).toEqual(rows);
    expect((await fetch(`${wo.url}/api/notes/1`)).status).toBe(200);
  });

  it("a destructive edit is refused with the reason, the data intact, and the old build serving", async () => {
    const rows = dumpDb(appDir);
    edit(note("  title: Text", "list, get, create, update"));
    const out = await printed(/not reloaded, the previous build keeps serving: The database .* was not changed/);
    expect(out).toContain("field 'Note.body' was removed: 1 row hold a value for it that would be deleted");
    expect(out).toContain("--allow-destructive-migration");
    expect(dumpDb(appDir)).toEqual(rows);
    expect(await (await fetch(`${wo.url}/api/notes/1`)).json()).toEqual({
      id: 1,
      title: "kept",
      body: "added",
      tag: null,
    });
    // The session made before every swap still works.
    const listed = await v1Client.callTool({ name: "note_list", arguments: { limit: 1 } });
    expect((listed.structuredContent as { items: unknown[] }).items).toEqual([
      { id: 1, title: "kept", body: "added", tag: null },
    ]);
    await v1Client.close();
  });

  it("a .wo file in a new folder is watched too: its type is added", async () => {
    // The refused edit is undone in the same save: v3 is what serves.
    edit(v3);
    mkdirSync(join(appDir, "tags"));
    writeFileSync(
      join(appDir, "tags", "tag.wo"),
      `type Tag {\n  id: Id\n  label: Text\n  service rest "/api/tags" expose list, create\n}\n`,
    );
    const out = await printed(/wo: reloaded: /, 3);
    expect(out).toContain("wo: migrated: new type 'Tag' (table 'tag')");
    expect(out).toContain(
      "wo: reloaded: tools +tag_create, +tag_list; routes +GET /api/tags, +POST /api/tags; types +Tag\n",
    );
    expect(
      (
        await fetch(`${wo.url}/api/tags`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ label: "new" }),
        })
      ).status,
    ).toBe(201);
  });

  it("when the server stops, a listen stream gets the graceful end", async () => {
    const subscription = await v2Client.listen({ resourcesListChanged: true });
    expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true });
    await wo.stop();
    expect(await subscription.closed).toBe("graceful");
    await v2Client.close();
  });
});
