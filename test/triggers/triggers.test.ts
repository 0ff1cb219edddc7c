// Triggers run inside the writing transaction, whoever writes (spec/language.md, "Triggers"):
// REST create and update, MCP tools/call, a method's `update`, `wo test`; on SQLite and on
// PostgreSQL. A real `wo run`, its database, the official MCP SDK client.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpClient, post } from "../methods/wo-process.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { copyApp, removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

const fixture = "test/fixtures/apps/triggers";

async function json(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The rows of a list route. */
async function items(base: string, path: string): Promise<any[]> {
  const res = await json(base, "GET", path);
  expect(res.status).toBe(200);
  return res.body.items;
}

function toolResult(result: any): any {
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** What every store must do with the fixture's triggers over REST. */
function restCases(server: () => string) {
  it("REST: publishing sets published_at once, on the transition only", async () => {
    const base = server();
    const created = await post(base, "/api/articles", { title: "hello" });
    expect(created.status).toBe(201);
    expect(created.body.published_at).toBeNull();
    const id = created.body.id;

    const published = await json(base, "PATCH", `/api/articles/${id}`, { status: "Published" });
    expect(published.status).toBe(200);
    expect(published.body.published_at).toMatch(iso);
    // Stored, not only answered.
    expect((await json(base, "GET", `/api/articles/${id}`)).body.published_at).toBe(published.body.published_at);

    // Published → Published is no transition: the time stays.
    await new Promise((r) => setTimeout(r, 5));
    const again = await json(base, "PATCH", `/api/articles/${id}`, { status: "Published", title: "hello 2" });
    expect(again.status).toBe(200);
    expect(again.body.published_at).toBe(published.body.published_at);
    // The title change was logged by the other trigger's fn, in the same transaction.
    const edits = (await items(base, "/api/edits")).filter((e) => e.article === id);
    expect(edits).toEqual([expect.objectContaining({ before: "hello", after: "hello 2" })]);
  });

  it("REST: a trigger whose fn aborts rolls the write back (409, row unchanged)", async () => {
    const base = server();
    const before = (await items(base, "/api/articles")).length;
    const refused = await post(base, "/api/articles", { title: "secret", locked: true });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain("the title is not allowed: secret");
    expect((await items(base, "/api/articles")).length).toBe(before);

    const { body: row } = await post(base, "/api/articles", { title: "fine" });
    const edits = (await items(base, "/api/edits")).length;
    const forbidden = await json(base, "PATCH", `/api/articles/${row.id}`, { title: "forbidden", status: "Published" });
    expect(forbidden.status).toBe(409);
    const after = (await json(base, "GET", `/api/articles/${row.id}`)).body;
    expect(after).toMatchObject({ title: "fine", status: "Draft", published_at: null });
    // The edit the first trigger logged went with the rolled-back update.
    expect((await items(base, "/api/edits")).length).toBe(edits);
  });

  it("a method's update statement fires the trigger", async () => {
    const base = server();
    const { body: row } = await post(base, "/api/articles", { title: "by method" });
    const res = await post(base, `/api/articles/${row.id}/publish`, {});
    expect(res.status).toBe(200);
    expect((await json(base, "GET", `/api/articles/${row.id}`)).body).toMatchObject({
      status: "Published",
      published_at: expect.stringMatching(iso),
    });
  });
}

describe("triggers on SQLite", () => {
  let dir: string;
  let wo: WoProcess;
  let mcp: Client;
  beforeAll(async () => {
    dir = copyApp(fixture);
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  restCases(() => wo.url);

  it("MCP tools/call: update fires the trigger; an aborting trigger is a tool error and writes nothing", async () => {
    const created = toolResult(await mcp.callTool({ name: "article_create", arguments: { title: "via mcp" } }));
    const updated = toolResult(
      await mcp.callTool({ name: "article_update", arguments: { id: created.id, status: "Published" } }),
    );
    expect(updated.published_at).toMatch(iso);

    const count = (await items(wo.url, "/api/articles")).length;
    const refused: any = await mcp.callTool({ name: "article_create", arguments: { title: "no", locked: true } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("the title is not allowed: no");
    expect((await items(wo.url, "/api/articles")).length).toBe(count);
  });

  it("wo test: the fixture's tests see the triggers run", async () => {
    const testDir = copyApp(fixture);
    try {
      const res = await runWoCommand(["test", testDir]);
      expect(res.stdout + res.stderr).toContain("3 passed, 0 failed");
      expect(res.code).toBe(0);
    } finally {
      removeApp(testDir);
    }
  });
});

/** Nine types whose create triggers each create a row of the next: a chain of nine triggers. */
function chainApp(): Record<string, string> {
  const parts: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const trigger = i < 10 ? `\n  on create do call next${i}(self)` : "";
    parts.push(`type T${i} {\n  n: Int = 0${trigger}\n  service rest "/api/t${i}" expose list, create\n}\n`);
    if (i < 10) parts.push(`fn next${i}(x: T${i}) {\n  insert T${i + 1} { n: 1 }\n}\n`);
  }
  // A trigger whose fn updates the row it fired for: its own write does not fire it again.
  parts.push(`class Counter {
  n: Int = 0
  hits: Int = 0
  on update do call bump(self)
  service rest "/api/counters" expose get, create, update
}
fn bump(c: Counter) {
  let row = Counter{ id == c }
  update row set hits = row.hits + 1
}
`);
  // on delete: the fn sees the row before it is removed.
  parts.push(`type Tag {
  name: Text
  on delete do call log_removal(self.name)
  service rest "/api/tags" expose list, create, delete
}
type Removal {
  name: Text
  service rest "/api/removals" expose list
}
fn log_removal(name: Text) {
  insert Removal { name: name + " removed" }
}
`);
  return { "app.wo": parts.join("\n") };
}

describe("trigger chains", () => {
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    dir = writeApp("trigger-chain", chainApp());
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("a chain of eight triggers runs; nine is refused with 409 naming the chain, and nothing is written", async () => {
    const eight = await post(wo.url, "/api/t2", {});
    expect(eight.status).toBe(201);
    expect(await items(wo.url, "/api/t10")).toHaveLength(1);

    const nine = await post(wo.url, "/api/t1", {});
    expect(nine.status).toBe(409);
    const message = JSON.stringify(nine.body);
    expect(message).toContain("chained more than 8 deep");
    expect(message).toContain("T1 on create (app.wo:");
    expect(message).toContain("T9 on create (app.wo:");
    expect(await items(wo.url, "/api/t1")).toHaveLength(0);
    expect(await items(wo.url, "/api/t10")).toHaveLength(1);
  });

  it("a delete fires its trigger, which sees the row before it is removed", async () => {
    const { body: tag } = await post(wo.url, "/api/tags", { name: "old" });
    const res = await json(wo.url, "DELETE", `/api/tags/${tag.id}`);
    expect(res.status).toBe(204);
    expect(await items(wo.url, "/api/tags")).toHaveLength(0);
    expect((await items(wo.url, "/api/removals")).map((r) => r.name)).toEqual(["old removed"]);
  });

  it("a trigger's own write does not fire it again", async () => {
    const { body: c } = await post(wo.url, "/api/counters", {});
    const res = await json(wo.url, "PATCH", `/api/counters/${c.id}`, { n: 5 });
    expect(res.status).toBe(200);
    expect((await json(wo.url, "GET", `/api/counters/${c.id}`)).body).toMatchObject({ n: 5, hits: 1 });
  });
});

describe("triggers on PostgreSQL", () => {
  let pg: PostgresServer;
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    dir = copyApp(fixture);
    wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0", "--quiet"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
    await pg?.stop();
  });

  restCases(() => wo.url);
});
