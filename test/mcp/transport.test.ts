// Raw HTTP against /mcp, one test per transport rule (spec/mcp.md names them T1–T8 and M1–M6):
// statuses, headers, content types, sessions, both eras' header checks, hostile Origin/Host,
// batches, oversized and garbage bodies — and that a rejected request changed nothing.
// Targets: a real `wo run samples/hello` (three of them: default, small body limit + an extra
// allowed origin, sessionless). Only what needs a test hook (a slow tool held inside its
// transaction, a tiny page size, a fast keep-alive) runs on the in-process fixture.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { once } from "node:events";
import { slow, startFixture, type FixtureServer } from "./support/fixture.js";
import { startWoRun, type WoRun } from "./support/wo-run.js";
import { V, base, env, initialize, modernHeaders, post, req, sessionHeaders } from "./support/raw.js";

// beforeAll starts four `wo run` (each builds first) at once: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000 });

let srv: WoRun;
let small: WoRun;
let sessionless: WoRun;
let sessionlessByFlag: WoRun;
let fx: FixtureServer;
let fxHono: FixtureServer;
beforeAll(async () => {
  [srv, small, sessionless, sessionlessByFlag, fx, fxHono] = await Promise.all([
    startWoRun("hello"),
    startWoRun("hello", '[server]\nmax_body_bytes = 2048\n[mcp]\nallowed_origins = ["https://agent.example.com"]'),
    startWoRun("hello", "[mcp]\nsessions = false"),
    startWoRun("hello", "", ["--no-mcp-sessions"]),
    startFixture({ options: { pageSize: 2, keepAliveMs: 50 } }),
    startFixture({ options: { pageSize: 2, keepAliveMs: 50 }, via: "hono" }),
  ]);
});
afterAll(async () => {
  await Promise.all([
    srv?.stop(),
    small?.stop(),
    sessionless?.stop(),
    sessionlessByFlag?.stop(),
    fx?.close(),
    fxHono?.close(),
  ]);
});

const fxRows = () => (fx.store.db.prepare("SELECT count(*) AS n FROM note").get() as { n: number }).n;
/** Rows of the app, counted through REST: what a rejected request must leave unchanged. */
const countRows = async (s: WoRun) =>
  ((await (await fetch(`${s.base}/api/greetings?limit=1000`)).json()) as { items: unknown[] }).items.length;
const createCall = (message = "x") => req("tools/call", { name: "greeting_create", arguments: { message } });

describe("T1/T3: one JSON-RPC message per POST", () => {
  it("T1: garbage JSON → 400 -32700", async () => {
    const r = await post(srv.url, "{not json");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });
  it("T1: batch → 400 -32600 and nothing runs", async () => {
    const { sid } = await initialize(srv.url);
    const before = await countRows(srv);
    const r = await post(srv.url, [createCall(), createCall()], sessionHeaders(sid));
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32600);
    expect(await countRows(srv)).toBe(before);
  });
  it("T1: not JSON-RPC (no jsonrpc, bad id, bad params) → 400 -32600 echoing a readable id", async () => {
    for (const body of [
      { id: 7, method: "ping" },
      { jsonrpc: "2.0", id: { x: 1 }, method: "ping" },
      { jsonrpc: "2.0", id: 8, method: "ping", params: [1] },
      42,
    ]) {
      const r = await post(srv.url, body);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe(-32600);
    }
    expect((await post(srv.url, { jsonrpc: "2.0", id: 9, method: "ping", params: "x" })).json.id).toBe(9);
  });
  it("T1: wrong Content-Type → 415", async () => {
    const r = await post(srv.url, req("ping"), { ...base, "content-type": "text/plain" });
    expect(r.status).toBe(415);
    expect(r.json.error.code).toBe(-32000);
  });
  it("T1: body over the limit → 413 and nothing stored", async () => {
    const { sid } = await initialize(small.url);
    const before = await countRows(small);
    const r = await post(small.url, createCall("y".repeat(4000)), sessionHeaders(sid));
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe(-32000);
    expect(await countRows(small)).toBe(before);
  });
  it("T1: chunked body over the limit (no Content-Length) → 413", async () => {
    const { sid } = await initialize(small.url);
    const url = new URL(small.url);
    const status = await new Promise<number>((resolve, reject) => {
      const r = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: sessionHeaders(sid) },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      r.on("error", reject);
      r.write(JSON.stringify(createCall("z".repeat(3000))).slice(0, 1500));
      r.write("z".repeat(3000));
      r.end();
    });
    expect(status).toBe(413);
  });
  it("T3: notifications and responses → 202, empty body", async () => {
    const { sid } = await initialize(srv.url);
    const n = await post(srv.url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders(sid));
    expect([n.status, n.text]).toEqual([202, ""]);
    const r = await post(srv.url, { jsonrpc: "2.0", id: 5, result: {} }, sessionHeaders(sid));
    expect([r.status, r.text]).toEqual([202, ""]);
  });
  it("unknown method (2025) → 200 -32601", async () => {
    const { sid } = await initialize(srv.url);
    const r = await post(srv.url, req("nope/never"), sessionHeaders(sid));
    expect(r.status).toBe(200);
    expect(r.json.error.code).toBe(-32601);
  });
});

