// A value kept only to be compared later, as a digest of its JSON: equal values give equal
// digests, and a 400-type app's tool list is kept as a few bytes instead of megabytes
// (runtime/build-changes.ts, runtime/mcp/methods.ts compare builds at a --watch swap).

import { createHash } from "node:crypto";

/** sha256 (base64) of `value`'s JSON text. */
export function jsonDigest(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(value) ?? "")
    .digest("base64");
}
