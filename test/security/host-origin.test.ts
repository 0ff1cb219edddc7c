// spec/security.md, "Host and Origin": exact Host and Origin checks on every route but
// /healthz, before the token and before any body; CORS for admitted origins only; no body-less
// cross-site POST. Each case runs against a real `wo run` of a copy of samples/hello, through a
// raw node:http client that sends the Host and Origin headers as written (fetch would rewrite
// Host). "Nothing written" compares dumps of the app's SQLite file.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rawRequest, type RawReply } from "../support/raw-http.js";
import { copyApp, dumpDb, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

// beforeAll starts three `wo run` (each builds first) at once: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 120_000 });

interface Served {
  url: string;
  appDir: string;
  wo: WoProcess;
}

/** samples/hello plus a type whose create needs no field (so `{}` would create a row). */
async function serve(listen: string, toml = "", env: Record<string, string> = {}): Promise<Served> {
  const appDir = copyApp("samples/hello");
  writeFileSync(
    join(appDir, "tally.wo"),
    'type Tally {\n  note: Text = "none"\n\n  service rest "/api/tallies" expose list, create\n}\n',
  );
  if (toml) appendFileSync(join(appDir, "wo.toml"), `\n${toml}\n`);
  const wo = await startWo([appDir, "--listen", listen], { env });
  return { url: wo.url, appDir, wo };
}

const token = "host-origin-test-token";
let open: Served; // the default: tokenless, on 127.0.0.1
let guarded: Served; // a token and configured origins
let ipv6: Served; // tokenless, on [::1]
beforeAll(async () => {
  [open, guarded, ipv6] = await Promise.all([
    serve("127.0.0.1:0"),
    serve(
      "127.0.0.1:0",
      '[server]\ntoken_env = "WO_HOST_ORIGIN_TOKEN"\nallowed_origins = ["https://app.example.com"]\n[mcp]\nallowed_origins = ["https://agent.example.com"]',
      { WO_HOST_ORIGIN_TOKEN: token },
    ),
    serve("[::1]:0"),
  ]);
  // One row to read back: a refused GET must not show it.
  const seeded = await raw(
    open,
    "POST",
    "/api/greetings",
    { "content-type": "application/json" },
    '{"message":"secret"}',
  );
  expect(seeded.status).toBe(201);
});
afterAll(async () => {
  for (const s of [open, guarded, ipv6]) {
    if (!s) continue;
    await s.wo.stop();
    removeApp(s.appDir);
  }
});

type Reply = RawReply;

/** One request over a fresh connection with exactly these headers (test/support/raw-http.ts). */
const raw = (s: Served, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  rawRequest(s.url, method, path, headers, body);

const hostOf = (s: Served) => new URL(s.url).host;
const json = { "content-type": "application/json" };
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
// A 2026-07-28 tools/call: no session needed, so a refused one is refused for its Origin alone.
const V = "2026-07-28";
const createTool = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: {
    name: "greeting_create",
    arguments: { message: "from mcp" },
    _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} },
  },
});
const createToolHeaders = {
  ...mcpHeaders,
  "mcp-protocol-version": V,
  "mcp-method": "tools/call",
  "mcp-name": "greeting_create",
};
const preflight = (origin: string, method = "POST") => ({
  origin,
  "access-control-request-method": method,
  "access-control-request-headers": "content-type",
});

function expectRefused(r: Reply, kind: "rest" | "mcp") {
  expect(r.status, r.text).toBe(403);
  expect(r.headers["access-control-allow-origin"]).toBeUndefined();
  if (kind === "rest") expect(r.json).toMatchObject({ type: "urn:wo:problem:forbidden", status: 403 });
  else expect(r.json.error.code).toBe(-32000);
}

