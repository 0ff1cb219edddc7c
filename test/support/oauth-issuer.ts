// A real OAuth 2.1 / OIDC issuer for tests: an HTTP server on 127.0.0.1 that serves its
// metadata at the well-known URLs and its JWKS, made with jose, and mints access tokens signed
// with its keys. Tests point `[auth] issuer` at `issuer.url` and send `issuer.mint({...})` as
// the bearer token. It also makes the tokens an attacker would try (`alg: none`, HS256 keyed
// with the public key, a foreign key under a known kid), rotates keys, and can go down.
//
// It issues tokens only; there is no authorization endpoint or login: what is under test is the
// resource server's side (runtime/identity/jwt.ts), which never talks to those.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import type { webcrypto } from "node:crypto";

type CryptoKey = webcrypto.CryptoKey;

export interface IssuerOptions {
  /** The issuer's path (`/realms/shop`): metadata then sits at RFC 8414's path-inserted URLs. */
  path?: string;
  /** Which metadata documents it serves. Default both. */
  metadata?: ("oauth-authorization-server" | "openid-configuration")[];
  /** The first key's algorithm. Default ES256. */
  alg?: string;
  /** The `issuer` its metadata claims, when not its own URL (a mix-up: another issuer's document). */
  claimedIssuer?: string;
}

export interface MintOptions {
  /** Default: the issuer's URL. */
  iss?: string;
  /** Default: none (tests always say who the token is for). */
  aud?: string | string[];
  /** Seconds from now; default 300. `null`: no `exp` claim. */
  expiresIn?: number | null;
  /** Seconds from now for `nbf`; default none. */
  notBefore?: number;
  /** Signing key id; default the newest key. */
  kid?: string;
  /** Leave `kid` out of the header. */
  noKid?: boolean;
}

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  spki: string;
}

export class OAuthIssuer {
  /** `http://127.0.0.1:<port>[path]`: what `[auth] issuer` says and tokens' `iss` hold. */
  readonly url: string;
  readonly jwksUrl: string;
  /** Requests served, by path (`/jwks` …): to see what was fetched and how often. */
  readonly hits = new Map<string, number>();
  private keys: SigningKey[] = [];
  private published: SigningKey[] = [];
  private outage: "none" | "refuse" | "error" = "none";

  private constructor(
    private readonly server: Server,
    origin: string,
    private readonly options: IssuerOptions,
  ) {
    this.url = `${origin}${options.path ?? ""}`;
    this.jwksUrl = `${origin}/jwks`;
  }

  static async start(options: IssuerOptions = {}): Promise<OAuthIssuer> {
    let issuer: OAuthIssuer | undefined;
    const server = createServer((req, res) => issuer!.serve(req, res));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as AddressInfo;
    issuer = new OAuthIssuer(server, `http://127.0.0.1:${port}`, options);
    await issuer.addKey(options.alg ?? "ES256");
    return issuer;
  }

  /** A new signing key, published in the JWKS and used by `mint` from now on (key rotation). */
  async addKey(alg = "ES256", { publish = true } = {}): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${this.keys.length + 1}`;
    const key: SigningKey = {
      kid,
      alg,
      privateKey,
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" },
      spki: await exportSPKI(publicKey),
    };
    this.keys.push(key);
    if (publish) this.published.push(key);
    return kid;
  }

  /** Stops publishing a key (a retired key: tokens signed with it no longer verify once refetched). */
  retire(kid: string): void {
    this.published = this.published.filter((k) => k.kid !== kid);
  }

  /** `refuse`: connections are cut (unreachable); `error`: every answer is 503; `none`: back up. */
  setOutage(mode: "none" | "refuse" | "error"): void {
    this.outage = mode;
  }

  /** A signed access token with `claims` plus iss/iat/exp (and aud, nbf as told). */
  async mint(claims: JWTPayload, options: MintOptions = {}): Promise<string> {
    const key = options.kid !== undefined ? this.key(options.kid) : this.keys.at(-1)!;
    return this.sign(claims, options, key.alg, key.privateKey, options.noKid ? undefined : key.kid);
  }

  /** Signed by a key the issuer never published, under the kid of one it did: a forged token. */
  async forge(claims: JWTPayload, options: MintOptions = {}): Promise<string> {
    const known = this.keys.at(-1)!;
    const { privateKey } = await generateKeyPair(known.alg);
    return this.sign(claims, options, known.alg, privateKey, known.kid);
  }

  /** `alg: none`, no signature: what a server that trusts the header would accept. */
  unsigned(claims: JWTPayload, options: MintOptions = {}): string {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    return `${b64({ alg: "none", typ: "JWT" })}.${b64(this.claims(claims, options))}.`;
  }

  /** HS256 keyed with the issuer's public key (PEM): the algorithm-confusion attack. */
  async hmacWithPublicKey(claims: JWTPayload, options: MintOptions = {}): Promise<string> {
    const known = this.keys.at(-1)!;
    return this.sign(claims, options, "HS256", new TextEncoder().encode(known.spki), known.kid);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private key(kid: string): SigningKey {
    const key = this.keys.find((k) => k.kid === kid);
    if (key === undefined) throw new Error(`no key ${kid}`);
    return key;
  }

  private claims(claims: JWTPayload, options: MintOptions): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    const out: JWTPayload = { iss: options.iss ?? this.url, iat: now, ...claims };
    if (options.aud !== undefined) out.aud = options.aud;
    if (options.expiresIn !== null) out.exp = now + (options.expiresIn ?? 300);
    if (options.notBefore !== undefined) out.nbf = now + options.notBefore;
    return out;
  }

  private sign(
    claims: JWTPayload,
    options: MintOptions,
    alg: string,
    key: CryptoKey | Uint8Array,
    kid: string | undefined,
  ): Promise<string> {
    const header = kid === undefined ? { alg, typ: "at+jwt" } : { alg, typ: "at+jwt", kid };
    return new SignJWT(this.claims(claims, options)).setProtectedHeader(header).sign(key);
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    if (this.outage === "refuse") {
      req.socket.destroy();
      return;
    }
    if (this.outage === "error") return this.json(res, 503, { error: "temporarily_unavailable" });
    if (path === "/jwks") return this.json(res, 200, { keys: this.published.map((k) => k.publicJwk) });
    const suffix = this.options.path ?? "";
    const served = this.options.metadata ?? ["oauth-authorization-server", "openid-configuration"];
    const origin = this.url.slice(0, this.url.length - suffix.length);
    const wanted =
      served.includes("oauth-authorization-server") && path === `/.well-known/oauth-authorization-server${suffix}`
        ? "oauth"
        : served.includes("openid-configuration") &&
            (path === `/.well-known/openid-configuration${suffix}` ||
              path === `${suffix}/.well-known/openid-configuration`)
          ? "oidc"
          : undefined;
    if (wanted === undefined) return this.json(res, 404, { error: "not_found" });
    this.json(res, 200, {
      issuer: this.options.claimedIssuer ?? this.url,
      jwks_uri: this.jwksUrl,
      token_endpoint: `${origin}/token`,
      authorization_endpoint: `${origin}/authorize`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      ...(wanted === "oidc"
        ? { subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["ES256"] }
        : {}),
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }
}
