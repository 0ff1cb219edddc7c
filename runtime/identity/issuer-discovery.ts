// Where an issuer publishes its signing keys: its `jwks_uri`, read from its metadata document
// (spec/security.md, "OAuth 2.1 bearer tokens (JWT)"). The metadata URLs are tried in the order
// the MCP authorization specification (2025-11-25 and 2026-07-28, "Authorization Server Metadata
// Discovery") has MCP clients try them, so the server finds the document its clients find:
// RFC 8414 metadata first, then OpenID Connect Discovery, with the issuer's path inserted after
// `/.well-known/...` (RFC 8414 §3.1) and, for OpenID Connect, also appended (OIDC Discovery §4).

import { isLoopbackName } from "../../model/loopback.js";
import { FetchFailed, type FetchLimits, fetchJson } from "./fetch-json.js";

/** The metadata URLs of `issuer`, in the order they are tried. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  // RFC 8414 §3.1: a terminating "/" of the issuer's path is removed before inserting it.
  const path = url.pathname.replace(/\/$/, "");
  const at = (p: string) => new URL(p, url.origin).href;
  if (path === "") return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/** Why the signing keys' location is not known: `detail` names the URLs and their answers. */
export class DiscoveryFailed extends Error {}

/**
 * The issuer's `jwks_uri`. A URL that answers but not 200 (404 for the kind of metadata the
 * issuer does not serve) moves on to the next; no answer at all ends the search (the next URL
 * is the same host). A document is used only when its `issuer` is exactly the configured one
 * (RFC 8414 §3.3, OIDC Discovery §4.3): another issuer's document would name another's keys.
 */
export async function discoverJwksUrl(issuer: string, limits: FetchLimits): Promise<string> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchJson(url, limits);
    } catch (error) {
      if (!(error instanceof FetchFailed)) throw error;
      tried.push(error.message);
      if (error.status !== undefined) continue;
      break;
    }
    const found = doc as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (typeof found !== "object" || found === null) {
      tried.push(`GET ${url}: not a metadata object`);
      continue;
    }
    if (found.issuer !== issuer) {
      throw new DiscoveryFailed(
        `GET ${url}: the document's issuer is ${shown(found.issuer)}, not ${JSON.stringify(issuer)} as [auth] issuer says`,
      );
    }
    if (typeof found.jwks_uri !== "string" || !isKeyServerUrl(found.jwks_uri)) {
      throw new DiscoveryFailed(
        `GET ${url}: jwks_uri ${shown(found.jwks_uri)} is not an https:// URL (or http:// on a loopback host)`,
      );
    }
    return found.jwks_uri;
  }
  throw new DiscoveryFailed(`no metadata document for issuer ${issuer}: ${tried.join("; ")}`);
}

/** The rule `[auth] jwks_url` is held to (compiler/check/config.ts), for a discovered one. */
function isKeyServerUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackName(url.hostname));
}

/** A value from the issuer's document as the log shows it: JSON, at most 200 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
