// Named tokens (spec/operations.md, "Tokens"; spec/security.md, "Principals"): random bearer
// tokens that `wo token add NAME --role ROLE [--user ID]` makes, each naming one principal. The
// store keeps only the SHA-256 of each (a token has 256 random bits, so a fast hash is enough:
// nobody can search that space), and every request that presents one looks it up there, so a
// `wo token revoke` counts at once, on every instance sharing the database.
//
// A token starts with `wo_`: recognisable in a config file or a leak scanner, and a credential
// without the prefix is left to the next source (an OAuth JWT).

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Principal } from "../../model/principal.js";
import type { NamedTokenDirectory } from "../../model/store.js";
import { CredentialRefused } from "./contract.js";
import type { NamedTokenSource } from "./identity.js";
import { sha256 } from "./owner-token.js";

export const namedTokenPrefix = "wo_";

/** A new token's text: the prefix and 256 random bits, base64url. */
export function newNamedToken(): string {
  return `${namedTokenPrefix}${randomBytes(32).toString("base64url")}`;
}

/** What the store keeps of a token: the hex SHA-256 of its text. */
export function namedTokenHash(token: string): string {
  return sha256(token).toString("hex");
}

/** Principal names the runtime gives itself: no token may take them. */
const reservedNames = new Set(["owner", "anonymous"]);
const namePattern = /^[a-z][a-z0-9_-]{0,63}$/;

/** Why `name` cannot name a token; undefined when it can. */
export function tokenNameProblem(name: string): string | undefined {
  if (name === "") return "a token name cannot be empty";
  if (reservedNames.has(name)) return `'${name}' is the name of a principal wo gives itself; choose another`;
  if (!namePattern.test(name))
    return `'${shown(name)}' is not a token name: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter (e.g. claude, ci-bot)`;
  return undefined;
}

/** Why `role` cannot be a token's role; undefined when it can. */
export function tokenRoleProblem(role: string): string | undefined {
  if (!namePattern.test(role))
    return `'${shown(role)}' is not a role: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter (e.g. agent, reader)`;
  return undefined;
}

/** Why `user` cannot be a token's user id; undefined when it can. */
export function tokenUserProblem(user: string): string | undefined {
  if (user === "") return "--user cannot be empty; leave it out for a token without a user";
  if (user.length > 256) return "--user is longer than 256 characters";
  if (/[\u0000-\u001f\u007f]/.test(user)) return "--user contains a control character";
  return undefined;
}

function shown(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return line.length > 70 ? `${line.slice(0, 70)}…` : line;
}

const unknownToken = new CredentialRefused(
  "The named token is unknown or was revoked; `wo token list` shows the tokens there are.",
);

/** How often whether any named token exists is asked again: a first `wo token add` counts within it. */
const refreshMs = 1_000;
/** A token's last-used mark is written at most this often (per instance). */
const touchEveryMs = 60_000;

/**
 * The named tokens of `directory` as a bearer source. Reads how many there are before it
 * resolves, then every second, so that the first `wo token add` while serving ends "every
 * caller is the owner" within a second (spec/security.md). `close()` stops that.
 */
export async function startNamedTokenSource(
  directory: NamedTokenDirectory,
  log: (line: string) => void,
): Promise<NamedTokenSource & { close(): void }> {
  let count = await directory.count();
  const touched = new Map<string, number>();
  // One count in flight at a time: on a loaded database an older answer could otherwise land
  // after a newer one (through another pool connection) and undo a `wo token add`.
  let counting = false;
  const timer = setInterval(() => {
    if (counting) return;
    counting = true;
    directory
      .count()
      .then(
        (n) => (count = n),
        () => undefined, // the database is out of reach for a moment: what was known stays
      )
      .finally(() => (counting = false));
  }, refreshMs);
  timer.unref();
  return {
    get configured() {
      return count > 0;
    },
    get count() {
      return count;
    },
    resolve(credential) {
      // Not a named token: said at once, so the next source (a cached JWT) needs no promise either.
      if (!credential.startsWith(namedTokenPrefix)) return undefined;
      return lookUp(credential);
    },
    close() {
      clearInterval(timer);
    },
  };

  // Every time, from the store: a revocation counts at once, on every instance (no cache).
  async function lookUp(credential: string): Promise<Principal> {
    const hash = namedTokenHash(credential);
    const found = await directory.find(hash);
    if (!found || !timingSafeEqual(Buffer.from(found.hash, "hex"), Buffer.from(hash, "hex"))) throw unknownToken;
    // A token found proves there are tokens: identities are configured from now on, not from
    // the next count (else a token revoked before it would still pass as the owner's).
    if (count === 0) count = 1;
    const now = Date.now();
    if (now - (touched.get(found.name) ?? 0) >= touchEveryMs) {
      touched.set(found.name, now);
      directory.touch(found.name).catch((err) => log(`identity: could not mark token ${found.name} used: ${err}`));
    }
    return { name: found.name, user: found.user, role: found.role, via: "token" };
  }
}
