// One error shape for REST: RFC 9457 problem details (`application/problem+json`). Owns the
// table from OperationError kinds to HTTP statuses and the REST-only problems (routing, body,
// auth, Host/Origin). The operation layer words operation errors; this module only frames them.

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorDetail, OperationErrorKind } from "../../model/errors.js";
import { stampedChallenge } from "../identity/request-principal.js";
import { nodeBindings } from "../node-bindings.js";

export type ProblemKind =
  | OperationErrorKind
  | "route_not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_implemented"
  | "forbidden";

// A Record over the kind: adding an OperationError kind fails compilation until it has a status.
const problems: Record<ProblemKind, { status: ContentfulStatusCode; title: string }> = {
  invalid_input: { status: 400, title: "Invalid input" },
  not_found: { status: 404, title: "Not found" },
  conflict: { status: 409, title: "Conflict" },
  aborted: { status: 409, title: "Aborted" },
  unprocessable: { status: 422, title: "Unprocessable reference" },
  // The caller went away before the commit; nobody reads this answer, but it must not be 2xx.
  cancelled: { status: 409, title: "Cancelled" },
  busy: { status: 503, title: "Busy" },
  rate_limited: { status: 429, title: "Rate limited" },
  storage_full: { status: 503, title: "Storage full" },
  unavailable: { status: 503, title: "Database unavailable" },
  internal: { status: 500, title: "Internal server error" },
  route_not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  not_implemented: { status: 501, title: "Not implemented" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ErrorDetail[];
  /** How many problems were found beyond the ones `errors` lists (absent when none). */
  truncated?: number;
}

export function problem(kind: ProblemKind, detail: string, errors: ErrorDetail[] = [], truncated = 0): Problem {
  const { status, title } = problems[kind];
  return {
    type: `urn:wo:problem:${kind.replace(/_/g, "-")}`,
    title,
    status,
    detail,
    ...(errors.length > 0 ? { errors } : {}),
    ...(truncated > 0 ? { truncated } : {}),
  };
}

/** A problem answer as it goes out: status, headers and the JSON body. */
export interface ProblemAnswer {
  status: ContentfulStatusCode;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answer to `kind`; `challenge`: the request's `WWW-Authenticate` challenge, which an
 * `unauthorized` answer carries (the edge stamps it on an anonymous request).
 */
export function problemAnswer(
  kind: ProblemKind,
  detail: string,
  errors: ErrorDetail[] = [],
  headers: Record<string, string> = {},
  truncated = 0,
  challenge?: string,
): ProblemAnswer {
  const body = JSON.stringify(problem(kind, detail, errors, truncated));
  const withChallenge =
    kind === "unauthorized" && challenge !== undefined ? { ...headers, "www-authenticate": challenge } : headers;
  return {
    status: problems[kind].status,
    headers: { "content-type": "application/problem+json", ...withChallenge },
    body,
  };
}

export function problemResponse(
  c: Context,
  kind: ProblemKind,
  detail: string,
  errors: ErrorDetail[] = [],
  headers: Record<string, string> = {},
  truncated = 0,
): Response {
  const challenge = kind === "unauthorized" ? stampedChallenge(nodeBindings(c).incoming) : undefined;
  const answer = problemAnswer(kind, detail, errors, headers, truncated, challenge);
  return c.body(answer.body, answer.status, answer.headers);
}

/**
 * A route that threw: the line the log gets, and the 500 the caller gets, which says nothing of
 * why (hono's onError in binding.ts, and the edge's own GETs in routes.ts).
 */
export function unexpectedAnswer(
  log: (line: string) => void,
  method: string,
  path: string,
  err: unknown,
): ProblemAnswer {
  const e = err instanceof Error ? err : new Error(String(err));
  log(`${method} ${path}: unexpected ${e.name}: ${e.message}`);
  return problemAnswer(
    "internal",
    "The server failed to complete the request. Try again, and report it if it persists.",
  );
}