describe("Origin", () => {
  it("http://127.attacker.example is not local: refused on /mcp and /api, its preflights get no CORS, nothing is written", async () => {
    const origin = "http://127.attacker.example";
    const before = dumpDb(open.appDir);
    expectRefused(await raw(open, "POST", "/mcp", { ...mcpHeaders, origin }, initialize), "mcp");
    expectRefused(await raw(open, "POST", "/mcp", { ...createToolHeaders, origin }, createTool), "mcp");
    expectRefused(await raw(open, "POST", "/api/greetings", { ...json, origin }, '{"message":"csrf"}'), "rest");
    expectRefused(await raw(open, "GET", "/api/greetings", { origin }), "rest");
    expectRefused(await raw(open, "OPTIONS", "/mcp", preflight(origin)), "mcp");
    expectRefused(await raw(open, "OPTIONS", "/api/greetings", preflight(origin)), "rest");
    expect(dumpDb(open.appDir)).toEqual(before);
    // The same page with a local origin is served: the check is on the name, not the request.
    expect(
      (await raw(open, "POST", "/mcp", { ...createToolHeaders, origin: "http://127.0.0.1:5173" }, createTool)).status,
    ).toBe(200);
  });

  it("names that only start or end like loopback are refused everywhere", async () => {
    for (const origin of [
      "http://app.localhost:3000",
      "http://localhost.evil.com",
      "http://127.0.0.1.evil.com",
      "http://127.1",
      "http://0x7f.0.0.1",
      "null",
      "file://",
      "http://[::1].evil.com",
    ]) {
      expectRefused(await raw(open, "GET", "/api/greetings", { origin }), "rest");
      expectRefused(await raw(open, "GET", "/", { origin }), "rest");
      expectRefused(await raw(open, "POST", "/mcp", { ...mcpHeaders, origin }, initialize), "mcp");
    }
  });

  it("local origins are admitted, and their answers are readable (Access-Control-Allow-Origin, Vary: Origin)", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "https://127.1.2.3", "http://[::1]:8080"]) {
      const r = await raw(open, "GET", "/api/greetings", { origin });
      expect(r.status, `${origin}: ${r.text}`).toBe(200);
      expect(r.headers["access-control-allow-origin"]).toBe(origin);
      expect(r.headers.vary).toMatch(/\bOrigin\b/i);
      expect(r.json.items.map((g: { message: string }) => g.message)).toContain("secret");
    }
  });
});

