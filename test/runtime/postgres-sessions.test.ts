// MCP sessions on PostgreSQL are bounded (spec/mcp.md, "Sessions across instances"; spec/security.md,
// "Streams and sessions"): the review's reproduction, a flood of unauthenticated `initialize`
// calls, against two real `wo run` instances on a real server. A session's row is written at its
// first request only, so the flood writes nothing; sessions that make requests fill the table
// up to its cap and no further (503 + Retry-After beyond it), and the session a real client is
// using keeps working throughout, on either instance.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { liveApp } from "../live/support.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { rawRequest, type RawReply } from "../support/raw-http.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const cap = 40;
let server: PostgresServer;
let url: string;
const running: WoProcess[] = [];
const apps: string[] = [];

async function instance(): Promise<WoProcess> {
  const dir = writeApp("pg-sessions", liveApp);
  apps.push(dir);
  const wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0", "--quiet"], {
    env: { WO_MCP_MAX_SESSIONS: String(cap) },
  });
  running.push(wo);
  return wo;
}

/** Live sessions; with `tombstones`, also the ended rows a DELETE leaves for a while (they take room under the cap). */
async function sessionRows(tombstones = false): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const where = tombstones ? "" : ` WHERE NOT "ended"`;
    return Number((await c.query(`SELECT count(*) AS n FROM "_wo_mcp_sessions"${where}`)).rows[0].n);
  } finally {
    await c.end();
  }
}

const headers = (sid?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(sid ? { "mcp-session-id": sid } : {}),
});

/** One POST to /mcp on a connection of its own (no keep-alive to race the server's close). */
async function rpc(base: string, body: unknown, sid?: string): Promise<RawReply> {
  return rawRequest(base, "POST", "/mcp", headers(sid), JSON.stringify(body));
}

/** A raw initialize: the session id it was given. */
async function initialize(base: string): Promise<string> {
  const res = await rpc(base, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "0" } },
  });
  expect(res.status).toBe(200);
  return res.headers["mcp-session-id"] as string;
}

/** Runs `n` tasks, `width` at a time. */
async function spread<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

let a: WoProcess;
let b: WoProcess;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  a = await instance();
  b = await instance();
});

afterAll(async () => {
  for (const wo of running.splice(0)) await wo.stop();
  for (const dir of apps.splice(0)) removeApp(dir);
  await server?.stop();
});

it("a session made on A and first used on B works: the id alone tells B that A minted it", async () => {
  const sid = await initialize(a.url);
  const before = await sessionRows();
  const res = await rpc(b.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, sid);
  expect(res.status).toBe(200);
  expect(await sessionRows()).toBe(before + 1);
  // Later requests, on either instance, find its row.
  expect((await rpc(a.url, { jsonrpc: "2.0", id: 5, method: "tools/list" }, sid)).status).toBe(200);
  // One ended by DELETE before its first request is ended on the other instance too.
  const unused = await initialize(a.url);
  expect((await rawRequest(a.url, "DELETE", "/mcp", headers(unused))).status).toBe(200);
  expect((await rpc(b.url, { jsonrpc: "2.0", id: 6, method: "tools/list" }, unused)).status).toBe(404);
  // An id no instance minted is unknown everywhere.
  const forged = `${sid.slice(0, -4)}AAAA`;
  expect((await rpc(b.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, forged)).status).toBe(404);
  expect((await rpc(a.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, forged)).status).toBe(404);
});

it("an initialize flood writes no row; used sessions stop at the cap with 503 + Retry-After; the active client keeps working", async () => {
  // A real client, in use before the flood.
  const client = new Client({ name: "legit", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`)));
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  const rowsBefore = await sessionRows();
  expect(rowsBefore).toBe(2);

  // 2,000 initialize calls, half of them followed by notifications/initialized, on both instances.
  await spread(2_000, 32, async (i) => {
    const base = i % 2 ? a.url : b.url;
    const sid = await initialize(base);
    if (i % 4 < 2) {
      const n = await rpc(base, { jsonrpc: "2.0", method: "notifications/initialized" }, sid);
      expect(n.status).toBe(202);
    }
  });
  expect(await sessionRows()).toBe(rowsBefore);
  const occupied = await sessionRows(true);

  // Sessions that also make a request each get a row, up to the cap; past it, 503.
  const statuses = await spread(3 * cap, 16, async (i) => {
    const base = i % 2 ? a.url : b.url;
    const sid = await initialize(base);
    const res = await rpc(base, { jsonrpc: "2.0", id: 2, method: "tools/list" }, sid);
    if (res.status === 503) {
      expect(res.headers["retry-after"]).toMatch(/^\d+$/);
      expect(res.json.error.message).toMatch(/limit of 40 MCP sessions/);
    }
    return res.status;
  });
  expect(statuses.filter((s) => s === 200).length).toBe(cap - occupied);
  expect(statuses.filter((s) => s === 503).length).toBe(2 * cap + occupied);
  expect(await sessionRows(true)).toBeLessThanOrEqual(cap);

  // The session in use was never the one to go: it lists and writes, and what it wrote is stored.
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  const created = await client.callTool({ name: "note_create", arguments: { title: "still here" } });
  expect(created.isError).toBeFalsy();
  const id = (created.structuredContent as { id: number }).id;
  expect((await fetch(`${b.url}/api/notes/${id}`)).status).toBe(200);
  await client.close();
});
