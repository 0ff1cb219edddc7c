// Bearer JWTs from the `[auth]` issuer (runtime/identity/jwt.ts; spec/security.md, "OAuth 2.1
// bearer tokens (JWT)"), against a real issuer on 127.0.0.1 (test/support/oauth-issuer.ts):
// discovery, JWKS fetched over HTTP, tokens signed by jose. Each refusal is checked for its
// reason, and that the reason never holds the token.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../model/app.js";
import { type BearerSource, CredentialRefused, CredentialUnverifiable } from "../../runtime/identity/contract.js";
import { metadataUrls } from "../../runtime/identity/issuer-discovery.js";
import { createJwtSource, type JwtSourceOptions } from "../../runtime/identity/jwt.js";
import { type IssuerOptions, OAuthIssuer } from "../support/oauth-issuer.js";

const origin = "http://127.0.0.1:4567";
const audience = `${origin}/mcp`;
const issuers: OAuthIssuer[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(issuers.splice(0).map((i) => i.close()));
});

async function startIssuer(options: IssuerOptions = {}): Promise<OAuthIssuer> {
  const issuer = await OAuthIssuer.start(options);
  issuers.push(issuer);
  return issuer;
}

function sourceFor(issuer: OAuthIssuer, auth: Partial<AuthConfig> = {}, options: Partial<JwtSourceOptions> = {}) {
  return createJwtSource(
    { issuer: issuer.url, userClaim: "sub", roleClaim: "role", ...auth },
    { publicOrigin: origin, ...options },
  );
}

