// The issuer's signing keys (its JWKS), fetched once and kept, for every token to be checked
// against without a network round trip (spec/security.md, "OAuth 2.1 bearer tokens (JWT)").
//
// jose's createRemoteJWKSet was the first choice, but it drops its keys once they are older than
// its cache age and then fails every token while the issuer is unreachable; here an outage
// after one good fetch keeps the keys in use. So: jose's createLocalJWKSet over keys held here.
// - Keys older than `maxAgeMs` are refreshed in the background; the token at hand is checked
//   with the keys held, so a slow issuer never slows a request that has a known key.
// - A token naming a key not held (`kid` unknown: the issuer rotated) waits for one refetch, at
//   most once per `cooldownMs`, so a stream of made-up kids cannot make the server hammer the
//   issuer.
// - Fetches are single-flight: a burst of first requests fetches once.
// - Before the first successful fetch there is nothing to check with: CredentialUnverifiable
//   ("issuer unreachable"), and a failed attempt is not repeated within `cooldownMs`.

import { createLocalJWKSet, errors, type JWSHeaderParameters, type JSONWebKeySet } from "jose";
import { CredentialUnverifiable } from "./contract.js";

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;
export type KeyLookup = (header: JWSHeaderParameters) => ReturnType<LocalKeySet>;

export interface KeyTimings {
  /** Age after which held keys are refreshed in the background. */
  maxAgeMs: number;
  /** Minimum time between two fetches (after a failure, or for an unknown kid). */
  cooldownMs: number;
}

export const defaultKeyTimings: KeyTimings = { maxAgeMs: 10 * 60_000, cooldownMs: 30_000 };

export class SigningKeys {
  private keys: LocalKeySet | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private lastFailure: string | undefined;
  private pending: Promise<void> | undefined;
  /** Counts successful fetches: a verdict reached with older keys is not reused (jwt.ts). */
  generation = 0;

  /** `load` fetches the key set (discovering where it is first, when it must): it throws with an operator-readable message. */
  constructor(
    private readonly load: () => Promise<unknown>,
    private readonly timings: KeyTimings = defaultKeyTimings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key for a token's protected header; jose's errors (JWKSNoMatchingKey …) when none fits. */
  readonly lookup: KeyLookup = async (header) => {
    if (this.keys === undefined) await this.refresh(true);
    else if (this.now() - this.fetchedAt > this.timings.maxAgeMs && !this.coolingDown())
      void this.refresh(false).catch(() => {});
    try {
      return await this.keys!(header);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A fetch under way (another token with the new kid started it) is waited for, not refused.
      if (this.pending === undefined && this.coolingDown()) {
        // The key may be new and the issuer down: say so rather than "unknown signing key".
        if (this.lastFailure !== undefined) throw unreachable(this.lastFailure);
        throw error;
      }
      await this.refresh(true);
      return await this.keys!(header);
    }
  };

  private coolingDown(): boolean {
    return this.now() - this.attemptedAt < this.timings.cooldownMs;
  }

  /**
   * Fetches the key set again (joining a fetch under way). `needed`: the caller cannot go on
   * without fresh keys, so a failure (or one within the cooldown, when no keys are held) is
   * CredentialUnverifiable; otherwise failures leave the held keys in place.
   */
  private async refresh(needed: boolean): Promise<void> {
    if (this.pending === undefined) {
      if (this.keys === undefined && this.coolingDown()) throw unreachable(this.lastFailure!);
      this.attemptedAt = this.now();
      this.pending = this.fetchKeys().finally(() => {
        this.pending = undefined;
      });
    }
    try {
      await this.pending;
    } catch (error) {
      if (needed) throw error;
    }
  }

  private async fetchKeys(): Promise<void> {
    let keys: LocalKeySet;
    try {
      keys = createLocalJWKSet((await this.load()) as JSONWebKeySet);
    } catch (error) {
      this.lastFailure =
        error instanceof errors.JWKSInvalid ? `the issuer's JWKS is malformed: ${error.message}` : messageOf(error);
      throw unreachable(this.lastFailure);
    }
    this.keys = keys;
    this.generation++;
    this.fetchedAt = this.now();
    this.lastFailure = undefined;
  }
}

function unreachable(detail: string): CredentialUnverifiable {
  return new CredentialUnverifiable("issuer unreachable", detail);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
