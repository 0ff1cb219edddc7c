// Optional bearer token for /api and /mcp (`[server] token_env` in wo.toml names the
// environment variable holding it). Owns only the check: a missing or wrong token is 401 with
// `WWW-Authenticate: Bearer`. The comparison takes the same time whatever the guess.

import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "./problem.js";

export const UNAUTHORIZED_DETAIL = "Send Authorization: Bearer <token> with the token this server was started with.";
export const UNAUTHORIZED_HEADERS = { "www-authenticate": 'Bearer realm="wo"' } as const;

/** Whether an Authorization header value carries `token`. */
export function tokenCheck(token: string): (authorization: string | undefined) => boolean {
  // Comparing fixed-size digests keeps timingSafeEqual's equal-length rule from leaking the length.
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

export function bearerAuth(token: string): MiddlewareHandler {
  const allowed = tokenCheck(token);
  return async (c, next) => {
    if (!allowed(c.req.header("authorization"))) {
      return problemResponse(c, "unauthorized", UNAUTHORIZED_DETAIL, [], { ...UNAUTHORIZED_HEADERS });
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
