// Bearer JWTs from the `[auth]` issuer: the BearerSource that turns a signed access token into
// a principal (spec/security.md, "OAuth 2.1 bearer tokens (JWT)"). The MCP authorization
// specification (2025-06-18, 2025-11-25, 2026-07-28: "Token Handling", "Access Token Privilege
// Restriction") has a resource server accept only tokens issued for it: the audience is checked
// on every token, and a token for anyone else is refused, never passed on.
//
// A credential that is not a JWT (not three base64url parts with a JSON header naming an `alg`)
// is not this source's: undefined, so the edge asks the next one. A JWT is this source's, and
// one that fails is refused with a reason that names the check, never the token.

import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import type { AuthConfig } from "../../model/app.js";
import type { Principal } from "../../model/principal.js";
import { type BearerSource, CredentialRefused } from "./contract.js";
import { defaultFetchLimits, type FetchLimits, fetchJson } from "./fetch-json.js";
import { discoverJwksUrl } from "./issuer-discovery.js";
import { mcpResourceUrl } from "./resource-metadata.js";
import { defaultKeyTimings, type KeyTimings, SigningKeys } from "./signing-keys.js";

/**
 * Asymmetric signatures only. An HMAC (`HS256` …) key is a shared secret, which a JWKS published
 * for everyone cannot hold — a server that accepted HS* with the issuer's public key as the secret
 * would take tokens anyone can make; `none` is no signature at all.
 */
export const allowedAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Seconds a token's `exp` and `nbf` may be off: the issuer's clock and ours are not one. */
export const clockSkewSeconds = 30;

export interface JwtSourceOptions {
  /**
   * The server's public origin (`https://shop.example.com`), whose `/mcp` URL is the audience
   * when `[auth] audience` is not set. Fixed when the source is made, never taken from a
   * request's Host: a token's audience is who the server is, not who a caller says it is.
   */
  publicOrigin: string;
  /** Issuer fetches (metadata, JWKS). Default 5 s, 1 MiB. */
  fetchLimits?: FetchLimits;
  /** Key refresh and refetch throttling. Default 10 min, 30 s. */
  keyTimings?: KeyTimings;
}

export function createJwtSource(auth: AuthConfig, options: JwtSourceOptions): BearerSource {
  const audience = new Set((auth.audience ?? [mcpResourceUrl(options.publicOrigin)]).map(canonicalUri));
  const limits = options.fetchLimits ?? defaultFetchLimits;
  let jwksUrl = auth.jwksUrl;
  const keys = new SigningKeys(async () => {
    // Discovery is remembered once it succeeds; a failure is retried with the next key fetch.
    jwksUrl ??= await discoverJwksUrl(auth.issuer, limits);
    return fetchJson(jwksUrl, limits);
  }, options.keyTimings ?? defaultKeyTimings);
  const verifyOptions = {
    issuer: auth.issuer,
    algorithms: allowedAlgorithms,
    clockTolerance: clockSkewSeconds,
    // An access token without `exp` would never stop working (RFC 9068 §2.2 requires it).
    requiredClaims: ["exp"],
  };

  const verified = new VerifiedTokens();

  // Every check, for a token not verified lately.
  const check = async (credential: string): Promise<Principal | undefined> => {
    const unverified = readUnverified(credential);
    if (unverified === undefined) return undefined;
    // Checks that need no key come first, so a token from another issuer or with `alg: none`
    // is refused at once and never makes the server fetch keys.
    if (!allowedAlgorithms.includes(unverified.alg)) throw new CredentialRefused("algorithm not allowed");
    if (unverified.payload === undefined) throw new CredentialRefused("malformed token");
    if (unverified.payload.iss !== auth.issuer) throw new CredentialRefused("wrong issuer");
    let payload: JWTPayload;
    try {
      payload = (await verify(credential, keys, verifyOptions)).payload;
    } catch (error) {
      throw refusal(error);
    }
    if (!isForUs(payload.aud, audience)) throw new CredentialRefused("wrong audience");
    const principal = principalOf(payload, auth);
    verified.put(credential, principal, payload.exp! * 1000, keys.generation);
    return principal;
  };

  return {
    resolve(credential) {
      // A token verified lately is answered at once, without a promise: the edge then
      // dispatches its request in the same turn.
      return verified.get(credential, keys.generation) ?? check(credential);
    },
  };
}

