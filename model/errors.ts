// OperationError: the failure kinds of the operation layer. Both adapters map them — REST to
// an HTTP status with a problem-details body (spec/rest.md), MCP to a tool result with
// `isError: true` (spec/mcp.md). Messages are written for the caller (a person or an agent)
// to act on, and never contain stack traces or other callers' data.

export type OperationErrorKind =
  /** The input does not match the operation's schema (REST 400). */
  | "invalid_input"
  /** No row with that id (REST 404). */
  | "not_found"
  /** The call needs a caller who is someone, and nobody identified themselves (REST 401): `me` when anonymous. */
  | "unauthorized"
  /** The caller's policies do not grant this action on this row or type (REST 403; spec/policies.md). */
  | "forbidden"
  /** A unique value already taken, or a row still referenced by others (REST 409). */
  | "conflict"
  /** A method's `assert … otherwise abort "…"` failed (REST 409). */
  | "aborted"
  /** Well-formed input that names rows that do not exist (dangling `ref`) (REST 422). */
  | "unprocessable"
  /** The caller cancelled before the commit (MCP notifications/cancelled). */
  | "cancelled"
  /** Too many calls in flight and waiting (REST 503 with Retry-After); nothing was done. */
  | "busy"
  /** The caller spent its rate limit for this kind of operation (REST 429 with Retry-After); nothing ran. */
  | "rate_limited"
  /** The database cannot grow (disk full, or its size limit); nothing was written (REST 503). */
  | "storage_full"
  /** The database cannot be reached; the call was not acknowledged (REST 503 with Retry-After). */
  | "unavailable"
  /** Anything unexpected; the message is generic and the details go to the server log. */
  | "internal";

/** The most `{ path, message }` entries an error lists (spec/rest.md, "Error shape"). */
export const maxErrorDetails = 100;

export interface ErrorDetail {
  /** JSON pointer into the input, e.g. "/title". */
  path: string;
  message: string;
}

export class OperationError extends Error {
  constructor(
    readonly kind: OperationErrorKind,
    message: string,
    /** At most `maxErrorDetails` entries: a hostile input must not buy a huge answer. */
    readonly details: ErrorDetail[] = [],
    /** How many more problems were found than `details` lists. */
    readonly truncated = 0,
  ) {
    super(message);
  }
}

/** A call refused by the caller's rate limit; `retryAfterSeconds` (whole, ≥ 1) is when its bucket has a token again. */
export class RateLimitedError extends OperationError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
}