/** The reason `source` refuses `token` with; fails when it does not refuse. */
async function refusal(source: BearerSource, token: string): Promise<CredentialRefused> {
  const error = await Promise.resolve(source.resolve(token)).then(
    (p) => {
      throw new Error(`accepted as ${JSON.stringify(p)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CredentialRefused);
  const refused = error as CredentialRefused;
  expect(refused.message).not.toContain(token.split(".")[1]);
  expect(JSON.stringify(refused)).not.toContain(token.split(".")[1]);
  return refused;
}

describe("bearer JWTs: valid tokens", () => {
  it("a token for this server's /mcp URL is the principal its claims say (discovered keys)", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer);
    const token = await issuer.mint({ sub: "u-42", role: "editor", client_id: "claude-desktop" }, { aud: audience });
    expect(await source.resolve(token)).toEqual({ name: "claude-desktop", user: "u-42", role: "editor", via: "jwt" });
    // An aud list that includes this server, azp as the label, a role array, a numeric user.
    const other = await issuer.mint(
      { sub: 7 as unknown as string, role: ["admin", "staff"], azp: "web" },
      { aud: ["https://elsewhere.example", audience] },
    );
    expect(await source.resolve(other)).toEqual({ name: "web", user: "7", role: "admin", via: "jwt" });
    // The MCP specification's canonical URI: scheme and host case do not matter, the path does.
    const upper = await issuer.mint({ sub: "u" }, { aud: "HTTP://127.0.0.1:4567/mcp" });
    expect(await source.resolve(upper)).toMatchObject({ user: "u" });
    expect((await refusal(source, await issuer.mint({ sub: "u" }, { aud: `${audience}/` }))).reason).toBe(
      "wrong audience",
    );
    // Keys and discovery are fetched once, not per token.
    expect(issuer.hits.get("/jwks")).toBe(1);
    expect(issuer.hits.get("/.well-known/oauth-authorization-server")).toBe(1);
  });

  it("user_claim and role_claim pick other claims; without a role the role is null; the label falls back to the user", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, { userClaim: "email", roleClaim: "groups" });
    const token = await issuer.mint({ sub: "x", email: "ada@example.com", groups: "ops" }, { aud: audience });
    expect(await source.resolve(token)).toEqual({
      name: "ada@example.com",
      user: "ada@example.com",
      role: "ops",
      via: "jwt",
    });
    const noRole = await issuer.mint({ sub: "x", email: "bob@example.com", role: "ignored" }, { aud: audience });
    expect(await source.resolve(noRole)).toMatchObject({ user: "bob@example.com", role: null });
  });

  it("a configured audience replaces the /mcp default; jwks_url skips discovery", async () => {
    const issuer = await startIssuer({ metadata: [] });
    const source = sourceFor(issuer, { audience: ["api://shop"], jwksUrl: issuer.jwksUrl });
    expect(await source.resolve(await issuer.mint({ sub: "u" }, { aud: "api://shop" }))).toMatchObject({ user: "u" });
    expect((await refusal(source, await issuer.mint({ sub: "u" }, { aud: audience }))).reason).toBe("wrong audience");
    expect([...issuer.hits.keys()]).toEqual(["/jwks"]);
  });

  it("RS256 keys, and a token without kid checked against every key that fits", async () => {
    const issuer = await startIssuer({ alg: "RS256" });
    await issuer.addKey("RS256");
    const source = sourceFor(issuer);
    // Two RSA keys fit a header without kid: the first fails, the second verifies.
    expect(await source.resolve(await issuer.mint({ sub: "r" }, { aud: audience, noKid: true }))).toMatchObject({
      user: "r",
    });
    expect(await source.resolve(await issuer.mint({ sub: "r1" }, { aud: audience, kid: "key-1" }))).toMatchObject({
      user: "r1",
    });
  });

  it("exp and nbf are allowed 30 seconds of clock skew, no more", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer);
    expect(await source.resolve(await issuer.mint({ sub: "a" }, { aud: audience, expiresIn: -20 }))).toBeDefined();
    expect(await source.resolve(await issuer.mint({ sub: "a" }, { aud: audience, notBefore: 20 }))).toBeDefined();
    expect((await refusal(source, await issuer.mint({ sub: "a" }, { aud: audience, expiresIn: -60 }))).reason).toBe(
      "expired",
    );
    expect((await refusal(source, await issuer.mint({ sub: "a" }, { aud: audience, notBefore: 60 }))).reason).toBe(
      "not yet valid",
    );
  });
});

describe("bearer JWTs: refused, each with its reason", () => {
  it("wrong audience, wrong issuer, no expiry, no user", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer);
    const cases: [string, Promise<string>][] = [
      ["wrong audience", issuer.mint({ sub: "a" }, { aud: "http://127.0.0.1:4568/mcp" })],
      ["wrong audience", issuer.mint({ sub: "a" })],
      ["wrong issuer", issuer.mint({ sub: "a" }, { aud: audience, iss: "https://evil.example" })],
      ["wrong issuer", issuer.mint({ sub: "a" }, { aud: audience, iss: `${issuer.url}/` })],
      ["no expiry", issuer.mint({ sub: "a" }, { aud: audience, expiresIn: null })],
      ["no usable 'sub' claim", issuer.mint({}, { aud: audience })],
      ["no usable 'sub' claim", issuer.mint({ sub: "line\nbreak" }, { aud: audience })],
    ];
    for (const [reason, token] of cases) expect((await refusal(source, await token)).reason).toBe(reason);
  });

  it("bad signature, unknown kid, alg none, HS256 keyed with the public key", async () => {
    const issuer = await startIssuer({ alg: "RS256" });
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 60_000 } });
    const claims = { sub: "mallory", role: "admin" };
    expect((await refusal(source, await issuer.forge(claims, { aud: audience }))).reason).toBe("bad signature");
    await issuer.addKey("RS256", { publish: false });
    expect((await refusal(source, await issuer.mint(claims, { aud: audience }))).reason).toBe("unknown signing key");
    expect((await refusal(source, issuer.unsigned(claims, { aud: audience }))).reason).toBe("algorithm not allowed");
    expect((await refusal(source, await issuer.hmacWithPublicKey(claims, { aud: audience }))).reason).toBe(
      "algorithm not allowed",
    );
    // Refusals that need no key fetched none: one JWKS fetch in all (the forged token's).
    expect(issuer.hits.get("/jwks")).toBe(1);
  });

  it("a credential that is not a JWT is not this source's (undefined); a JWT-shaped one with a broken payload is refused", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer);
    for (const other of ["wo_tok_3f9a8b", "a.b", "a.b.c.d.e", "not base64!.x.y", "YQ.YQ.YQ"])
      expect(await source.resolve(other), other).toBeUndefined();
    const header = Buffer.from(JSON.stringify({ alg: "ES256" })).toString("base64url");
    expect((await refusal(source, `${header}.bm90IGpzb24.c2ln`)).reason).toBe("malformed token");
    expect(issuer.hits.size).toBe(0);
  });
});

describe("bearer JWTs: signing keys over time", () => {
  it("key rotation: a token with a new kid refetches the JWKS and verifies, without a restart", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 0 } });
    expect(await source.resolve(await issuer.mint({ sub: "a" }, { aud: audience }))).toMatchObject({ user: "a" });
    const kid = await issuer.addKey("ES256");
    issuer.retire("key-1");
    expect(await source.resolve(await issuer.mint({ sub: "b" }, { aud: audience, kid }))).toMatchObject({ user: "b" });
    expect(issuer.hits.get("/jwks")).toBe(2);
    // The retired key is gone from the refetched set.
    expect((await refusal(source, await issuer.mint({ sub: "a" }, { aud: audience, kid: "key-1" }))).reason).toBe(
      "unknown signing key",
    );
  });

  it("a verified token is not verified again, until the keys change: a withdrawn key's tokens then stop working", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 0 } });
    const old = await issuer.mint({ sub: "a" }, { aud: audience });
    expect(await source.resolve(old)).toMatchObject({ user: "a" });
    issuer.retire("key-1");
    // Remembered: the same token is answered without a key lookup (no refetch either).
    expect(await source.resolve(old)).toMatchObject({ user: "a" });
    const kid = await issuer.addKey("ES256");
    expect(await source.resolve(await issuer.mint({ sub: "b" }, { aud: audience, kid }))).toMatchObject({ user: "b" });
    expect(issuer.hits.get("/jwks")).toBe(2);
    expect((await refusal(source, old)).reason).toBe("unknown signing key");
  });

  it("a remembered token is answered at once (no promise), and never past its exp: then it is refused as expired", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 0 } });
    // Only the clock is faked: the issuer is still fetched over HTTP.
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    const token = await issuer.mint({ sub: "a" }, { aud: audience, expiresIn: 5 });
    expect(await source.resolve(token)).toMatchObject({ user: "a" });
    const remembered = source.resolve(token);
    expect(remembered).not.toBeInstanceOf(Promise);
    expect(remembered).toMatchObject({ user: "a" });
    // Past exp and the 30 s of skew, well within the minute an entry may be kept.
    vi.setSystemTime(start + 40_000);
    expect((await refusal(source, token)).reason).toBe("expired");
    expect((await refusal(source, token)).reason).toBe("expired");
  });

  it("a burst of tokens with a new kid: one refetch, and every one of them verifies", async () => {
    const issuer = await startIssuer();
    // Past the cooldown when the burst comes; the burst's refetch starts a new one at once.
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 100 } });
    await source.resolve(await issuer.mint({ sub: "a" }, { aud: audience }));
    await new Promise((r) => setTimeout(r, 200));
    const kid = await issuer.addKey("ES256");
    const tokens = await Promise.all([1, 2, 3, 4, 5].map((i) => issuer.mint({ sub: `u${i}` }, { aud: audience, kid })));
    const principals = await Promise.all(tokens.map((t) => source.resolve(t)));
    expect(principals.map((p) => p?.user)).toEqual(["u1", "u2", "u3", "u4", "u5"]);
    expect(issuer.hits.get("/jwks")).toBe(2);
  });

  it("unknown kids refetch at most once per cooldown", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 60_000 } });
    await source.resolve(await issuer.mint({ sub: "a" }, { aud: audience }));
    await issuer.addKey("ES256", { publish: false });
    for (let i = 0; i < 5; i++)
      expect((await refusal(source, await issuer.mint({ sub: "x" }, { aud: audience }))).reason).toBe(
        "unknown signing key",
      );
    expect(issuer.hits.get("/jwks")).toBe(1);
  });

  it("a JWKS outage after a successful fetch keeps the held keys working, stale or not", async () => {
    const issuer = await startIssuer();
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 0, cooldownMs: 0 } });
    const token = await issuer.mint({ sub: "a" }, { aud: audience });
    expect(await source.resolve(token)).toMatchObject({ user: "a" });
    for (const mode of ["error", "refuse"] as const) {
      issuer.setOutage(mode);
      // maxAge 0: every call finds the keys stale and refreshes in the background, which fails.
      for (let i = 0; i < 3; i++) expect(await source.resolve(token)).toMatchObject({ user: "a" });
    }
    // A kid the server does not hold while the issuer is down: cannot be checked now.
    await issuer.addKey("ES256");
    const rotated = await issuer.mint({ sub: "b" }, { aud: audience });
    const error = await refusal(source, rotated);
    expect(error).toBeInstanceOf(CredentialUnverifiable);
    expect(error.reason).toBe("issuer unreachable");
    issuer.setOutage("none");
    expect(await source.resolve(rotated)).toMatchObject({ user: "b" });
  });

  it("an issuer unreachable at first use: CredentialUnverifiable (503) naming what failed, retried after the cooldown", async () => {
    const issuer = await startIssuer();
    issuer.setOutage("refuse");
    const source = sourceFor(issuer, {}, { keyTimings: { maxAgeMs: 600_000, cooldownMs: 300 } });
    const token = await issuer.mint({ sub: "a" }, { aud: audience });
    const first = (await refusal(source, token)) as CredentialUnverifiable;
    expect(first).toBeInstanceOf(CredentialUnverifiable);
    expect(first.reason).toBe("issuer unreachable");
    expect(first.detail).toContain(`${new URL(issuer.url).origin}/.well-known/oauth-authorization-server`);
    const tries = issuer.hits.get("/.well-known/oauth-authorization-server");
    // Within the cooldown: answered at once, without asking the issuer again.
    expect(await refusal(source, token)).toBeInstanceOf(CredentialUnverifiable);
    expect(issuer.hits.get("/.well-known/oauth-authorization-server")).toBe(tries);
    issuer.setOutage("none");
    await new Promise((r) => setTimeout(r, 400));
    expect(await source.resolve(token)).toMatchObject({ user: "a" });
  });

  it("a bounded wait: an issuer that never answers costs the fetch timeout, not forever", async () => {
    const { createServer } = await import("node:http");
    const silent = createServer(() => {});
    await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", ok));
    const port = (silent.address() as { port: number }).port;
    try {
      const source = createJwtSource(
        { issuer: `http://127.0.0.1:${port}`, userClaim: "sub", roleClaim: "role" },
        { publicOrigin: origin, fetchLimits: { timeoutMs: 300, maxBytes: 1 << 20 } },
      );
      const issuer = await startIssuer();
      const token = await issuer.mint({ sub: "a" }, { aud: audience, iss: `http://127.0.0.1:${port}` });
      const started = Date.now();
      const error = (await refusal(source, token)) as CredentialUnverifiable;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(error.detail).toContain("no answer within 300 ms");
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe("issuer discovery", () => {
  it("metadata URLs: RFC 8414 first, then OpenID Connect; an issuer's path inserted (and appended for OIDC)", () => {
    expect(metadataUrls("https://login.example.com")).toEqual([
      "https://login.example.com/.well-known/oauth-authorization-server",
      "https://login.example.com/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://login.example.com/")).toEqual(metadataUrls("https://login.example.com"));
    expect(metadataUrls("https://login.example.com/realms/shop/")).toEqual([
      "https://login.example.com/.well-known/oauth-authorization-server/realms/shop",
      "https://login.example.com/.well-known/openid-configuration/realms/shop",
      "https://login.example.com/realms/shop/.well-known/openid-configuration",
    ]);
  });

  for (const [kind, metadata] of [
    ["OpenID Connect only", ["openid-configuration"]],
    ["RFC 8414 only", ["oauth-authorization-server"]],
  ] as const) {
    it(`finds the keys of an issuer that serves ${kind}, with a path or without`, async () => {
      for (const path of [undefined, "/realms/shop"]) {
        const issuer = await startIssuer({ metadata: [...metadata], ...(path ? { path } : {}) });
        const token = await issuer.mint({ sub: "d" }, { aud: audience });
        expect(await sourceFor(issuer).resolve(token)).toMatchObject({ user: "d" });
      }
    });
  }

  it("an issuer's metadata that names another issuer is not used (mix-up)", async () => {
    const issuer = await startIssuer({ claimedIssuer: "https://other.example" });
    const error = (await refusal(
      sourceFor(issuer),
      await issuer.mint({ sub: "a" }, { aud: audience }),
    )) as CredentialUnverifiable;
    expect(error).toBeInstanceOf(CredentialUnverifiable);
    expect(error.detail).toContain('the document\'s issuer is "https://other.example"');
  });
});

describe("issuer fetches are bounded", () => {
  it("a JWKS over the size limit, or a redirect, is not used", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ keys: [], pad: "x".repeat(4096) }));
      } else {
        res.writeHead(302, { location: "http://evil.example/jwks" });
        res.end();
      }
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const issuer = await startIssuer();
      const token = await issuer.mint({ sub: "a" }, { aud: audience });
      const limits = { timeoutMs: 2000, maxBytes: 1024 };
      const big = sourceFor(issuer, { jwksUrl: `${base}/big` }, { fetchLimits: limits });
      expect(((await refusal(big, token)) as CredentialUnverifiable).detail).toContain("larger than 1024 bytes");
      const moved = sourceFor(issuer, { jwksUrl: `${base}/moved` }, { fetchLimits: limits });
      expect(((await refusal(moved, token)) as CredentialUnverifiable).detail).toContain(
        "answered 302, a redirect (not followed)",
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
