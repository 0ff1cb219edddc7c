// The audit trail end to end (spec/operations.md, "Audit trail"): a real `wo run` of the
// samples, written to over REST and the official MCP SDK client, read back over
// `GET /_wo/audit` and with `wo audit`; and a SIGKILL under load, after which every
// acknowledged write has exactly one entry.

import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { copyApp, removeApp, runWoCommand, startWo, type WoProcess } from "../support/wo-process.js";
import { mcpClient, openTwoAccounts, post, transfersUntilKilled } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const serve = (app: string): Promise<WoProcess> => startWo([app, "--listen", "127.0.0.1:0"]);

async function send(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe("samples/blog: REST and MCP writes, links and refusals are recorded", () => {
  let app: string;
  let wo: WoProcess;
  let mcp: Client;
  beforeAll(async () => {
    app = copyApp("samples/blog");
    wo = await serve(app);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
    if (app) removeApp(app);
  });

  it("one entry per write and per refused call, with surface, operation, type, row and outcome", async () => {
    const author = await post(wo.url, "/api/authors", { name: "Ada", email: "ada@example.com" });
    expect(author.status).toBe(201);
    const viaMcp = await mcp.callTool({ name: "author_create", arguments: { name: "Bo", email: "bo@example.com" } });
    expect(viaMcp.isError).toBeFalsy();
    const postRow = await post(wo.url, "/api/posts", {
      title: "Hello",
      slug: "hello",
      body: "Hi",
      author: author.body.id,
    });
    const tag = await post(wo.url, "/api/tags", { label: "news" });
    expect((await send(wo.url, "PUT", `/api/posts/${postRow.body.id}/tags/${tag.body.id}`, {})).status).toBe(201);
    expect((await send(wo.url, "DELETE", `/api/posts/${postRow.body.id}/tags/${tag.body.id}`)).status).toBe(204);
    // Refused: a duplicate email (409), a missing row (404), bad input (400), a missing tool row over MCP.
    expect((await post(wo.url, "/api/authors", { name: "Ada 2", email: "ada@example.com" })).status).toBe(409);
    expect((await send(wo.url, "PATCH", "/api/authors/999", { name: "x" })).status).toBe(404);
    expect((await post(wo.url, "/api/authors", { name: 5 })).status).toBe(400);
    const missing = await mcp.callTool({ name: "author_update", arguments: { id: 998, name: "y" } });
    expect(missing.isError).toBe(true);
    // Reads are not recorded.
    await send(wo.url, "GET", "/api/authors");
    await mcp.callTool({ name: "author_list", arguments: {} });

    const trail = await send(wo.url, "GET", "/_wo/audit");
    expect(trail.status).toBe(200);
    const seen = trail.body.items.map((e: any) => [e.surface, e.operation, e.type, e.rowId, e.outcome]);
    expect(seen).toEqual([
      ["rest", "author_create", "Author", author.body.id, "ok"],
      ["mcp", "author_create", "Author", (viaMcp.structuredContent as any).id, "ok"],
      ["rest", "post_create", "Post", postRow.body.id, "ok"],
      ["rest", "tag_create", "Tag", tag.body.id, "ok"],
      ["rest", "post_tags_add", "Post", postRow.body.id, "ok"],
      ["rest", "post_tags_remove", "Post", postRow.body.id, "ok"],
      ["rest", "author_create", "Author", null, "conflict"],
      ["rest", "author_update", "Author", 999, "not_found"],
      ["rest", "author_create", "Author", null, "invalid_input"],
      ["mcp", "author_update", "Author", 998, "not_found"],
    ]);
    // With no identity configured every local caller is the owner; no argument value is kept.
    for (const e of trail.body.items) {
      expect(e).toMatchObject({ principal: "owner", user: null, role: null, via: "owner" });
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 600_000);
    }
    expect(JSON.stringify(trail.body)).not.toMatch(/ada@example|Hello|news/);
  });

  it("GET /_wo/audit pages with a cursor and refuses bad parameters", async () => {
    const first = await send(wo.url, "GET", "/_wo/audit?limit=3");
    expect(first.body.items).toHaveLength(3);
    const next = await send(wo.url, "GET", `/_wo/audit?limit=3&cursor=${first.body.nextCursor}`);
    expect(next.body.items[0].seq).toBeGreaterThan(first.body.items[2].seq);
    expect((await send(wo.url, "GET", "/_wo/audit?since=1h")).body.items.length).toBeGreaterThanOrEqual(10);
    expect((await send(wo.url, "GET", "/_wo/audit?since=2999-01-01T00:00:00Z")).body.items).toEqual([]);
    expect((await send(wo.url, "GET", "/_wo/audit?user=nobody")).body.items).toEqual([]);
    for (const bad of ["limit=0", "limit=abc", "since=yesterday", "cursor=-1"]) {
      const r = await send(wo.url, "GET", `/_wo/audit?${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.type).toBe("urn:wo:problem:invalid-input");
    }
  });

  it("wo audit prints the trail while wo run serves: aligned columns, --since, --user, --json", async () => {
    const table = await runWoCommand(["audit", app]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+PRINCIPAL\s+USER\s+ROLE\s+VIA\s+SURFACE\s+OPERATION\s+ROW\s+OUTCOME$/);
    expect(lines).toHaveLength(11);
    // Aligned: every column starts where its heading does.
    const at = lines[0]!.indexOf("OPERATION");
    for (const line of lines.slice(1)) expect(line.slice(at)).toMatch(/^(author|post|tag)_\w+ /);
    expect(lines[1]).toMatch(/owner\s+-\s+-\s+owner\s+rest\s+author_create\s+1\s+ok$/);

    const json = await runWoCommand(["audit", app, "--json", "--since", "1h"]);
    expect(JSON.parse(json.stdout)).toHaveLength(10);
    const future = await runWoCommand(["audit", app, "--since", "2999-01-01T00:00:00Z"]);
    expect(future.stdout).toBe("No audit entries.\n");
    const byUser = await runWoCommand(["audit", app, "--json", "--user", "7"]);
    expect(JSON.parse(byUser.stdout)).toEqual([]);
    const bad = await runWoCommand(["audit", app, "--since", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--since takes an ISO-8601 time");
  });
});

describe("samples/ledger: SIGKILL during a method load", () => {
  let app: string | undefined;
  let wo: WoProcess | undefined;
  afterAll(async () => {
    await wo?.stop();
    if (app) removeApp(app);
  });

  it("every committed transfer has exactly one audit entry, so every acknowledged one does", async () => {
    app = copyApp("samples/ledger");
    wo = await serve(app);
    await openTwoAccounts(wo.url);
    const inFlight = 8;
    const { acked } = await transfersUntilKilled(wo.url, () => wo!.stop("SIGKILL"), inFlight);

    // After a crash the first connection replays the write-ahead log: it needs write access.
    const db = new Database(join(app, ".wo/data/app.sqlite"));
    try {
      const outs = (db.prepare(`SELECT COUNT(*) AS n FROM entries WHERE memo = 'transfer out'`).get() as { n: number })
        .n;
      const audited = db
        .prepare(`SELECT row_id, outcome, surface FROM _wo_audit WHERE operation = 'account_transfer'`)
        .all() as { row_id: number; outcome: string; surface: string }[];
      expect(outs).toBeGreaterThanOrEqual(acked);
      expect(audited.filter((e) => e.outcome === "ok")).toHaveLength(outs);
      expect(audited.every((e) => e.surface === "rest" && (e.row_id === 1 || e.row_id === 2))).toBe(true);
      // 2 creates and 2 deposits before the load.
      const setup = db.prepare(`SELECT COUNT(*) AS n FROM _wo_audit WHERE operation <> 'account_transfer'`).get() as {
        n: number;
      };
      expect(setup.n).toBe(4);
    } finally {
      db.close();
    }
  });
});
