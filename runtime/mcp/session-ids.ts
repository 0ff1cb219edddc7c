// Session ids that every instance on one database can recognise without a row (spec/mcp.md,
// "Sessions across instances"). A 2025-era session gets its row in the shared table only at its
// first request, so that `initialize` alone, which anyone can send, writes nothing; until then
// the id itself says that an instance of this database minted it, when, and for which protocol
// version: `<random>.<minted, ms base 36>.<version>.<HMAC-SHA256 of those with the database's key>`.
// Visible ASCII, as the transport requires of a session id.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const macLength = 22; // 16 bytes of the HMAC, base64url

function mac(key: Uint8Array, payload: string): string {
  return createHmac("sha256", key).update(payload).digest("base64url").slice(0, macLength);
}

export function mintSharedId(key: Uint8Array, protocolVersion: string, now = Date.now()): string {
  const payload = `${randomBytes(16).toString("hex")}.${now.toString(36)}.${protocolVersion}`;
  return `${payload}.${mac(key, payload)}`;
}

/**
 * The protocol version of `id` when an instance holding `key` minted it no more than `maxAgeMs`
 * ago; otherwise undefined (forged, another database's, malformed, or too old to be unused).
 */
export function verifySharedId(key: Uint8Array, id: string, maxAgeMs: number, now = Date.now()): string | undefined {
  const cut = id.lastIndexOf(".");
  if (cut < 0 || id.length - cut - 1 !== macLength) return undefined;
  const payload = id.slice(0, cut);
  const expected = Buffer.from(mac(key, payload));
  const given = Buffer.from(id.slice(cut + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [, minted, protocolVersion] = payload.split(".");
  const at = parseInt(minted ?? "", 36);
  if (!Number.isSafeInteger(at) || now - at > maxAgeMs || at - now > 60_000 || !protocolVersion) return undefined;
  return protocolVersion;
}
