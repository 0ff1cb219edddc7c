// The edge's identity step in process (runtime/edge.ts through createApp().hono, the route `wo
// run` takes): with a ProtectedResource (what the OAuth 2.1 JWT verifier provides; its seam is
// runtime/identity/contract.ts) the edge serves the RFC 9728 metadata at both well-known paths
// without credentials, and every 401 — REST and /mcp, no credential or an unknown one — carries
// its challenge; the owner's token still opens everything, and the principal reaches the
// operations. Real build, real SQLite store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../../model/store.js";
import { createApp, type App } from "../../runtime/app.js";
import type { ProtectedResource } from "../../runtime/identity/contract.js";
import { loadBuild } from "../../runtime/load-build.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { blogCatalog } from "../fixtures/catalog.js";
import { tempDir, writeBuild } from "../rest/support/harness.js";

const resource: ProtectedResource = {
  metadata: (origin) => ({
    resource: `${origin}/mcp`,
    authorization_servers: ["http://127.0.0.1:9/issuer"],
    bearer_methods_supported: ["header"],
  }),
  challenge: (origin) => `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
};

describe("the edge with a protected resource", () => {
  let dir: string;
  let store: Store;
  let app: App;
  const token = "owner-token";
  beforeAll(async () => {
    dir = tempDir();
    writeBuild(blogCatalog(), join(dir, "build"));
    const build = await loadBuild(join(dir, "build"));
    store = (await openSqliteStore({ file: join(dir, "data", "app.sqlite"), catalog: build.catalog })).store;
    app = await createApp({ build, store, token, protectedResource: resource, log: () => {} });
  });
  afterAll(async () => {
    app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const send = (path: string, init: RequestInit = {}) => app.hono.request(`http://localhost:8080${path}`, init);
  const challenge = 'Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/mcp"';

  it("serves the resource metadata at both paths, without credentials", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await send(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toEqual({
        resource: "http://localhost:8080/mcp",
        authorization_servers: ["http://127.0.0.1:9/issuer"],
        bearer_methods_supported: ["header"],
      });
    }
  });

  it("every 401 carries the challenge: REST and /mcp, without a credential or with an unknown one", async () => {
    for (const auth of [{}, { authorization: "Bearer not-a-known-token" }, { authorization: "Basic eDp5" }] as Record<
      string,
      string
    >[]) {
      const rest = await send("/api/authors", { headers: auth });
      expect(rest.status).toBe(401);
      expect(rest.headers.get("www-authenticate")).toBe(challenge);
      expect(await rest.json()).toMatchObject({ type: "urn:wo:problem:unauthorized", status: 401 });
      const mcp = await send("/mcp", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(mcp.status).toBe(401);
      expect(mcp.headers.get("www-authenticate")).toBe(challenge);
    }
  });

  it("the owner's token opens REST and /mcp; the page shells need none", async () => {
    const owner = { authorization: `Bearer ${token}` };
    expect((await send("/api/authors", { headers: owner })).status).toBe(200);
    const mcp = await send("/mcp", {
      method: "POST",
      headers: {
        ...owner,
        // The MCP handler checks the Host header itself; a request made in process has none.
        host: "localhost:8080",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(mcp.status, await mcp.clone().text()).toBe(200);
    expect((await send("/docs")).status).toBe(200);
    expect((await send("/healthz")).status).toBe(200);
  });
});
