// The Host/Origin policy itself (runtime/http-guard.ts): which names are loopback, which
// listen addresses turn the Host check on, how allowed_origins match. Then the same policy on
// the app's fetch-API side (createApp().hono, what in-process users call; `wo run` serves /mcp
// on node:http, covered by host-origin.test.ts): refused before the token, preflights without it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createApp, type App } from "../../runtime/app.js";
import { allowedOriginsOf, createHttpGuard, isLoopbackName } from "../../runtime/http-guard.js";
import { loadBuild } from "../../runtime/load-build.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import type { Store } from "../../model/store.js";
import { blogCatalog } from "../fixtures/catalog.js";
import { tempDir, writeBuild } from "../rest/support/harness.js";

describe("loopback names", () => {
  it.each(["localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "127.255.255.255", "127.0.0.0", "[::1]", "::1"])(
    "%s is loopback",
    (name) => {
      expect(isLoopbackName(name)).toBe(true);
    },
  );
  it.each([
    "127.attacker.example",
    "127.0.0.1.nip.io",
    "127.evil.com",
    "app.localhost",
    "localhost.evil.com",
    "localhost.",
    "127.1",
    "127.0.1",
    "127.0.0.256",
    "127.01.0.1",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "128.0.0.1",
    "10.0.0.1",
    "0.0.0.0",
    "[::ffff:127.0.0.1]",
    "[0:0:0:0:0:0:0:1]",
    "::",
    "",
    "evil.com",
  ])("%s is not", (name) => {
    expect(isLoopbackName(name)).toBe(false);
  });
});

describe("the policy", () => {
  const local = createHttpGuard({ allowedOrigins: ["https://App.Example.com/"], listenHost: "127.0.0.1" });

  it("admits no Origin, local origins on any port and scheme, and configured ones exactly", () => {
    for (const origin of [
      undefined,
      null,
      "",
      "http://localhost",
      "https://localhost:8443",
      "http://127.0.0.1:3000",
      "http://[::1]:5173",
      "https://app.example.com",
    ]) {
      expect(local.refusal(origin, "localhost:8080"), String(origin)).toBeUndefined();
    }
    for (const origin of [
      "null",
      "http://127.attacker.example",
      "ftp://localhost",
      "http://localhost/path",
      "https://app.example.com:444",
      "http://app.example.com",
      "https://sub.app.example.com",
      "http://localhost:3000@evil.com",
    ]) {
      expect(local.refusal(origin, "localhost:8080"), origin).toMatch(/^Origin '.*' is not allowed/);
    }
  });

  it("checks Host on loopback listen addresses, including ::1 and localhost; admits a configured origin's host", () => {
    for (const listenHost of ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]) {
      const guard = createHttpGuard({ allowedOrigins: ["https://app.example.com"], listenHost });
      expect(guard.refusal(undefined, "evil.com"), listenHost).toMatch(/^Host 'evil.com' is not allowed/);
      expect(guard.refusal(undefined, "127.evil.com:8080"), listenHost).toMatch(/is not allowed/);
      expect(guard.refusal(undefined, undefined), listenHost).toMatch(/^Host header is required/);
      expect(guard.refusal(undefined, "app.example.com"), listenHost).toBeUndefined();
      expect(guard.refusal(undefined, "[::1]:8080"), listenHost).toBeUndefined();
    }
  });

  it("leaves Host to the token on other listen addresses, but still checks Origin", () => {
    for (const listenHost of ["0.0.0.0", "::", "192.168.1.20", "myhost.lan"]) {
      const guard = createHttpGuard({ allowedOrigins: [], listenHost });
      expect(guard.refusal(undefined, "myhost.lan:8080"), listenHost).toBeUndefined();
      expect(guard.refusal("http://myhost.lan:8080", "myhost.lan:8080"), listenHost).toMatch(/^Origin/);
    }
  });

  it("merges [server] and [mcp] allowed_origins", () => {
    const config = {
      ...blogCatalog().config,
      allowedOrigins: ["https://a.example"],
      mcp: { sessions: true, allowedOrigins: ["https://b.example"] },
    };
    expect(allowedOriginsOf(config)).toEqual(["https://a.example", "https://b.example"]);
  });
});

describe("the fetch-API app: Host and Origin before the token", () => {
  let dir: string;
  let store: Store;
  let app: App;
  const token = "in-process-token";
  beforeAll(async () => {
    dir = tempDir();
    writeBuild(blogCatalog(), join(dir, "build"));
    const build = await loadBuild(join(dir, "build"));
    store = (await openSqliteStore({ file: join(dir, "data", "app.sqlite"), catalog: build.catalog })).store;
    app = await createApp({ build, store, token, log: () => {} });
  });
  afterAll(async () => {
    app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const send = (url: string, init: RequestInit = {}) => app.hono.request(url, init);

  it("a refused request is 403 with or without the token; /mcp words it as JSON-RPC", async () => {
    const withToken: Record<string, string>[] = [{}, { authorization: `Bearer ${token}` }];
    for (const auth of withToken) {
      const rest = await send("http://localhost/api/authors", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", origin: "http://127.attacker.example" },
        body: '{"name":"x","email":"x@example.com"}',
      });
      expect(rest.status).toBe(403);
      expect(await rest.json()).toMatchObject({ type: "urn:wo:problem:forbidden" });
      const mcp = await send("http://localhost/mcp", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", origin: "https://evil.example", host: "localhost" },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(mcp.status).toBe(403);
      expect(((await mcp.json()) as { error: { code: number } }).error.code).toBe(-32000);
      // No Host header in process: the URL's host is checked instead.
      expect((await send("http://evil.com/api/authors", { headers: auth })).status).toBe(403);
    }
    expect(
      (
        (await (
          await send("http://localhost/api/authors", { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { items: unknown[] }
      ).items,
    ).toEqual([]);
  });

  it("an admitted origin's preflight needs no token; its real requests do, and are readable", async () => {
    const origin = "http://localhost:5173";
    const pre = await send("http://localhost/api/authors", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(origin);
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, POST");
    const mcpPre = await send("http://localhost/mcp", {
      method: "OPTIONS",
      headers: { origin, host: "localhost", "access-control-request-method": "POST" },
    });
    expect(mcpPre.status).toBe(204);
    const denied = await send("http://localhost/api/authors", { headers: { origin } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe(origin);
    expect(denied.headers.get("vary")).toBe("Origin");
  });
});
