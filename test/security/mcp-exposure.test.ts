// spec/security.md, "What MCP reveals": a type's rows are MCP resources (row template,
// resources/read, id completion) only when its MCP exposure includes `get`; reading a row of any
// other type answers exactly like a URI that names nothing. A type's tools are matched by exact
// name, never by prefix. Against a real `wo run` of an app written here, in both protocol eras:
//   Secret   REST list/get/create, `service mcp` create only (so a get operation exists)
//   Shred    REST create, `service mcp` delete only
//   Blog     REST get/create and no `service mcp` block: MCP gets get and create
//   BlogPost `service mcp` list/create: its tools share Blog's `blog_` prefix
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeApp } from "../support/wo-process.js";
import { env, initialize, modernHeaders, post, req, sessionHeaders } from "../mcp/support/raw.js";
import { startWoRunApp, type WoRun } from "../mcp/support/wo-run.js";

// Starting `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000 });

const vault = {
  "wo.toml": 'name = "vault"\nversion = "0.1.0"\n',
  "types.wo": `-- Written over MCP, read only through REST.
type Secret {
  text: Text

  service rest "/api/secrets" expose list, get, create
  service mcp "/mcp" expose create
}

-- Removed over MCP, never read there.
type Shred {
  note: Text

  service rest "/api/shreds" expose create
  service mcp "/mcp" expose delete
}

type Blog {
  title: Text

  service rest "/api/blogs" expose get, create
}

type BlogPost {
  headline: Text

  service mcp "/mcp" expose list, create
}
`,
};

let srv: WoRun;
let sid: string;
const ids = { secret: 0, shred: 0, blog: 0, blogPost: 0 };

async function restCreate(path: string, body: object): Promise<number> {
  const res = await fetch(`${srv.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

type Era = "2025-11-25" | "2026-07-28";
const eras: Era[] = ["2025-11-25", "2026-07-28"];

/** One request in `era`: with the session in 2025, with the envelope and its headers in 2026-07-28. */
function call(era: Era, method: string, params: Record<string, unknown> = {}) {
  if (era === "2025-11-25") return post(srv.url, req(method, params), sessionHeaders(sid));
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return post(srv.url, req(method, { ...params, _meta: env }), modernHeaders(method, name));
}

beforeAll(async () => {
  srv = await startWoRunApp(writeApp("vault", vault));
  ids.secret = await restCreate("/api/secrets", { text: "hunter2" });
  ids.shred = await restCreate("/api/shreds", { note: "burn after reading" });
  ids.blog = await restCreate("/api/blogs", { title: "open" });
  const created = await call("2026-07-28", "tools/call", {
    name: "blog_post_create",
    arguments: { headline: "listed, not read" },
  });
  ids.blogPost = created.json.result.structuredContent.id;
  sid = (await initialize(srv.url)).sid;
});
afterAll(async () => {
  await srv?.stop();
});

describe("rows are resources only where get is exposed over MCP", () => {
  it("the build's manifest has a row template for Blog only", () => {
    expect(srv.manifest.resourceTemplates).toEqual([{ uriTemplate: "wo://blog/{id}", name: "blog" }]);
    expect(srv.manifest.tools.map((t) => t.name)).toEqual([
      "blog_create",
      "blog_get",
      "blog_post_create",
      "blog_post_list",
      "secret_create",
      "shred_delete",
    ]);
  });

  for (const era of eras) {
    it(`${era}: resources/templates/list names only wo://blog/{id}; resources/list keeps every schema`, async () => {
      const t = await call(era, "resources/templates/list");
      expect(t.json.result.resourceTemplates.map((x: { uriTemplate: string }) => x.uriTemplate)).toEqual([
        "wo://blog/{id}",
      ]);
      const r = await call(era, "resources/list");
      expect(r.json.result.resources.map((x: { uri: string }) => x.uri).sort()).toEqual([
        "wo://schema/blog",
        "wo://schema/blog_post",
        "wo://schema/secret",
        "wo://schema/shred",
      ]);
    });

    it(`${era}: a row of a type without get reads exactly like a URI that names nothing`, async () => {
      const unknownUri = "wo://nothing/1";
      const unknown = await call(era, "resources/read", { uri: unknownUri });
      expect(unknown.json.error.data).toEqual({ uri: unknownUri });
      for (const uri of [
        `wo://secret/${ids.secret}`,
        `wo://shred/${ids.shred}`,
        `wo://blog_post/${ids.blogPost}`,
        "wo://secret/999999",
      ]) {
        const r = await call(era, "resources/read", { uri });
        expect(r.status).toBe(unknown.status);
        expect(r.json.error).toEqual({
          ...unknown.json.error,
          message: unknown.json.error.message.replace(unknownUri, uri),
          data: { uri },
        });
        expect(r.text).not.toContain("hunter2");
      }
      // The row REST serves is still there, and Blog's rows read as before.
      expect(((await (await fetch(`${srv.base}/api/secrets/${ids.secret}`)).json()) as { text: string }).text).toBe(
        "hunter2",
      );
      const blog = await call(era, "resources/read", { uri: `wo://blog/${ids.blog}` });
      expect(blog.json.result.contents[0].text).toBe(await (await fetch(`${srv.base}/api/blogs/${ids.blog}`)).text());
    });

    it(`${era}: completion/complete suggests ids only for Blog's template`, async () => {
      const complete = (uri: string) =>
        call(era, "completion/complete", { ref: { type: "ref/resource", uri }, argument: { name: "id", value: "" } });
      const unknown = await complete("wo://nothing/{id}");
      expect(unknown.json.result.completion).toEqual({ values: [], total: 0, hasMore: false });
      for (const uri of ["wo://secret/{id}", "wo://shred/{id}", "wo://blog_post/{id}"]) {
        const r = await complete(uri);
        expect(r.json.result).toEqual(unknown.json.result);
      }
      expect((await complete("wo://blog/{id}")).json.result.completion.values).toEqual([String(ids.blog)]);
    });

    it(`${era}: schema documents and instructions name a type's own tools, and its row template only with get`, async () => {
      const schema = async (t: string) =>
        JSON.parse((await call(era, "resources/read", { uri: `wo://schema/${t}` })).json.result.contents[0].text);
      const blog = await schema("blog");
      expect([blog.uriTemplate, blog.tools]).toEqual(["wo://blog/{id}", ["blog_create", "blog_get"]]);
      const secret = await schema("secret");
      expect("uriTemplate" in secret).toBe(false);
      expect(secret.tools).toEqual(["secret_create"]);
      expect((await schema("blog_post")).tools).toEqual(["blog_post_create", "blog_post_list"]);
    });
  }

  it("the instructions list each type's own tools and no template for a type without get", async () => {
    const { json } = await initialize(srv.url);
    const instructions: string = json.result.instructions;
    expect(instructions).toContain("- Blog: tools blog_create, blog_get; rows are resources wo://blog/{id},");
    expect(instructions).toContain(
      "- BlogPost: tools blog_post_create, blog_post_list; fields in wo://schema/blog_post.",
    );
    expect(instructions).not.toMatch(/wo:\/\/(secret|shred|blog_post)\/\{id\}/);
  });
});
