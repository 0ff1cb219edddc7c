// `[auth]` in wo.toml: the issuer whose bearer JWTs identify callers (spec/security.md,
// "OAuth 2.1 bearer tokens (JWT)"). Defaults, every key, and each mistake at its line:col.

import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach } from "./app-fixture.js";

const app = appsDeletedAfterEach();
const schema = "type A {\n  x: Int\n}\n";

async function diagnosticsOf(toml: string) {
  const { diagnostics } = await checkApp(app({ "a.wo": schema, "wo.toml": toml }));
  return diagnostics.map((d) => [d.code, `${d.span.line}:${d.span.col}`, d.message]);
}

describe("wo.toml [auth]", () => {
  it("an issuer alone: the other keys take their defaults", async () => {
    const { catalog, diagnostics } = await checkApp(
      app({ "a.wo": schema, "wo.toml": '[auth]\nissuer = "https://login.example.com/realms/shop"\n' }),
    );
    expect(diagnostics).toEqual([]);
    expect(catalog!.config.auth).toEqual({
      issuer: "https://login.example.com/realms/shop",
      userClaim: "sub",
      roleClaim: "role",
    });
  });

  it("no [auth]: no JWT source", async () => {
    const { catalog } = await checkApp(app({ "a.wo": schema, "wo.toml": 'name = "x"\n' }));
    expect(catalog!.config.auth).toBeUndefined();
  });

  it("every key, kept as written (an audience string becomes a one-element list)", async () => {
    const { catalog, diagnostics } = await checkApp(
      app({
        "a.wo": schema,
        "wo.toml": [
          "[auth]",
          'issuer = "http://127.0.0.1:9000/"',
          'audience = "https://shop.example.com/mcp"',
          'jwks_url = "http://localhost:9000/keys"',
          'user_claim = "email"',
          'role_claim = "groups"',
          'scopes_supported = ["mcp:tools", "shop.read"]',
          "",
        ].join("\n"),
      }),
    );
    expect(diagnostics).toEqual([]);
    expect(catalog!.config.auth).toEqual({
      issuer: "http://127.0.0.1:9000/",
      audience: ["https://shop.example.com/mcp"],
      jwksUrl: "http://localhost:9000/keys",
      userClaim: "email",
      roleClaim: "groups",
      scopesSupported: ["mcp:tools", "shop.read"],
    });
    const list = await checkApp(
      app({
        "a.wo": schema,
        "wo.toml": '[auth]\nissuer = "https://a.example"\naudience = ["api://shop", "https://b/mcp"]\n',
      }),
    );
    expect(list.catalog!.config.auth!.audience).toEqual(["api://shop", "https://b/mcp"]);
  });

  it("plain http:// is accepted only on a loopback host, for the issuer and the JWKS", async () => {
    const url =
      'an https:// URL (http:// only on a loopback host) without query or fragment, e.g. "https://login.example.com"';
    expect(await diagnosticsOf('[auth]\nissuer = "http://login.example.com"\n')).toEqual([
      ["WO4005", "2:1", `wo.toml key 'auth.issuer' must be ${url}.`],
    ]);
    // Names that only look local are not loopback (spec/security.md, "Loopback names").
    expect(await diagnosticsOf('[auth]\nissuer = "http://127.0.0.1.nip.io"\n')).toHaveLength(1);
    expect(await diagnosticsOf('[auth]\nissuer = "http://localhost.evil.com"\n')).toHaveLength(1);
    expect(await diagnosticsOf('[auth]\nissuer = "http://[::1]:8080"\n')).toEqual([]);
    expect(
      await diagnosticsOf('[auth]\nissuer = "https://a.example"\n  jwks_url = "http://keys.example/jwks"\n'),
    ).toEqual([["WO4005", "3:3", `wo.toml key 'auth.jwks_url' must be ${url}.`]]);
  });

  it("refuses an issuer that is not a server URL: a query, a fragment, user info, another scheme, not a URL", async () => {
    for (const bad of [
      "https://a.example/?tenant=1",
      "https://a.example/#x",
      "https://user:pw@a.example",
      "ftp://a.example",
      "a.example",
      "",
    ]) {
      expect((await diagnosticsOf(`[auth]\nissuer = ${JSON.stringify(bad)}\n`))[0]?.slice(0, 2), bad).toEqual([
        "WO4005",
        "2:1",
      ]);
    }
  });

  it("[auth] without an issuer is an error at the table header", async () => {
    expect(await diagnosticsOf('name = "x"\n\n[auth]\nuser_claim = "email"\n')).toEqual([
      [
        "WO4005",
        "3:1",
        "wo.toml key 'auth.issuer' must be set when [auth] is present: an https:// URL (http:// only on a loopback host) without query or fragment, e.g. \"https://login.example.com\".",
      ],
    ]);
    const { catalog } = await checkApp(app({ "a.wo": schema, "wo.toml": '[auth]\nuser_claim = "email"\n' }));
    expect(catalog).toBeUndefined();
  });

  it("wrong-typed keys are errors at the key", async () => {
    expect(
      await diagnosticsOf(
        [
          "[auth]",
          'issuer = "https://a.example"',
          "audience = 3",
          'user_claim = ""',
          "role_claim = [1]",
          'scopes_supported = ["two words"]',
          "",
        ].join("\n"),
      ),
    ).toEqual([
      [
        "WO4005",
        "3:1",
        "wo.toml key 'auth.audience' must be an absolute URI or a list of them (the token's expected `aud`).",
      ],
      ["WO4005", "4:1", "wo.toml key 'auth.user_claim' must be a claim name (a non-empty string)."],
      ["WO4005", "5:1", "wo.toml key 'auth.role_claim' must be a claim name (a non-empty string)."],
      [
        "WO4005",
        "6:1",
        "wo.toml key 'auth.scopes_supported' must be an array of scope names without spaces, quotes or backslashes, e.g. [\"mcp:tools\"].",
      ],
    ]);
    expect(await diagnosticsOf('auth = "https://a.example"\n')).toEqual([
      ["WO4005", "1:1", "wo.toml key 'auth' must be a table."],
    ]);
  });

  it("an unknown key in [auth] is a warning with the nearest known key", async () => {
    expect(await diagnosticsOf('[auth]\nissuer = "https://a.example"\nrole_claims = "groups"\n')).toEqual([
      ["WO4101", "3:1", "wo.toml key 'auth.role_claims' is not used by wo and is ignored. Did you mean 'role_claim'?"],
    ]);
    expect(await diagnosticsOf('[auht]\nissuer = "https://a.example"\n')).toEqual([
      ["WO4101", "2:1", "wo.toml key 'auht.issuer' is not used by wo and is ignored. Did you mean 'auth'?"],
    ]);
  });
});
