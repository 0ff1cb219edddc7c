// @readonly and @immutable (spec/language.md, "Read-only fields"): every artefact derived from
// the catalog — input schemas, MCP tool schemas and descriptions, OpenAPI bodies, types.d.ts,
// the create operation — leaves the field out where callers may not set it, and keeps it in rows.
import { describe, expect, it } from "vitest";
import { emitBuild } from "../../compiler/emit/index.js";
import { compileSources } from "../methods/compile-fixture.js";
import { sendJson, serveCatalog } from "../rest/support/harness.js";

const source = `type Member {
  email: Email @unique
  handle: Text @immutable
  score: Int = 0 @readonly
  badges: [Text] @readonly
  service rest "/api/members" expose list, get, create, update
}
`;

describe("read-only fields in the build", () => {
  const { catalog, diagnostics } = compileSources({ "member.wo": source });
  const files = Object.fromEntries(emitBuild(catalog!).map((f) => [f.path, f.text]));
  const json = (path: string) => JSON.parse(files[path]!);

  it("checks without diagnostics and flags the fields in the catalog", () => {
    expect(diagnostics).toEqual([]);
    const byName = Object.fromEntries(catalog!.types[0]!.fields.map((f) => [f.name, f]));
    expect(byName.handle).toMatchObject({ isImmutable: true, isRequiredOnCreate: true });
    expect(byName.score).toMatchObject({ isReadonly: true, isRequiredOnCreate: false });
    expect(byName.badges).toMatchObject({ isReadonly: true, isRequiredOnCreate: false });
  });

  it("input schemas: create takes @immutable but not @readonly; update takes neither; rows keep all", () => {
    const { inputs, rows } = json("schemas.json");
    expect(Object.keys(inputs.member_create.properties)).toEqual(["email", "handle"]);
    expect(inputs.member_create.required).toEqual(["email", "handle"]);
    expect(Object.keys(inputs.member_update.properties)).toEqual(["id", "email"]);
    expect(Object.keys(rows.member.properties)).toEqual(["id", "email", "handle", "score", "badges"]);
  });

  it("MCP tools say which fields are not accepted", () => {
    const tools = json("manifest.json").tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === "member_create")!.description).toContain(
      "Read-only (set by the app, not accepted): score, badges.",
    );
    expect(tools.find((t) => t.name === "member_update")!.description).toContain(
      "Not accepted: score (read-only), badges (read-only), handle (fixed at creation).",
    );
  });

  it("OpenAPI bodies and types.d.ts follow", () => {
    const schemas = json("openapi.json").components.schemas;
    expect(Object.keys(schemas.member_create_body.properties)).toEqual(["email", "handle"]);
    expect(Object.keys(schemas.member_update_body.properties)).toEqual(["email"]);
    expect(files["types.d.ts"]).toMatch(/interface MemberCreateInput \{[^}]*handle: string;[^}]*\}/);
    expect(files["types.d.ts"]).not.toMatch(/interface MemberCreateInput \{[^}]*score/);
    expect(files["types.d.ts"]).not.toMatch(/interface MemberUpdateInput \{[^}]*(handle|score)/);
  });

  it("create takes @readonly values from their defaults only", async () => {
    const served = await serveCatalog(catalog!);
    try {
      const created = await sendJson(served.url, "POST", "/api/members", { email: "a@example.com", handle: "ada" });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({ id: 1, email: "a@example.com", handle: "ada", score: 0, badges: [] });
    } finally {
      await served.dispose();
    }
  });
});
