// The server as an OAuth 2.1 resource server shows itself to MCP clients (spec/security.md,
// "OAuth 2.1 bearer tokens (JWT)"). What the MCP authorization specification asks of it, in
// every era that has authorization (2025-06-18, 2025-11-25, 2026-07-28):
// - Protected Resource Metadata (RFC 9728) naming at least one authorization server; its
//   `resource` is the server's canonical URI, the `/mcp` URL, which clients send as RFC 8707's
//   `resource` so that the token's audience is this server.
// - The document at the path-aware well-known URL (`/.well-known/oauth-protected-resource/mcp`,
//   RFC 9728 §3.1: the resource's path after the well-known prefix) and at the root one, which
//   clients try next when a 401 names neither (2025-11-25, "Protected Resource Metadata
//   Discovery Requirements"); clients of 2025-06-18 follow the 401's header only.
// - Every 401 carries `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 §5.1) and,
//   SHOULD, `scope="…"`: the scopes to ask for (RFC 6750 §3), here `scopes_supported`.

import type { AuthConfig } from "../../model/app.js";
import type { CredentialRefused, ProtectedResource } from "./contract.js";

/** Where the edge serves `metadata()`: both paths serve the same document. */
export const protectedResourcePaths = [
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-protected-resource",
];

/** `https://shop.example.com` → `https://shop.example.com/mcp`: the MCP endpoint's canonical URI. */
export function mcpResourceUrl(publicOrigin: string): string {
  return `${publicOrigin.replace(/\/+$/, "")}/mcp`;
}

export function createProtectedResource(auth: AuthConfig): ProtectedResource {
  return {
    metadata(publicOrigin) {
      const doc: Record<string, unknown> = {
        resource: mcpResourceUrl(publicOrigin),
        authorization_servers: [auth.issuer],
        // RFC 6750 §2.1 only: a token in a query string ends up in logs (MCP forbids it).
        bearer_methods_supported: ["header"],
      };
      if (auth.scopesSupported !== undefined) doc.scopes_supported = auth.scopesSupported;
      return doc;
    },
    challenge(publicOrigin, refused?: CredentialRefused) {
      const origin = publicOrigin.replace(/\/+$/, "");
      const params = [`resource_metadata=${quoted(`${origin}${protectedResourcePaths[0]}`)}`];
      if (auth.scopesSupported !== undefined && auth.scopesSupported.length > 0)
        params.push(`scope=${quoted(auth.scopesSupported.join(" "))}`);
      // RFC 6750 §3.1: a token was sent and is no good (a request without one gets no error code).
      if (refused !== undefined) params.push('error="invalid_token"', `error_description=${quoted(refused.reason)}`);
      return `Bearer ${params.join(", ")}`;
    },
  };
}

/** An RFC 9110 quoted-string. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}
