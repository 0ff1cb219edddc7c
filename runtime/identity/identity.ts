// Who is calling: the one resolution every request takes at the edge (runtime/edge.ts;
// spec/security.md, "Principals"). In order: the owner's token, then each BearerSource (named
// tokens from the store, then what else the instance was given: OAuth 2.1 JWTs). With no
// identity source configured at all, every caller is the owner, exactly as before identities
// existed; once one is, a request without credentials is anonymous.

import { anonymousPrincipal, ownerPrincipal, type Principal } from "../../model/principal.js";
import { CredentialRefused, CredentialUnverifiable, type BearerSource, type ProtectedResource } from "./contract.js";
import { bearerCredential, tokenCheck } from "./owner-token.js";

/** The named tokens of the app's store as a source; whether there are any can change while serving. */
export interface NamedTokenSource extends BearerSource {
  /** Whether the store holds any named token (as of a moment ago). */
  readonly configured: boolean;
  /** How many there are, for the banner. */
  readonly count: number;
}

export interface IdentityOptions {
  /** The owner's token: `token_env`, `--token-file` or the automatic agent token. */
  ownerToken?: string;
  namedTokens?: NamedTokenSource;
  /** Asked after the named tokens, in order (the OAuth 2.1 JWT verifier). */
  sources?: readonly BearerSource[];
  /** An OAuth resource server's metadata and challenge (served by the edge when present). */
  protectedResource?: ProtectedResource;
  log: (line: string) => void;
}

/** The credential could not be checked (the database behind a source is down): 503, retry. */
export class CredentialUncheckable {
  constructor(readonly reason: string) {}
}

export type Resolution = Principal | CredentialRefused | CredentialUncheckable;

export interface Identity {
  /** Whether any identity source is configured; false: every caller is the owner. */
  readonly configured: boolean;
  /** The principal `authorization` (the header's value) proves, or why it proves none. */
  resolve(authorization: string | undefined): Resolution | Promise<Resolution>;
  /** The `WWW-Authenticate` value of a 401; `refused`: the credential sent and refused, if any. */
  challenge(publicOrigin: string, refused?: CredentialRefused): string;
  readonly protectedResource: ProtectedResource | undefined;
  /** The banner's line: which sources are configured, or that every local caller is the owner. */
  describe(): string;
}

/** The challenge of a 401 when no OAuth resource server is configured. */
export const plainChallenge = 'Bearer realm="wo"';

/** Why a request without credentials (anonymous), or with a malformed header, is refused. */
export const anonymousRefusal = new CredentialRefused(
  "Send Authorization: Bearer <token>: the owner's token, or a named token (`wo token add`).",
);
const notRecognised = new CredentialRefused(
  "The bearer token is not one this server knows: not the owner's, and no named token (or other source) matches it.",
);

export function createIdentity(options: IdentityOptions): Identity {
  const isOwnerToken = options.ownerToken !== undefined ? tokenCheck(options.ownerToken) : undefined;
  const sources = [...(options.namedTokens ? [options.namedTokens] : []), ...(options.sources ?? [])];
  const always = isOwnerToken !== undefined || (options.sources ?? []).length > 0 || !!options.protectedResource;
  const named = options.namedTokens;
  const isConfigured = () => always || (named?.configured ?? false);

  const failure = (err: unknown): Resolution => {
    // An issuer out of reach is not the caller's fault: 503, so it retries with the same token.
    if (err instanceof CredentialUnverifiable) {
      options.log(`identity: ${err.reason}: ${err.detail}`);
      return new CredentialUncheckable(`${err.reason}; retry shortly.`);
    }
    if (err instanceof CredentialRefused) return err;
    options.log(`identity: a credential could not be checked: ${(err as Error).message}`);
    return new CredentialUncheckable("The credential cannot be checked right now; retry shortly.");
  };

  /**
   * The sources from `from` on, in order. Synchronous for as long as the sources answer at
   * once (a cached JWT is answered without a promise); from the first one that must wait, a promise.
   */
  const askSources = (credential: string, from = 0): Resolution | Promise<Resolution> => {
    for (let i = from; i < sources.length; i++) {
      let answer: ReturnType<BearerSource["resolve"]>;
      try {
        answer = sources[i]!.resolve(credential);
      } catch (err) {
        return failure(err);
      }
      if (answer instanceof Promise) return answer.then((p) => p ?? askSources(credential, i + 1), failure);
      if (answer) return answer;
    }
    return notRecognised;
  };

  const fromNamedWhileUnconfigured = (
    source: NamedTokenSource,
    credential: string,
  ): Resolution | Promise<Resolution> => {
    let answer: ReturnType<BearerSource["resolve"]>;
    try {
      answer = source.resolve(credential);
    } catch {
      return ownerPrincipal;
    }
    if (answer instanceof Promise)
      return answer.then(
        (p) => p ?? ownerPrincipal,
        () => ownerPrincipal,
      );
    return answer ?? ownerPrincipal;
  };

  return {
    get configured() {
      return isConfigured();
    },
    resolve(authorization) {
      if (!isConfigured()) {
        // Every caller is the owner, but a named token made a moment ago (before the source
        // noticed) proves its own principal, never the owner's.
        const credential = named && authorization ? bearerCredential(authorization) : undefined;
        return credential === undefined ? ownerPrincipal : fromNamedWhileUnconfigured(named!, credential);
      }
      if (authorization === undefined || authorization === "") return anonymousPrincipal;
      const credential = bearerCredential(authorization);
      if (credential === undefined) return anonymousRefusal;
      if (isOwnerToken?.(credential)) return ownerPrincipal;
      return askSources(credential);
    },
    challenge(publicOrigin, refused) {
      return options.protectedResource?.challenge(publicOrigin, refused) ?? plainChallenge;
    },
    protectedResource: options.protectedResource,
    describe() {
      const parts: string[] = [];
      if (isOwnerToken) parts.push("the owner's token");
      if (named?.configured) parts.push(`${named.count} named token${named.count === 1 ? "" : "s"}`);
      if (options.protectedResource || (options.sources ?? []).length > 0) parts.push("OAuth bearer tokens");
      if (parts.length === 0) return "none configured — every local caller is the owner";
      return `${parts.join(", ")}; a request without credentials is anonymous and refused`;
    },
  };
}
