// Who is calling: the one principal each request resolves to at the edge (spec/security.md,
// "Principals"), carried to every operation in its CallContext. The runtime decides it (named
// tokens, bearer JWTs, the owner's token, or nobody); the model only names its shape so the
// operation layer, the audit trail and generated code agree on it.

/** How the principal was identified. */
export type PrincipalVia = "owner" | "token" | "jwt" | "anonymous";

export interface Principal {
  /** A named token's name, the JWT's subject label, "owner" or "anonymous". */
  readonly name: string;
  /** `$session.user`: the caller's user id as text (a token's `--user`, the JWT's user claim). */
  readonly user: string | null;
  /** `$session.role`. */
  readonly role: string | null;
  readonly via: PrincipalVia;
}

/** Where a call came from: recorded in the audit trail and the request log. */
export type Surface = "rest" | "mcp" | "test" | "exec" | "startup" | "explorer" | "job";

/** Every right: `token_env`, `--token-file`, the automatic agent token, or no identity source at all. */
export const ownerPrincipal: Principal = Object.freeze({ name: "owner", user: null, role: null, via: "owner" });

/** A request without credentials once an identity source is configured. */
export const anonymousPrincipal: Principal = Object.freeze({
  name: "anonymous",
  user: null,
  role: null,
  via: "anonymous",
});

export function isOwner(p: Principal | undefined): boolean {
  return p === undefined || p.via === "owner";
}
