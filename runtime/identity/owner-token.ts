// The owner's bearer token (`[server] token_env`, `--token-file`, the automatic agent token;
// runtime/ops/agent-token.ts says where it comes from) and the reading of an `Authorization:
// Bearer` header. The comparison takes the same time whatever the guess.

import { createHash, timingSafeEqual } from "node:crypto";

/** The credential of an `Authorization: Bearer <credential>` value; undefined for any other value. */
export function bearerCredential(authorization: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1];
}

/** Whether a bearer credential is `token`. */
export function tokenCheck(token: string): (credential: string) => boolean {
  // Comparing fixed-size digests keeps timingSafeEqual's equal-length rule from leaking the length.
  const expected = sha256(token);
  return (credential) => timingSafeEqual(sha256(credential), expected);
}

export function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
