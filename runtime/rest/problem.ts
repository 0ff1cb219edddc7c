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

export function problemResponse(
  c: Context,
  kind: ProblemKind,
  detail: string,
  errors: ErrorDetail[] = [],
  headers: Record<string, string> = {},
  truncated = 0,
): Response {
  const body = problem(kind, detail, errors, truncated);
  const challenge = kind === "unauthorized" ? stampedChallenge(nodeBindings(c).incoming) : undefined;
  if (challenge !== undefined) headers = { ...headers, "www-authenticate": challenge };
  return c.body(JSON.stringify(body), problems[kind].status, {
    "content-type": "application/problem+json",
    ...headers,
  });
}