describe("request bodies however they arrive", () => {
  // A small body usually shares a packet with its headers, and the server takes it from node's
  // buffer in one read; a body that comes later, or in pieces, is read as it streams in.
  const rawExchange = async (url: string, pieces: (string | number)[]) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await once(socket, "connect");
    let text = "";
    socket.setEncoding("utf8").on("data", (d: string) => {
      text += d;
    });
    for (const piece of pieces) {
      if (typeof piece === "number") await new Promise((r) => setTimeout(r, piece));
      else socket.write(piece);
    }
    await once(socket, "end");
    return text;
  };
  const head = (url: string, extra: string) => {
    const { host } = new URL(url);
    return `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: ${V}\r\nMcp-Method: tools/call\r\nMcp-Name: greeting_create\r\nConnection: close\r\n${extra}\r\n`;
  };
  const callBody = (message: string) =>
    JSON.stringify(req("tools/call", { name: "greeting_create", arguments: { message }, _meta: env }));

  it("a body sent after its headers, in two pieces, is read whole", async () => {
    const body = callBody("late and split");
    const answer = await rawExchange(srv.url, [
      head(srv.url, `Content-Length: ${Buffer.byteLength(body)}\r\n`),
      40,
      body.slice(0, 30),
      40,
      body.slice(30),
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).result.structuredContent.message).toBe(
      "late and split",
    );
  });
  it("a chunked body in pieces is read whole", async () => {
    const body = callBody("chunked");
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const answer = await rawExchange(srv.url, [
      head(srv.url, "Transfer-Encoding: chunked\r\n") + chunk(body.slice(0, 10)),
      40,
      chunk(body.slice(10)),
      20,
      "0\r\n\r\n",
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"message":"chunked"');
  });
  it("a body with its headers in one packet is read whole (the common case)", async () => {
    const body = callBody("one packet");
    const answer = await rawExchange(srv.url, [head(srv.url, `Content-Length: ${Buffer.byteLength(body)}\r\n`) + body]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"message":"one packet"');
  });
});

describe("T2: response content type follows Accept", () => {
  it("application/json when allowed; text/event-stream when only SSE is accepted; 406 otherwise", async () => {
    const { sid } = await initialize(srv.url);
    const j = await post(srv.url, req("ping"), sessionHeaders(sid));
    expect(j.headers.get("content-type")).toBe("application/json");
    const s = await post(srv.url, req("ping", undefined, 77), { ...sessionHeaders(sid), accept: "text/event-stream" });
    expect(s.headers.get("content-type")).toBe("text/event-stream");
    expect(s.text).toBe('event: message\ndata: {"jsonrpc":"2.0","id":77,"result":{}}\n\n');
    const n = await post(srv.url, req("ping"), { ...sessionHeaders(sid), accept: "text/html" });
    expect(n.status).toBe(406);
  });
});

describe("T4/T5: sessions, GET stream, DELETE", () => {
  it("T5: initialize issues a random session id; others need it (missing → 400, unknown → 404)", async () => {
    const a = await initialize(srv.url);
    const b = await initialize(srv.url);
    expect(a.sid).toMatch(/^[0-9a-f]{32}$/);
    expect(a.sid).not.toBe(b.sid);
    expect(a.json.result).toMatchObject({
      protocolVersion: "2025-11-25",
      serverInfo: { name: "hello", version: "0.1.0" },
      capabilities: { tools: {}, resources: {}, completions: {} },
    });
    expect((await post(srv.url, req("tools/list"), { ...base, "mcp-protocol-version": "2025-11-25" })).status).toBe(
      400,
    );
    const unknown = await post(srv.url, req("tools/list"), sessionHeaders("0".repeat(32)));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe(-32001);
  });
  it("T5: initialize negotiates: a 2025 version is echoed, anything else gets 2025-11-25", async () => {
    expect((await initialize(srv.url, "2025-03-26")).json.result.protocolVersion).toBe("2025-03-26");
    expect((await initialize(srv.url, "2025-06-18")).json.result.protocolVersion).toBe("2025-06-18");
    expect((await initialize(srv.url, "1999-01-01")).json.result.protocolVersion).toBe("2025-11-25");
  });
  it("T5: DELETE ends the session; the id then answers 404; DELETE without id → 400", async () => {
    const { sid } = await initialize(srv.url);
    expect((await fetch(srv.url, { method: "DELETE", headers: { "mcp-session-id": sid } })).status).toBe(200);
    expect((await post(srv.url, req("ping"), sessionHeaders(sid))).status).toBe(404);
    expect((await fetch(srv.url, { method: "DELETE", headers: { "mcp-session-id": sid } })).status).toBe(404);
    expect((await fetch(srv.url, { method: "DELETE" })).status).toBe(400);
  });
  it("T4: GET opens the session's SSE stream with keep-alive comments; a second GET → 409; DELETE closes it", async () => {
    const { sid } = await initialize(fx.url);
    const res = await fetch(fx.url, { headers: { accept: "text/event-stream", "mcp-session-id": sid } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    let seen = "";
    while ((seen.match(/: keepalive/g) ?? []).length < 2) seen += new TextDecoder().decode((await reader.read()).value);
    expect((await fetch(fx.url, { headers: { accept: "text/event-stream", "mcp-session-id": sid } })).status).toBe(409);
    await fetch(fx.url, { method: "DELETE", headers: { "mcp-session-id": sid } });
    for (;;) {
      if ((await reader.read()).done) break;
    }
  });
  it("T4: GET without Accept: text/event-stream → 406; without session → 400; unknown → 404", async () => {
    const { sid } = await initialize(srv.url);
    expect((await fetch(srv.url, { headers: { accept: "application/json", "mcp-session-id": sid } })).status).toBe(406);
    expect((await fetch(srv.url, { headers: { accept: "text/event-stream" } })).status).toBe(400);
    expect(
      (await fetch(srv.url, { headers: { accept: "text/event-stream", "mcp-session-id": "f".repeat(32) } })).status,
    ).toBe(404);
  });
  it("other verbs → 405 with Allow", async () => {
    const r = await fetch(srv.url, { method: "PUT", headers: base, body: "{}" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, POST, DELETE");
  });
  it.each([
    ["wo.toml [mcp] sessions = false", () => sessionless],
    ["wo run --no-mcp-sessions", () => sessionlessByFlag],
  ])("sessionless mode (%s): no session id, requests served without one, GET/DELETE → 405", async (_how, server) => {
    const s = server();
    const init = await initialize(s.url);
    expect(init.sid).toBeNull();
    const r = await post(s.url, req("tools/list"), { ...base, "mcp-protocol-version": "2025-11-25" });
    expect(r.json.result.tools.map((t: { name: string }) => t.name)).toEqual(
      s.manifest.tools.map((t) => t.name).sort(),
    );
    expect((await fetch(s.url, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await fetch(s.url, { method: "DELETE" })).status).toBe(405);
  });
});

describe("T6: MCP-Protocol-Version (2025 era)", () => {
  it("absent → taken as 2025-03-26 and served; unsupported → 400 and nothing runs", async () => {
    const { sid } = await initialize(srv.url);
    const { "mcp-protocol-version": _, ...noVersion } = sessionHeaders(sid);
    expect((await post(srv.url, req("ping"), noVersion)).json.result).toEqual({});
    const before = await countRows(srv);
    const bad = await post(srv.url, createCall(), sessionHeaders(sid, "2024-01-01"));
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe(-32000);
    expect(await countRows(srv)).toBe(before);
  });
});

describe("T8: Origin and Host", () => {
  it("hostile Origin → 403 on every verb, and nothing runs", async () => {
    const { sid } = await initialize(srv.url);
    const before = await countRows(srv);
    const r = await post(srv.url, createCall(), { ...sessionHeaders(sid), origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect(await countRows(srv)).toBe(before);
    expect(
      (
        await fetch(srv.url, {
          headers: { origin: "https://evil.example", accept: "text/event-stream", "mcp-session-id": sid },
        })
      ).status,
    ).toBe(403);
    expect(
      (await fetch(srv.url, { method: "DELETE", headers: { origin: "null", "mcp-session-id": sid } })).status,
    ).toBe(403);
    expect((await post(srv.url, req("ping"), sessionHeaders(sid))).status).toBe(200);
  });
  it("local origins and configured origins are allowed", async () => {
    const { sid } = await initialize(small.url);
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:6274", "https://agent.example.com"]) {
      expect((await post(small.url, req("ping"), { ...sessionHeaders(sid), origin })).status).toBe(200);
    }
    expect(
      (await post(small.url, req("ping"), { ...sessionHeaders(sid), origin: "https://other.example.com" })).status,
    ).toBe(403);
  });
  it("CORS for allowed browser origins: preflight 204, answers readable, session header exposed", async () => {
    const origin = "http://localhost:6274";
    const pre = await fetch(srv.url, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(origin);
    expect(pre.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
    const r = await fetch(srv.url, {
      method: "POST",
      headers: { ...base, origin },
      body: JSON.stringify(
        req("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } }),
      ),
    });
    expect(r.headers.get("access-control-allow-origin")).toBe(origin);
    expect(r.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
    const hostile = await fetch(srv.url, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    expect(hostile.status).toBe(403);
    expect(hostile.headers.get("access-control-allow-origin")).toBeNull();
  });
  it("a rebinding Host (not loopback) → 403", async () => {
    const url = new URL(srv.url);
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(
        req("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }),
      );
      const r = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: { ...base, host: "evil.example:80", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      r.on("error", reject);
      r.end(body);
    });
    expect(status).toBe(403);
  });
});

describe("M: 2026-07-28 on the same endpoint", () => {
  it("M1: server/discover, with resultType, serverInfo in _meta, cache hints", async () => {
    const r = await post(srv.url, req("server/discover", { _meta: env }), modernHeaders("server/discover"));
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      supportedVersions: [V],
      resultType: "complete",
      ttlMs: 60000,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "hello", version: "0.1.0" } },
    });
  });
  it("M2: header cross-checks → 400 -32020; envelope errors → 400 -32602; bad version → 400 -32022; nothing runs", async () => {
    const before = await countRows(srv);
    const call = (extra = {}) =>
      req("tools/call", { name: "greeting_create", arguments: { message: "m" }, _meta: { ...env, ...extra } });
    const cases: [Record<string, string>, unknown, number, number][] = [
      [{ ...modernHeaders("tools/call") }, call(), 400, -32020],
      [{ ...modernHeaders("tools/call", "greeting_get") }, call(), 400, -32020],
      [{ ...modernHeaders("tools/list", "greeting_create") }, call(), 400, -32020],
      [
        { ...modernHeaders("tools/call", "greeting_create"), "mcp-protocol-version": "2025-11-25" },
        call(),
        400,
        -32020,
      ],
      [{ ...base, "mcp-method": "tools/call", "mcp-name": "greeting_create" }, call(), 400, -32020],
      [
        { ...modernHeaders("tools/call", "greeting_create") },
        req("tools/call", { name: "greeting_create", arguments: { message: "m" } }),
        400,
        -32602,
      ],
      [
        { ...modernHeaders("tools/call", "greeting_create") },
        req("tools/call", {
          name: "greeting_create",
          arguments: { message: "m" },
          _meta: { "io.modelcontextprotocol/protocolVersion": V },
        }),
        400,
        -32602,
      ],
      [
        { ...modernHeaders("tools/call", "greeting_create"), "mcp-protocol-version": "2099-01-01" },
        call({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
        400,
        -32022,
      ],
    ];
    for (const [headers, body, status, code] of cases) {
      const r = await post(srv.url, body, headers);
      expect([r.status, r.json.error.code, r.json.id], JSON.stringify(headers)).toEqual([
        status,
        code,
        (body as { id: number }).id,
      ]);
    }
    expect(await countRows(srv)).toBe(before);
  });
  it("M2: Mcp-Name may be base64-encoded", async () => {
    const r = await post(
      srv.url,
      req("resources/read", { uri: "wo://schema/greeting", _meta: env }),
      modernHeaders("resources/read", `=?base64?${Buffer.from("wo://schema/greeting").toString("base64")}?=`),
    );
    expect(r.json.result.contents[0].uri).toBe("wo://schema/greeting");
  });
  it("M3: removed and unknown methods → 404 -32601", async () => {
    for (const m of [
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "tasks/get",
      "prompts/list",
      "foo/bar",
    ]) {
      const r = await post(srv.url, req(m, { _meta: env }), modernHeaders(m));
      expect([m, r.status, r.json.error.code]).toEqual([m, 404, -32601]);
    }
  });
  it("M4: unknown tool → -32602 with data; unknown resource → -32602 with data.uri", async () => {
    const t = await post(
      srv.url,
      req("tools/call", { name: "zzz", arguments: {}, _meta: env }),
      modernHeaders("tools/call", "zzz"),
    );
    expect([t.status, t.json.error.code, t.json.error.data]).toEqual([200, -32602, { name: "zzz" }]);
    const r = await post(
      srv.url,
      req("resources/read", { uri: "wo://greeting/424242", _meta: env }),
      modernHeaders("resources/read", "wo://greeting/424242"),
    );
    expect([r.json.error.code, r.json.error.data]).toEqual([-32602, { uri: "wo://greeting/424242" }]);
  });
  it("M5: list and read results carry ttlMs/cacheScope; tools/call does not", async () => {
    const list = await post(srv.url, req("tools/list", { _meta: env }), modernHeaders("tools/list"));
    expect(list.json.result).toMatchObject({ resultType: "complete", ttlMs: 60000, cacheScope: "public" });
    const call = await post(
      srv.url,
      req("tools/call", { name: "greeting_list", arguments: {}, _meta: env }),
      modernHeaders("tools/call", "greeting_list"),
    );
    expect(call.json.result.resultType).toBe("complete");
    expect(call.json.result.ttlMs).toBeUndefined();
    const created = await post(
      srv.url,
      req("tools/call", { name: "greeting_create", arguments: { message: "r" }, _meta: env }),
      modernHeaders("tools/call", "greeting_create"),
    );
    const id = created.json.result.structuredContent.id;
    const read = await post(
      srv.url,
      req("resources/read", { uri: `wo://greeting/${id}`, _meta: env }),
      modernHeaders("resources/read", `wo://greeting/${id}`),
    );
    expect(read.json.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });
  it("M6: a modern notification → 202; 2025 results carry no resultType", async () => {
    const n = await post(
      srv.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: env } },
      { ...base, "mcp-protocol-version": V },
    );
    expect([n.status, n.text]).toEqual([202, ""]);
    const { sid } = await initialize(srv.url);
    const r = await post(srv.url, req("tools/list"), sessionHeaders(sid));
    expect(r.json.result.resultType).toBeUndefined();
  });
  it("M6: without --watch, listChanged is false and subscriptions/listen acknowledges nothing, then ends", async () => {
    const init = await initialize(srv.url);
    expect(init.json.result.capabilities).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });
    const r = await post(
      srv.url,
      req("subscriptions/listen", { notifications: { toolsListChanged: true }, _meta: env }, 7),
      { ...modernHeaders("subscriptions/listen"), accept: "application/json, text/event-stream" },
    );
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    const frames = r.text
      .split("\n\n")
      .filter((f) => f.startsWith("event: message"))
      .map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6)));
    const tag = { "io.modelcontextprotocol/subscriptionId": 7 };
    expect(frames).toEqual([
      { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: {}, _meta: tag } },
      {
        jsonrpc: "2.0",
        id: 7,
        result: {
          resultType: "complete",
          _meta: { ...tag, "io.modelcontextprotocol/serverInfo": { name: "hello", version: "0.1.0" } },
        },
      },
    ]);
  });
});

describe("tools and resources", () => {
  it("tools/list pages walk every tool once (page size 2 → 3 pages)", async () => {
    const { sid } = await initialize(fx.url);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await post(fx.url, req("tools/list", cursor ? { cursor } : {}), sessionHeaders(sid));
      names.push(...r.json.result.tools.map((t: { name: string }) => t.name));
      cursor = r.json.result.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual(["note_create", "note_delete", "note_get", "note_list", "note_slow_create", "note_update"]);
    const bad = await post(fx.url, req("tools/list", { cursor: "garbage" }), sessionHeaders(sid));
    expect(bad.json.error.code).toBe(-32602);
  });
  it("tools/call greeting_get structuredContent equals the REST body; a missing row is an isError result", async () => {
    const { sid } = await initialize(srv.url);
    const c = await post(srv.url, createCall("parity"), sessionHeaders(sid));
    const id = c.json.result.structuredContent.id;
    const g = await post(srv.url, req("tools/call", { name: "greeting_get", arguments: { id } }), sessionHeaders(sid));
    expect(JSON.stringify(g.json.result.structuredContent)).toBe(
      await (await fetch(`${srv.base}/api/greetings/${id}`)).text(),
    );
    expect(g.json.result.content).toEqual([{ type: "text", text: JSON.stringify(g.json.result.structuredContent) }]);
    const missing = await post(
      srv.url,
      req("tools/call", { name: "greeting_get", arguments: { id: 987654 } }),
      sessionHeaders(sid),
    );
    expect(missing.json.result.isError).toBe(true);
    expect(missing.json.result.content[0].text).toMatch(/^Not found: .*987654/);
    const invalid = await post(
      srv.url,
      req("tools/call", { name: "greeting_create", arguments: { message: 5 } }),
      sessionHeaders(sid),
    );
    expect(invalid.json.result.isError).toBe(true);
    expect(invalid.json.result.content[0].text).toMatch(/^Invalid input: [\s\S]*\/message/);
  });
  it("resources/templates/list and completion for template ids", async () => {
    const { sid } = await initialize(srv.url);
    await post(srv.url, createCall("for completion"), sessionHeaders(sid));
    const t = await post(srv.url, req("resources/templates/list"), sessionHeaders(sid));
    expect(t.json.result.resourceTemplates.map((x: { uriTemplate: string }) => x.uriTemplate)).toEqual([
      "wo://greeting/{id}",
    ]);
    const c = await post(
      srv.url,
      req("completion/complete", {
        ref: { type: "ref/resource", uri: "wo://greeting/{id}" },
        argument: { name: "id", value: "1" },
      }),
      sessionHeaders(sid),
    );
    expect(c.json.result.completion.values.length).toBeGreaterThan(0);
    expect(c.json.result.completion.values.every((v: string) => v.startsWith("1"))).toBe(true);
  });
});

describe("cancellation (2025 era)", () => {
  it("notifications/cancelled aborts a pending call before it commits; nothing is stored", async () => {
    const { sid } = await initialize(fx.url);
    let release!: () => void;
    const entered = new Promise<void>((r) => {
      slow.entered = r;
    });
    slow.gate = new Promise<void>((r) => {
      release = r;
    });
    const before = fxRows();
    const pending = post(
      fx.url,
      req("tools/call", { name: "note_slow_create", arguments: { title: "never" } }, "slow-1"),
      sessionHeaders(sid),
    );
    await entered;
    const n = await post(
      fx.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow-1", reason: "test" } },
      sessionHeaders(sid),
    );
    expect(n.status).toBe(202);
    release();
    const r = await pending;
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.content[0].text).toMatch(/^Cancelled/);
    expect(fxRows()).toBe(before);
    slow.gate = Promise.resolve();
  });
});

describe("cancellation (2026-07-28): the client closing the request", () => {
  it.each([
    ["node:http", () => fx],
    ["hono", () => fxHono],
  ] as const)("via %s: aborts a pending write before it commits; nothing is stored", async (_via, server) => {
    const target = server();
    const rows = () => (target.store.db.prepare("SELECT count(*) AS n FROM note").get() as { n: number }).n;
    let release!: () => void;
    const entered = new Promise<void>((r) => {
      slow.entered = r;
    });
    const aborted = new Promise<void>((r) => {
      slow.aborted = r;
    });
    slow.gate = new Promise<void>((r) => {
      release = r;
    });
    const before = rows();
    const ac = new AbortController();
    const call = fetch(target.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "note_slow_create"),
      body: JSON.stringify(req("tools/call", { name: "note_slow_create", arguments: { title: "never" }, _meta: env })),
      signal: ac.signal,
    }).catch((err: Error) => err);
    await entered;
    ac.abort();
    expect(await call).toBeInstanceOf(Error);
    // The server notices the closed connection (the call's signal aborts); then the held
    // transaction is let go, and must roll back.
    await aborted;
    release();
    slow.gate = Promise.resolve();
    // Writes are serialized: a later call's answer means the aborted one has rolled back.
    const after = await post(
      target.url,
      req("tools/call", { name: "note_create", arguments: { title: "after" }, _meta: env }),
      modernHeaders("tools/call", "note_create"),
    );
    expect(after.json.result.isError).toBeUndefined();
    expect(rows()).toBe(before + 1);
    expect(
      (target.store.db.prepare("SELECT count(*) AS n FROM note WHERE title = 'never'").get() as { n: number }).n,
    ).toBe(0);
  });
});

describe("the fetch-API adapter (hono) answers exactly as node:http does", () => {
  // `wo run` serves /mcp on node:http; createMcpRoutes() serves the same handler to hono users.
  const modern = (method: string, name?: string) => ({ ...modernHeaders(method, name) });
  const exchanges: [string, string, Record<string, string>, string | undefined][] = [
    ["tools/list (2026-07-28)", "POST", modern("tools/list"), JSON.stringify(req("tools/list", { _meta: env }, 1))],
    [
      "tools/call get of a missing row",
      "POST",
      modern("tools/call", "note_get"),
      JSON.stringify(req("tools/call", { name: "note_get", arguments: { id: 999 }, _meta: env }, 2)),
    ],
    [
      "unknown tool",
      "POST",
      modern("tools/call", "nope"),
      JSON.stringify(req("tools/call", { name: "nope", arguments: {}, _meta: env }, 3)),
    ],
    [
      "initialize",
      "POST",
      base,
      JSON.stringify(
        req(
          "initialize",
          { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
          4,
        ),
      ),
    ],
    ["garbage JSON", "POST", base, "{not json"],
    ["a batch", "POST", base, "[]"],
    ["wrong content type", "POST", { ...base, "content-type": "text/plain" }, "{}"],
    [
      "a hostile Origin",
      "POST",
      { ...base, origin: "https://evil.example" },
      JSON.stringify(req("ping", undefined, 5)),
    ],
    [
      "an allowed Origin (CORS)",
      "POST",
      { ...modern("tools/list"), origin: "http://localhost:5173" },
      JSON.stringify(req("tools/list", { _meta: env }, 6)),
    ],
    ["a CORS preflight", "OPTIONS", { origin: "http://localhost:5173" }, undefined],
    ["GET without a session", "GET", { accept: "text/event-stream" }, undefined],
    ["DELETE of an unknown session", "DELETE", { "mcp-session-id": "feedface" }, undefined],
    [
      "a notification",
      "POST",
      modern("notifications/initialized"),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: env } }),
    ],
    ["a body over the limit", "POST", base, JSON.stringify({ pad: "x".repeat((1 << 20) + 10) })],
  ];
  it.each(exchanges)("%s", async (_name, method, headers, body) => {
    const answer = async (url: string) => {
      const res = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      const h = (k: string) => res.headers.get(k);
      return {
        status: res.status,
        type: h("content-type"),
        cors: h("access-control-allow-origin"),
        vary: h("vary"),
        allow: h("allow"),
        session: h("mcp-session-id") !== null,
        text,
      };
    };
    const [viaNode, viaHono] = await Promise.all([answer(fx.url), answer(fxHono.url)]);
    expect(viaHono).toEqual(viaNode);
  });
});
