// Resolving a bearer credential through every source, as the edge does (runtime/identity/
// identity.ts): a real SQLite store's named tokens, then the JWT verifier of a real issuer on
// 127.0.0.1 (test/support/oauth-issuer.ts). A JWT the verifier remembers is answered at once —
// without a promise, so the edge dispatches its request in the same turn — while a named token
// is looked up in the store every time, so its revocation counts on the very next request.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../model/store.js";
import { CredentialRefused } from "../../runtime/identity/contract.js";
import { createIdentity, type Identity } from "../../runtime/identity/identity.js";
import { createJwtSource } from "../../runtime/identity/jwt.js";
import { namedTokenHash, newNamedToken, startNamedTokenSource } from "../../runtime/identity/named-tokens.js";
import { loadBuild } from "../../runtime/load-build.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { blogCatalog } from "../fixtures/catalog.js";
import { tempDir, writeBuild } from "../rest/support/harness.js";
import { OAuthIssuer } from "../support/oauth-issuer.js";

const origin = "http://127.0.0.1:4567";
const audience = `${origin}/mcp`;

describe("identity: named tokens, then JWTs", () => {
  let dir: string;
  let store: Store;
  let issuer: OAuthIssuer;
  let named: Awaited<ReturnType<typeof startNamedTokenSource>>;
  let identity: Identity;
  beforeAll(async () => {
    dir = tempDir();
    writeBuild(blogCatalog(), join(dir, "build"));
    const build = await loadBuild(join(dir, "build"));
    store = (await openSqliteStore({ file: join(dir, "data", "app.sqlite"), catalog: build.catalog })).store;
    issuer = await OAuthIssuer.start();
    named = await startNamedTokenSource(store.namedTokens!, () => {});
    const jwt = createJwtSource(
      { issuer: issuer.url, userClaim: "sub", roleClaim: "role" },
      { publicOrigin: origin, keyTimings: { maxAgeMs: 600_000, cooldownMs: 0 } },
    );
    identity = createIdentity({ namedTokens: named, sources: [jwt], log: () => {} });
  });
  afterAll(async () => {
    named?.close();
    await issuer?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a JWT: verified once (a promise), then answered at once with the same principal", async () => {
    const bearer = `Bearer ${await issuer.mint({ sub: "7", role: "editor", client_id: "agent" }, { aud: audience })}`;
    const first = identity.resolve(bearer);
    expect(first).toBeInstanceOf(Promise);
    const principal = await first;
    expect(principal).toEqual({ name: "agent", user: "7", role: "editor", via: "jwt" });
    const again = identity.resolve(bearer);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toBe(principal);
  });

  it("a remembered JWT stops working once the keys change and its key is gone (rotation)", async () => {
    const old = `Bearer ${await issuer.mint({ sub: "8" }, { aud: audience, kid: "key-1" })}`;
    expect(await identity.resolve(old)).toMatchObject({ user: "8" });
    expect(identity.resolve(old)).toMatchObject({ user: "8" });
    const kid = await issuer.addKey("ES256");
    issuer.retire("key-1");
    // A token with the new kid makes the verifier fetch the keys again.
    expect(await identity.resolve(`Bearer ${await issuer.mint({ sub: "9" }, { aud: audience, kid })}`)).toMatchObject({
      user: "9",
    });
    const refused = await identity.resolve(old);
    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as CredentialRefused).reason).toBe("unknown signing key");
  });

  it("a named token is looked up every time: revoked, it is refused on the next request", async () => {
    const token = newNamedToken();
    expect(await store.namedTokens!.add({ name: "ci", role: "agent", user: null, hash: namedTokenHash(token) })).toBe(
      true,
    );
    for (let i = 0; i < 3; i++)
      expect(await identity.resolve(`Bearer ${token}`)).toEqual({
        name: "ci",
        user: null,
        role: "agent",
        via: "token",
      });
    expect(await store.namedTokens!.revoke("ci")).toBe(true);
    const refused = await identity.resolve(`Bearer ${token}`);
    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as CredentialRefused).reason).toMatch(/unknown or was revoked/);
  });
});
