// The server's face as an OAuth resource server (runtime/identity/resource-metadata.ts;
// spec/security.md, "OAuth 2.1 bearer tokens (JWT)"): the RFC 9728 document and the 401
// challenge, read by the official MCP SDKs' own discovery code (v1 and v2), which is what a
// real client runs. A small HTTP server stands in for the edge: it serves `metadata()` at
// `protectedResourcePaths` and answers /mcp 401 with `challenge()`, as the edge does.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as v2 from "@modelcontextprotocol/client";
import * as v1 from "@modelcontextprotocol/sdk/client/auth.js";
import { afterEach, describe, expect, it } from "vitest";
import type { AuthConfig } from "../../model/app.js";
import { CredentialRefused } from "../../runtime/identity/contract.js";
import { createProtectedResource, protectedResourcePaths } from "../../runtime/identity/resource-metadata.js";
import { OAuthIssuer } from "../support/oauth-issuer.js";

const auth: AuthConfig = { issuer: "https://login.example.com/realms/shop", userClaim: "sub", roleClaim: "role" };
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** An edge stand-in on 127.0.0.1 serving `resource`: its origin. */
async function serve(config: AuthConfig): Promise<string> {
  const resource = createProtectedResource(config);
  let origin = "";
  const server: Server = createServer((req, res) => {
    if (protectedResourcePaths.includes(req.url ?? "")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(resource.metadata(origin)));
    } else if (req.url === "/mcp") {
      res.writeHead(401, { "www-authenticate": resource.challenge(origin) });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  );
  return origin;
}

describe("Protected Resource Metadata (RFC 9728)", () => {
  it("names the /mcp URL as the resource, the issuer as its authorization server, header bearer tokens only", () => {
    const resource = createProtectedResource(auth);
    expect(resource.metadata("https://shop.example.com")).toEqual({
      resource: "https://shop.example.com/mcp",
      authorization_servers: ["https://login.example.com/realms/shop"],
      bearer_methods_supported: ["header"],
    });
    const scoped = createProtectedResource({ ...auth, scopesSupported: ["mcp:tools", "shop.read"] });
    expect(scoped.metadata("https://shop.example.com/")).toMatchObject({
      resource: "https://shop.example.com/mcp",
      scopes_supported: ["mcp:tools", "shop.read"],
    });
  });

  it("the challenge points at the path-aware document; with scopes it says which; with a refusal, invalid_token and why", () => {
    expect(createProtectedResource(auth).challenge("https://shop.example.com")).toBe(
      'Bearer resource_metadata="https://shop.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const scoped = createProtectedResource({ ...auth, scopesSupported: ["mcp:tools", "shop.read"] });
    expect(scoped.challenge("https://shop.example.com", new CredentialRefused("expired"))).toBe(
      'Bearer resource_metadata="https://shop.example.com/.well-known/oauth-protected-resource/mcp", ' +
        'scope="mcp:tools shop.read", error="invalid_token", error_description="expired"',
    );
    // Quoted-string escapes: a reason with a quote cannot end the parameter early.
    expect(createProtectedResource(auth).challenge("https://a", new CredentialRefused('say "hi"'))).toContain(
      'error_description="say \\"hi\\""',
    );
  });

  for (const [era, sdk] of [
    ["v1 (@modelcontextprotocol/sdk)", v1],
    ["v2 (@modelcontextprotocol/client)", v2],
  ] as const) {
    it(`the official ${era} client finds the document from the 401, and from the well-known URLs`, async () => {
      const origin = await serve({ ...auth, scopesSupported: ["mcp:tools"] });
      const unauthorized = await fetch(`${origin}/mcp`, { method: "POST" });
      expect(unauthorized.status).toBe(401);
      const params = sdk.extractWWWAuthenticateParams(unauthorized);
      expect(params.resourceMetadataUrl?.href).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
      expect(params.scope).toBe("mcp:tools");
      const fromHeader = await sdk.discoverOAuthProtectedResourceMetadata(`${origin}/mcp`, {
        resourceMetadataUrl: params.resourceMetadataUrl!,
      });
      // Without the header's URL: path-aware first, as the 2025-11-25 client does.
      const probed = await sdk.discoverOAuthProtectedResourceMetadata(`${origin}/mcp`);
      for (const doc of [fromHeader, probed]) {
        expect(doc).toMatchObject({
          resource: `${origin}/mcp`,
          authorization_servers: [auth.issuer],
          bearer_methods_supported: ["header"],
          scopes_supported: ["mcp:tools"],
        });
      }
      // The resource a client will ask tokens for: this server's /mcp, accepted by its own check.
      expect(String(await v1.selectResourceURL(`${origin}/mcp`, {} as never, fromHeader))).toBe(`${origin}/mcp`);
      const root = await fetch(`${origin}/.well-known/oauth-protected-resource`);
      expect(await root.json()).toEqual(fromHeader);
    });
  }

  it("the test issuer is one the official client can discover (RFC 8414 and OIDC, path inserted)", async () => {
    const issuer = await OAuthIssuer.start({ path: "/realms/shop" });
    closers.push(() => issuer.close());
    for (const sdk of [v1, v2]) {
      const meta = await sdk.discoverAuthorizationServerMetadata(issuer.url);
      expect(meta).toMatchObject({ issuer: issuer.url, jwks_uri: issuer.jwksUrl });
    }
  });
});
