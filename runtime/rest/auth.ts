// Optional bearer token for /api and /mcp (`[server] token_env` in wo.toml names the
// environment variable holding it). Owns only the check: a missing or wrong token is 401 with
// `WWW-Authenticate: Bearer`. The comparison takes the same time whatever the guess.

import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "./problem.js";

export function bearerAuth(token: string): MiddlewareHandler {
  // Comparing fixed-size digests keeps timingSafeEqual's equal-length rule from leaking the length.
  const expected = digest(token);
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      return problemResponse(c, "unauthorized", "Send Authorization: Bearer <token> with the token this server was started with.", [], {
        "www-authenticate": 'Bearer realm="wo"',
      });
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
