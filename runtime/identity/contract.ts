// The seams between the HTTP edge and the ways a caller can prove who it is (spec/security.md,
// "Principals"). The edge (one for every route) takes the request's bearer credential, asks the
// owner's token first, then each BearerSource in order, and carries the principal it gets into
// every operation's CallContext. A source that does not recognise a credential says undefined, so
// the next one is asked; one that recognises it and refuses it throws CredentialRefused. A
// credential no source recognises is refused too: both answer 401 with the challenge.

import type { Principal } from "../../model/principal.js";

/** One way to recognise a bearer credential: named tokens (the store), OAuth 2.1 / OIDC JWTs. */
export interface BearerSource {
  /**
   * The principal `credential` proves; undefined when this source does not recognise it. A
   * source answers at once (no promise) when it can — a credential that is not its kind, one it
   * verified lately — so that the edge dispatches such a request without waiting a turn; a
   * refusal may come either way (thrown, or a rejected promise).
   */
  resolve(credential: string): Principal | undefined | Promise<Principal | undefined>;
}

/**
 * A credential recognised and refused (revoked, expired, wrong audience, bad signature …).
 * `reason` is safe to log and to show the caller: it never contains the credential.
 */
export class CredentialRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * A credential that cannot be checked now: the issuer's metadata or signing keys cannot be
 * fetched and none are cached (spec/security.md, "OAuth 2.1 bearer tokens (JWT)"). Not the
 * caller's fault and perhaps fine in a minute, so the edge answers it 503 with `Retry-After`:
 * a 401 tells an OAuth client its token is bad, and it would drop it and ask its user to sign in
 * again. It is a CredentialRefused so that an edge that knows only that class still refuses it
 * (401), never admits it. `detail` is for the server log (which URL, what answer); like
 * `reason` it never contains the credential.
 */
export class CredentialUnverifiable extends CredentialRefused {
  constructor(
    reason: string,
    readonly detail: string,
  ) {
    super(reason);
  }
}

/** An OAuth resource server's public face: served by the edge when an issuer is configured. */
export interface ProtectedResource {
  /** The RFC 9728 document served at /.well-known/oauth-protected-resource[/mcp]. */
  metadata(publicOrigin: string): Record<string, unknown>;
  /**
   * The `WWW-Authenticate` value of every 401 (`Bearer resource_metadata="…"`). Given the
   * refusal of a credential that was sent, it adds `error="invalid_token"` and the reason
   * (RFC 6750 §3.1), which tells an OAuth client to get a new token rather than retry.
   */
  challenge(publicOrigin: string, refused?: CredentialRefused): string;
}
