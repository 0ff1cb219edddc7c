// Who may talk to the server at all: the exact Host and Origin checks that keep a local,
// tokenless `wo run` out of reach of the web pages a developer's browser opens (DNS rebinding,
// cross-site requests), and the CORS answers for the origins it admits. One policy for every
// route but /healthz, REST and /mcp alike (spec/security.md, "Host and Origin"). It runs before
// the bearer token and before any body is read, so a refused request changes nothing; each
// transport words its own 403 (problem details, a JSON-RPC error).

import type { WoConfig } from "../model/app.js";

// Four decimal octets, each 0–255 without leading zeros: `127.1` or `0177.0.0.1` are other
// spellings that URL parsers widen to loopback, and a browser never sends them.
const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const ipv4Loopback = new RegExp(`^127\\.${octet}\\.${octet}\\.${octet}$`);

/**
 * Whether `name` (a host name without port) is loopback: `localhost`, IPv4 127.0.0.0/8 as four
 * decimal octets, or `[::1]` (`::1` bare, as a listen address is written). Whole names only:
 * `127.evil.com` and `evil.localhost` are names anyone can point anywhere.
 */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase();
  return n === "localhost" || n === "[::1]" || n === "::1" || ipv4Loopback.test(n);
}

// `name[:port]`: a bracketed IPv6 literal or a name with no ':', '@', '/' or space in it.
const authority = /^(\[[0-9a-f:.]+\]|[^\s:@/?#[\]\\]+)(?::(\d{1,5}))?$/i;
const originForm = /^(https?):\/\/(.*)$/i;

/**
 * The name of a Host header value (`localhost:8080` → `localhost`), or undefined when malformed:
 * a port past 65535 names no server, and a browser never sends one.
 */
function hostName(value: string): string | undefined {
  const m = authority.exec(value.trim());
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return undefined;
  return m[1]!.toLowerCase();
}

/** Whether node's raw header list (name, value, name, value, …) holds Host more than once. */
export function hasRepeatedHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === "host") {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/** The host name of an Origin value `http(s)://name[:port]`, or undefined for anything else (`null`, paths, other schemes). */
function originHostName(value: string): string | undefined {
  const m = originForm.exec(value.trim());
  return m ? hostName(m[2]!) : undefined;
}

/** `https://App.example.com/` → `https://app.example.com`: how allowed origins are compared. */
function normalizeOrigin(value: string): string {
  return value.trim().replace(/\/+$/, "").toLowerCase();
}

/** The configured origins: `[server] allowed_origins` and `[mcp] allowed_origins` together. */
export function allowedOriginsOf(config: WoConfig): string[] {
  // `?? []`: a build made before `[server] allowed_origins` existed has no such member.
  return [...(config.allowedOrigins ?? []), ...config.mcp.allowedOrigins];
}

export interface HttpGuard {
  /** Why a request with these Origin and Host header values is refused; undefined when it may go on. */
  refusal(origin: string | null | undefined, host: string | null | undefined): string | undefined;
}

export interface GuardOptions {
  /** Origins admitted besides the local ones (allowedOriginsOf). */
  allowedOrigins: readonly string[];
  /** The address the server listens on, as `--listen` gives it; undefined (in-process use) counts as loopback. */
  listenHost?: string;
}

/**
 * Origin: absent is admitted (only browsers send one, and a browser always does on a cross-site
 * POST); a local origin (loopback name, http or https, any port) or a configured one is
 * admitted; anything else, `null` included, is refused.
 * Host: checked when listening on loopback, where every legitimate client names a loopback host
 * (or the host of a configured origin, say behind a proxy) and a rebinding page names its own
 * domain. On any other address the Host is whatever name the network reaches the machine by,
 * so it is not checked: the bearer token is the defence there.
 */
export function createHttpGuard(options: GuardOptions): HttpGuard {
  const origins = new Set(options.allowedOrigins.map(normalizeOrigin));
  const originHosts = new Set<string>();
  for (const o of origins) {
    const name = originHostName(o);
    if (name !== undefined) originHosts.add(name);
  }
  const checkHost = options.listenHost === undefined || isLoopbackName(options.listenHost);
  // The last Host value admitted: clients repeat the same one on every request, and comparing
  // it is cheaper than parsing it again. One string, so nothing a client sends can grow it.
  let admittedHost = "";
  return {
    refusal(origin, host) {
      if (origin !== null && origin !== undefined && origin !== "" && !origins.has(normalizeOrigin(origin))) {
        const name = originHostName(origin);
        if (name === undefined || !isLoopbackName(name))
          return `Origin '${shown(origin)}' is not allowed; local origins and those in allowed_origins (wo.toml) are`;
      }
      if (checkHost && host !== admittedHost) {
        if (host === null || host === undefined || host === "") return `Host header is required; ${loopbackHint}`;
        const name = hostName(host);
        if (name === undefined || (!isLoopbackName(name) && !originHosts.has(name)))
          return `Host '${shown(host)}' is not allowed; ${loopbackHint}`;
        admittedHost = host;
      }
      return undefined;
    },
  };
}

const loopbackHint = "a server listening on loopback answers to localhost, 127.x.y.z and [::1]";

/** A header value as an error message quotes it: bounded, one line. */
function shown(value: string): string {
  const line = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}

/** A CORS preflight: OPTIONS from a page (Origin) asking whether it may send a method. */
export function isPreflight(
  method: string | undefined,
  origin: string | null | undefined,
  requestMethod: string | null | undefined,
): boolean {
  return method === "OPTIONS" && !!origin && !!requestMethod;
}

/** What a page may send to a REST path, answered to a preflight from an admitted origin. */
export function restPreflightHeaders(allow: string): Record<string, string> {
  return {
    "access-control-allow-methods": allow,
    "access-control-allow-headers": "accept, authorization, content-type",
    "access-control-max-age": "600",
  };
}

/** Makes a response to an admitted origin readable by its page (REST; /mcp adds its own). */
export function addCorsHeaders(headers: Headers, origin: string): void {
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", "location, retry-after, www-authenticate");
  const vary = headers.get("vary");
  if (!vary || !/(?:^|,)\s*origin\s*(?:,|$)/i.test(vary)) headers.set("vary", vary ? `${vary}, Origin` : "Origin");
}
