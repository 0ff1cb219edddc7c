// An OAuth-protected `wo run` seen by the official MCP SDK clients (v1 `@modelcontextprotocol/sdk`,
// v2 `@modelcontextprotocol/client`), end to end: `[auth]` points at a real issuer on 127.0.0.1
// (test/support/oauth-issuer.ts); a client with a bearer JWT for this server's /mcp URL lists
// the tools; without one it gets 401 and, from the WWW-Authenticate header, the Protected
// Resource Metadata naming the issuer (spec/security.md, "OAuth 2.1 bearer tokens (JWT)").

import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OAuthIssuer } from "../support/oauth-issuer.js";
import { removeApp, startWo, type WoProcess, writeApp } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 120_000, testTimeout: 30_000 });

let issuer: OAuthIssuer;
let wo: WoProcess;
let appDir: string;
let mcpUrl: string;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function postMcp(headers: Record<string, string>) {
  return fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(initialize),
  });
}

describe("an OAuth-protected wo run, with the official MCP clients", () => {
  beforeAll(async () => {
    issuer = await OAuthIssuer.start({ path: "/realms/shop" });
    appDir = writeApp("oauth", {
      "greeting.wo":
        'type Greeting {\n  message: Text\n\n  service rest "/api/greetings" expose list, get, create\n}\n',
      "wo.toml": `name = "oauth"\n\n[auth]\nissuer = "${issuer.url}"\nscopes_supported = ["mcp:tools"]\n`,
    });
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    mcpUrl = `${wo.url}/mcp`;
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
    await issuer?.close();
  });

  it("v1 client with a bearer JWT for this server: tools/list works", async () => {
    const token = await issuer.mint({ sub: "u-1", client_id: "v1-agent" }, { aud: mcpUrl });
    const client = new ClientV1({ name: "v1", version: "1" });
    await client.connect(
      new TransportV1(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("greeting_list");
    await client.close();
  });

  it("v2 client with a bearer JWT for this server: tools/list works", async () => {
    const token = await issuer.mint({ sub: "u-2", client_id: "v2-agent" }, { aud: mcpUrl });
    const client = new ClientV2({ name: "v2", version: "1" });
    await client.connect(
      new TransportV2(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("greeting_list");
    await client.close();
  });

  it("without a token: 401, and the header's resource_metadata URL serves the resource's metadata", async () => {
    const res = await postMcp({});
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(url).toBe(`${wo.url}/.well-known/oauth-protected-resource/mcp`);
    expect(challenge).toContain('scope="mcp:tools"');
    const doc = await (await fetch(url!)).json();
    expect(doc).toEqual({
      resource: mcpUrl,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp:tools"],
    });
    expect(await (await fetch(`${wo.url}/.well-known/oauth-protected-resource`)).json()).toEqual(doc);
  });

  it("the v1 client without a token fails to connect with the 401 (no token is invented)", async () => {
    const client = new ClientV1({ name: "v1", version: "1" });
    await expect(client.connect(new TransportV1(new URL(mcpUrl)))).rejects.toThrow(/401|nauthorized/);
  });

  it("refused tokens: 401 with the challenge — another audience, another issuer, expired, alg none", async () => {
    const claims = { sub: "u-3" };
    for (const token of [
      await issuer.mint(claims, { aud: "http://127.0.0.1:1/mcp" }),
      await issuer.mint(claims, { aud: mcpUrl, iss: "https://evil.example" }),
      await issuer.mint(claims, { aud: mcpUrl, expiresIn: -120 }),
      issuer.unsigned(claims, { aud: mcpUrl }),
    ]) {
      const res = await postMcp({ authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("resource_metadata=");
      expect(await res.text()).not.toContain(token);
      // Neither the answer nor the server's log holds any part of the token.
      expect(wo.output()).not.toContain(token.split(".")[1]);
    }
  });
});