/**
 * Tokens verified lately and who they are, so that a client sending the same token with every
 * call pays for the signature once (an ES256 verification costs about as much as a small REST
 * call). An entry ends at the token's `exp` (without the skew: past it the full check decides),
 * after a minute at most, and when the signing keys are fetched again (a key the issuer
 * withdrew stops verifying then); at most `maxEntries`, the oldest dropped first. Refusals
 * are not kept: each is checked again.
 */
class VerifiedTokens {
  private readonly entries = new Map<string, { principal: Principal; until: number; generation: number }>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxAgeMs = 60_000,
  ) {}

  get(token: string, generation: number): Principal | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now() && entry.generation === generation) return entry.principal;
    this.entries.delete(token);
    return undefined;
  }

  put(token: string, principal: Principal, expiresAt: number, generation: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, until: Math.min(expiresAt, Date.now() + this.maxAgeMs), generation });
  }
}

/**
 * Whether a token's `aud` (a string or a list) names this server. Compared as URIs after
 * RFC 3986 syntax normalization (scheme and host case, a default port), which the MCP
 * specification asks servers to accept ("Canonical Server URI"); a path differs as written.
 */
function isForUs(aud: unknown, audience: Set<string>): boolean {
  const named = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  return named.some((a) => typeof a === "string" && audience.has(canonicalUri(a)));
}

function canonicalUri(value: string): string {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
}

/** The header's `alg` and the payload, undecoded by any key; undefined when not a JWT at all. */
function readUnverified(credential: string): { alg: string; payload: JWTPayload | undefined } | undefined {
  // Three base64url parts; the signature is empty for `alg: none`, which is a JWT to refuse.
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential)) return undefined;
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(credential).alg;
  } catch {
    return undefined;
  }
  if (typeof alg !== "string") return undefined;
  let payload: JWTPayload | undefined;
  try {
    payload = decodeJwt(credential);
  } catch {
    payload = undefined;
  }
  return { alg, payload };
}

type VerifyOptions = Parameters<typeof jwtVerify>[2];

/**
 * jwtVerify with the held keys. Several keys that fit a token without `kid` are each tried
 * (jose leaves that to its caller): one that verifies is enough.
 */
async function verify(credential: string, keys: SigningKeys, options: VerifyOptions) {
  try {
    return await jwtVerify(credential, keys.lookup, options);
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return await jwtVerify(credential, key, options);
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** The caller-facing reason for a failed check: the check's name, never the token or a claim. */
function refusal(error: unknown): CredentialRefused {
  if (error instanceof CredentialRefused) return error;
  if (error instanceof errors.JWTExpired) return new CredentialRefused("expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    const reasons: Record<string, string> = {
      iss: "wrong issuer",
      aud: "wrong audience",
      nbf: "not yet valid",
      exp: "no expiry",
    };
    return new CredentialRefused(reasons[error.claim] ?? "invalid claims");
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return new CredentialRefused("algorithm not allowed");
  if (error instanceof errors.JWKSNoMatchingKey) return new CredentialRefused("unknown signing key");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new CredentialRefused("bad signature");
  if (error instanceof errors.JWKInvalid) return new CredentialRefused("unusable signing key");
  if (error instanceof errors.JOSEError) return new CredentialRefused("malformed token");
  throw error;
}

/**
 * Who the token says: `user` from `user_claim` (a string, or a number as text; without one the
 * token names nobody and is refused), `role` from `role_claim` (a string, or an array's first
 * string; otherwise none), `name` the client the token was issued to (`client_id`, RFC 9068, or
 * OIDC's `azp`), else the user. A value with a control character or over 256 characters would
 * garble the request log and the audit trail: such a user refuses the token, such a role or
 * label is not used.
 */
function principalOf(claims: JWTPayload, auth: AuthConfig): Principal {
  const rawUser = claims[auth.userClaim];
  const user = label(typeof rawUser === "number" && Number.isFinite(rawUser) ? String(rawUser) : rawUser);
  if (user === undefined) throw new CredentialRefused(`no usable '${auth.userClaim}' claim`);
  const rawRole = claims[auth.roleClaim];
  const role = label(Array.isArray(rawRole) ? rawRole.find((r) => typeof r === "string") : rawRole) ?? null;
  const name = label(claims.client_id) ?? label(claims.azp) ?? user;
  return { name, user, role, via: "jwt" };
}

function label(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 256) return undefined;
  // C0, DEL, C1, and the line and paragraph separators.
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value) ? undefined : value;
}
