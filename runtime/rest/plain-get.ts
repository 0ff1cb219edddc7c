// Which requests the edge may answer on node's own request and response, without hono's
// Request and Context (routes.ts `answerGet`): those where nothing hono or @hono/node-server
// does would change the answer. A plain GET over HTTP/1.1, with no Origin (a CORS answer gets
// its headers from the binding's middleware), whose target is a bare path (no query, no
// percent-escape, no dot segment: what @hono/node-server hands hono as written, and hono's
// `c.req.path` is then the target itself) and whose Host @hono/node-server takes without
// parsing it (a Host it would parse may make it answer 400). Anything else goes to hono.

import type { IncomingMessage } from "node:http";

// A path of plain segments, none of them `.` or `..`; a trailing slash or an empty segment is
// left to hono's routes too.
const barePath = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9_.~-]*)+$/;
// @hono/node-server's own test for a Host it puts into the URL as it is (src/url.ts reValidHost).
const plainHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** The path of `incoming` when it is a plain GET as above; undefined otherwise. */
export function plainGetPath(incoming: IncomingMessage): string | undefined {
  if (incoming.method !== "GET" || incoming.httpVersionMinor !== 1 || incoming.httpVersionMajor !== 1) return undefined;
  const { url } = incoming;
  const { host, origin } = incoming.headers;
  if (origin !== undefined || url === undefined || host === undefined) return undefined;
  if (!barePath.test(url) || !plainHost.test(host)) return undefined;
  return url;
}