describe("Host", () => {
  it("Host: 127.evil.com is not loopback: refused on every route but /healthz", async () => {
    const host = "127.evil.com";
    expectRefused(await raw(open, "GET", "/api/greetings", { host }), "rest");
    expectRefused(await raw(open, "GET", "/", { host }), "rest");
    expectRefused(await raw(open, "GET", "/no/such/route", { host }), "rest");
    expectRefused(await raw(open, "POST", "/mcp", { ...mcpHeaders, host }, initialize), "mcp");
    // No Host at all: node's HTTP server refuses an HTTP/1.1 request without one (400).
    for (const r of [
      await raw(open, "GET", "/api/greetings", { host: "" }),
      await raw(open, "POST", "/mcp", { ...mcpHeaders, host: "" }, initialize),
    ]) {
      expect(r.status).toBe(400);
      expect(r.text).not.toContain("secret");
    }
    for (const bad of [
      "evil.localhost",
      "localhost.evil.com:80",
      "127.0.0.1.nip.io",
      "127.0.0.256",
      "127.01.0.1",
      "127.1",
      "0x7f.0.0.1",
    ]) {
      expectRefused(await raw(open, "GET", "/api/greetings", { host: bad }), "rest");
    }
    // Not a host name at all: the HTTP layer answers 400 before any route (and /mcp, 403).
    for (const bad of [`[::1].evil.com:${new URL(open.url).port}`, "[0:0:0:0:0:0:0:1]"]) {
      const r = await raw(open, "GET", "/api/greetings", { host: bad });
      expect(r.status).toBe(400);
      expect(r.text).not.toContain("secret");
      expectRefused(await raw(open, "POST", "/mcp", { ...mcpHeaders, host: bad }, initialize), "mcp");
    }
  });

  it("Host: evil.com (DNS rebinding) cannot read or write /api: GET, POST, PATCH, DELETE refused, nothing written", async () => {
    const host = "evil.com";
    const before = dumpDb(open.appDir);
    const read = await raw(open, "GET", "/api/greetings", { host });
    expectRefused(read, "rest");
    expect(read.text).not.toContain("secret");
    expectRefused(await raw(open, "GET", "/api/greetings/1", { host }), "rest");
    expectRefused(await raw(open, "POST", "/api/greetings", { ...json, host }, '{"message":"rebound"}'), "rest");
    expectRefused(await raw(open, "POST", "/api/tallies", { ...json, host }, "{}"), "rest");
    expectRefused(await raw(open, "PATCH", "/api/greetings/1", { ...json, host }, '{"message":"rebound"}'), "rest");
    expectRefused(await raw(open, "DELETE", "/api/greetings/1", { host }), "rest");
    expect(dumpDb(open.appDir)).toEqual(before);
  });

  it("the loopback names a local client uses are admitted: 127.0.0.1, localhost, any 127.x.y.z, [::1], with or without the port", async () => {
    const { port } = new URL(open.url);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `127.1.2.3:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      "localhost",
      "127.0.0.1",
    ]) {
      const r = await raw(open, "GET", "/api/greetings", { host });
      expect(r.status, `${host}: ${r.text}`).toBe(200);
      expect((await raw(open, "POST", "/mcp", { ...createToolHeaders, host }, createTool)).status, host).toBe(200);
    }
  });

  it("listening on [::1], the Host check applies too", async () => {
    expect(new URL(ipv6.url).hostname).toBe("[::1]");
    const before = dumpDb(ipv6.appDir);
    for (const host of ["evil.com", "127.evil.com", `evil.com:${new URL(ipv6.url).port}`]) {
      expectRefused(await raw(ipv6, "GET", "/api/greetings", { host }), "rest");
      expectRefused(await raw(ipv6, "POST", "/api/greetings", { ...json, host }, '{"message":"rebound"}'), "rest");
      expectRefused(await raw(ipv6, "POST", "/mcp", { ...mcpHeaders, host }, initialize), "mcp");
    }
    expect(dumpDb(ipv6.appDir)).toEqual(before);
    expect((await raw(ipv6, "GET", "/api/greetings", { host: hostOf(ipv6) })).status).toBe(200);
    expect((await raw(ipv6, "GET", "/api/greetings", { host: "localhost" })).status).toBe(200);
  });

  it("/healthz answers whatever the Host and Origin, and needs no token", async () => {
    for (const s of [open, guarded, ipv6]) {
      const r = await raw(s, "GET", "/healthz", { host: "evil.com", origin: "https://evil.example" });
      expect([r.status, r.text]).toEqual([200, "ok"]);
      expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });
});

describe("cross-site requests without a preflight", () => {
  it("a body-less POST without Content-Type is 415, not a create with defaults; nothing is created", async () => {
    const before = dumpDb(open.appDir);
    const r = await raw(open, "POST", "/api/tallies");
    expect(r.status, r.text).toBe(415);
    expect(r.json).toMatchObject({ type: "urn:wo:problem:unsupported-media-type", status: 415 });
    expect((await raw(open, "POST", "/api/tallies", {}, "")).status).toBe(415);
    // What an HTML form can send: refused the same way.
    expect((await raw(open, "POST", "/api/tallies", { "content-type": "text/plain" }, "")).status).toBe(415);
    expect(
      (await raw(open, "POST", "/api/tallies", { "content-type": "application/x-www-form-urlencoded" }, "note=x"))
        .status,
    ).toBe(415);
    expect(dumpDb(open.appDir)).toEqual(before);
    // An empty body declared as JSON still means "all defaults".
    const made = await raw(open, "POST", "/api/tallies", json, "");
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ note: "none" });
  });
});

describe("CORS with a token and configured origins", () => {
  const bearer = { authorization: `Bearer ${token}` };

  it("a preflight from an admitted origin is answered 204 without the token", async () => {
    for (const origin of ["https://app.example.com", "https://agent.example.com", "http://localhost:5173"]) {
      const r = await raw(guarded, "OPTIONS", "/api/greetings", preflight(origin));
      expect(r.status, `${origin}: ${r.text}`).toBe(204);
      expect(r.headers["access-control-allow-origin"]).toBe(origin);
      expect(r.headers["access-control-allow-methods"]).toBe("GET, POST");
      expect(r.headers["access-control-allow-headers"]).toMatch(/content-type/);
      expect(r.headers["access-control-allow-headers"]).toMatch(/authorization/);
      expect(r.headers.vary).toMatch(/\bOrigin\b/i);
    }
    const item = await raw(guarded, "OPTIONS", "/api/greetings/1", preflight("https://app.example.com", "PATCH"));
    expect(item.status).toBe(204);
    expect(item.headers["access-control-allow-methods"]).toBe("DELETE, GET, PATCH");
    const mcp = await raw(guarded, "OPTIONS", "/mcp", preflight("https://app.example.com"));
    expect(mcp.status).toBe(204);
    expect(mcp.headers["access-control-allow-origin"]).toBe("https://app.example.com");
  });

  it("the real request still needs the token; both answers are readable by the page", async () => {
    const origin = "https://app.example.com";
    const denied = await raw(guarded, "POST", "/api/greetings", { ...json, origin }, '{"message":"hi"}');
    expect(denied.status).toBe(401);
    expect(denied.headers["access-control-allow-origin"]).toBe(origin);
    const ok = await raw(guarded, "POST", "/api/greetings", { ...json, ...bearer, origin }, '{"message":"hi"}');
    expect(ok.status, ok.text).toBe(201);
    expect(ok.headers["access-control-allow-origin"]).toBe(origin);
    expect(ok.headers.vary).toMatch(/\bOrigin\b/i);
  });

  it("Host and Origin are checked before the token: a refused request is 403 with or without it, and gets no CORS", async () => {
    const before = dumpDb(guarded.appDir);
    for (const auth of [{}, bearer]) {
      expectRefused(await raw(guarded, "OPTIONS", "/api/greetings", preflight("https://evil.example")), "rest");
      expectRefused(
        await raw(
          guarded,
          "POST",
          "/api/greetings",
          { ...json, ...auth, origin: "https://evil.example" },
          '{"message":"x"}',
        ),
        "rest",
      );
      expectRefused(
        await raw(guarded, "POST", "/api/greetings", { ...json, ...auth, host: "evil.com" }, '{"message":"x"}'),
        "rest",
      );
      expectRefused(
        await raw(guarded, "POST", "/mcp", { ...mcpHeaders, ...auth, host: "evil.com" }, initialize),
        "mcp",
      );
      expectRefused(await raw(guarded, "OPTIONS", "/mcp", preflight("http://127.attacker.example")), "mcp");
    }
    expect(dumpDb(guarded.appDir)).toEqual(before);
  });
});

describe("an exposed server", () => {
  it("warns at start when it listens off loopback without a token, and only then", async () => {
    const appDir = copyApp("samples/hello");
    try {
      const exposed = await startWo([appDir, "--listen", "0.0.0.0:0"]);
      await exposed.stop();
      expect(exposed.output()).toMatch(/warning: listening on 0\.0\.0\.0 without a bearer token/);
      const local = await startWo([appDir, "--listen", "127.0.0.1:0"]);
      await local.stop();
      expect(local.output()).not.toMatch(/without a bearer token/);
    } finally {
      removeApp(appDir);
    }
  });
});
