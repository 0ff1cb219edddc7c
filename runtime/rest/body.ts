// Reads a request body as a JSON object: Content-Type check (415, even when the body is empty),
// a size limit enforced while the bytes arrive (413 — a huge body is never buffered whole), JSON
// syntax and shape (400).
// Returns the object or a RestFailure; never throws for bad input.

import type { IncomingMessage } from "node:http";
import { declaresMoreThan, decodeUtf8, readBody } from "../body-bytes.js";
import type { ErrorDetail } from "../../model/errors.js";
import { mediaTypeOf } from "../media-type.js";
import type { ProblemKind } from "./problem.js";

/** How to add the header from the shell, where most hand-typed requests come from. */
const curlHint = "with curl: -H 'content-type: application/json'";

export interface RestFailure {
  kind: ProblemKind;
  detail: string;
  errors?: ErrorDetail[];
  /** Headers the answer carries besides its content type (`retry-after`). */
  headers?: Record<string, string>;
  /** How many problems were found beyond `errors`. */
  truncated?: number;
}

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; failure: RestFailure };

/** application/json, or an `application/…+json` structured-syntax type (merge-patch and the like). */
function isJsonType(contentType: string): boolean {
  const type = mediaTypeOf(contentType);
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

export async function readJsonObject(
  request: Request,
  maxBytes: number,
  incoming?: IncomingMessage,
): Promise<BodyResult> {
  const contentType = request.headers.get("content-type");
  const declared = request.headers.get("content-length");
  if (declaresMoreThan(declared, maxBytes)) {
    return fail("payload_too_large", `The body is ${declared} bytes; the limit is ${maxBytes}.`);
  }
  // A Content-Type is required even for an empty body: a page can POST cross-site without a
  // preflight only with no type or a form type, never with a JSON one (spec/security.md, CSRF).
  if (contentType === null)
    return fail(
      "unsupported_media_type",
      `Send the body with Content-Type: application/json, even an empty one (${curlHint}).`,
    );
  if (!isJsonType(contentType)) {
    // `curl -d` sends a form type: the commonest way to land here, so the message shows the fix.
    return fail(
      "unsupported_media_type",
      `Send the body as application/json, not '${contentType.slice(0, 100)}' (${curlHint}).`,
    );
  }
  const bytes = await readBody(incoming, request, maxBytes);
  if (bytes === "too_large")
    return fail("payload_too_large", `The body is larger than the limit of ${maxBytes} bytes.`);
  // An empty JSON-typed body is an empty object: a create with all defaults, a method with no arguments.
  if (bytes.length === 0) return { ok: true, value: {} };
  const text = decodeUtf8(bytes);
  if (text === undefined) return fail("invalid_input", "The body is not valid UTF-8; send JSON text encoded as UTF-8.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail("invalid_input", `The body is not valid JSON: ${(err as Error).message}.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return fail("invalid_input", "The body must be a JSON object.", [{ path: "", message: "must be an object" }]);
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function fail(kind: ProblemKind, detail: string, errors?: ErrorDetail[]): BodyResult {
  return { ok: false, failure: { kind, detail, ...(errors ? { errors } : {}) } };
}
