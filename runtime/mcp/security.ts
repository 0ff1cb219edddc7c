// Who may talk to /mcp: the Origin allow-list and the Host check that together defend a
// local server against DNS rebinding (T8). Authentication (the optional bearer token) is the
// app's middleware, shared with /api; body limits are enforced where the body is read.

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return loopbackNames.has(h) || h.startsWith("127.") || h.endsWith(".localhost");
}

/** The hostname part of a Host header value: `localhost:8080` → `localhost`, `[::1]:80` → `[::1]`. */
function hostnameOf(hostHeader: string): string {
  const v = hostHeader.trim().toLowerCase();
  if (v.startsWith("[")) {
    const end = v.indexOf("]");
    return end < 0 ? v : v.slice(0, end + 1);
  }
  const colon = v.indexOf(":");
  return colon < 0 ? v : v.slice(0, colon);
}

export interface SecurityPolicy {
  /** Rejection reason, or undefined when the request may proceed. */
  check(origin: string | null | undefined, host: string | null | undefined): string | undefined;
}

/**
 * Origin: absent is allowed (non-browser clients send none); a local origin (any port) or one
 * listed in `[mcp] allowed_origins` is allowed; anything else is refused.
 * Host: checked only when we listen on loopback, where any legitimate client names a loopback
 * host (or a host it was explicitly allowed through allowed_origins); a rebinding attacker's
 * page names its own domain.
 */
export function createSecurityPolicy(allowedOrigins: string[], listenHost: string | undefined): SecurityPolicy {
  const origins = new Set(allowedOrigins.map((o) => o.trim().replace(/\/+$/, "").toLowerCase()));
  const extraHosts = new Set<string>();
  for (const o of origins) {
    try {
      extraHosts.add(new URL(o).hostname.toLowerCase());
    } catch {
      // A malformed allowed_origins entry simply never matches.
    }
  }
  const checkHost = listenHost === undefined || isLoopbackHost(hostnameOf(listenHost));
  return {
    check(origin, host) {
      if (origin !== null && origin !== undefined && origin !== "") {
        const o = origin.trim().toLowerCase();
        if (!origins.has(o)) {
          let hostname: string;
          try {
            const u = new URL(o);
            hostname = u.hostname;
            if (u.protocol !== "http:" && u.protocol !== "https:") return `Origin '${origin}' is not allowed`;
          } catch {
            return `Origin '${origin}' is not allowed`;
          }
          if (!isLoopbackHost(hostname)) return `Origin '${origin}' is not allowed`;
        }
      }
      if (checkHost) {
        if (host === null || host === undefined || host === "") return "Host header is required";
        const name = hostnameOf(host);
        if (!isLoopbackHost(name) && !extraHosts.has(name)) return `Host '${host}' is not allowed`;
      }
      return undefined;
    },
  };
}
