// A type's operations are the operations-table entries that name it (spec/schemas.md, "The
// build folder"), never those whose tool name merely starts with its snake name. `Blog` sits
// beside `BlogPost` and has a method `post_count`, whose tool `blog_post_count` looks like one of
// BlogPost's: against a real `wo run`, MCP (schema resources, instructions, method results),
// REST (GET /) and the explorer give each type exactly its own.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeApp } from "../support/wo-process.js";
import { initialize, modernHeaders, post, req, env } from "../mcp/support/raw.js";
import { startWoRunApp, type WoRun } from "../mcp/support/wo-run.js";

// Starting `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000 });

const files = {
  "wo.toml": 'name = "blogs"\nversion = "0.1.0"\n',
  "blog.wo": `class Blog {
  title: Text

  fn post_count() -> Int {
    return count(select BlogPost { blog == self.id })
  }

  service rest "/api/blogs" expose list, get, create, post_count
  service mcp "/mcp" expose list, get, create, post_count
}

type BlogPost {
  blog: ref Blog
  headline: Text

  service rest "/api/blog-posts" expose list, get, create
  service mcp "/mcp" expose list, get, create
}
`,
};

let srv: WoRun;

const blogTools = ["blog_create", "blog_get", "blog_list", "blog_post_count"];
const postTools = ["blog_post_create", "blog_post_get", "blog_post_list"];

async function json(path: string, init?: RequestInit): Promise<any> {
  const res = await fetch(`${srv.base}${path}`, init);
  return res.json();
}

function call(method: string, params: Record<string, unknown>) {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return post(srv.url, req(method, { ...params, _meta: env }), modernHeaders(method, name));
}

beforeAll(async () => {
  srv = await startWoRunApp(writeApp("blogs", files));
  const create = (path: string, body: object) =>
    json(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await create("/api/blogs", { title: "one" });
  await create("/api/blog-posts", { blog: 1, headline: "first" });
  await create("/api/blog-posts", { blog: 1, headline: "second" });
});
afterAll(async () => {
  await srv?.stop();
});

describe("Blog beside BlogPost", () => {
  it("MCP: each schema resource and instructions line lists the type's own tools", async () => {
    const schema = async (t: string) =>
      JSON.parse((await call("resources/read", { uri: `wo://schema/${t}` })).json.result.contents[0].text);
    expect((await schema("blog")).tools).toEqual(blogTools);
    expect((await schema("blog_post")).tools).toEqual(postTools);
    const instructions: string = (await initialize(srv.url)).json.result.instructions;
    expect(instructions).toContain(`- Blog: tools ${blogTools.join(", ")};`);
    expect(instructions).toContain(`- BlogPost: tools ${postTools.join(", ")};`);
  });

  it("MCP: blog_post_count is Blog's method, answered as a method result", async () => {
    const r = await call("tools/call", { name: "blog_post_count", arguments: { id: 1 } });
    expect(r.json.result.structuredContent).toEqual({ result: 2 });
    const list = await call("tools/call", { name: "blog_post_list", arguments: {} });
    expect(list.json.result.structuredContent.items.map((p: { headline: string }) => p.headline)).toEqual([
      "first",
      "second",
    ]);
  });

  it("REST: GET / lists Blog's method route under Blog's path, and it runs", async () => {
    const info = await json("/", { headers: { accept: "application/json" } });
    const routesOf = (op: string) =>
      info.endpoints
        .filter((e: { op: string }) => e.op === op)
        .map((e: { method: string; path: string }) => `${e.method} ${e.path}`);
    expect(routesOf("blog_post_count")).toEqual(["POST /api/blogs/:id/post_count"]);
    expect(routesOf("blog_post_list")).toEqual(["GET /api/blog-posts"]);
    expect(
      await json("/api/blogs/1/post_count", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
    ).toBe(2);
  });

  it("explorer: endpoints carry their own operation's input schema", async () => {
    const model = await json("/explorer/app.json");
    const endpoint = (op: string) => model.endpoints.find((e: { op: string }) => e.op === op);
    expect(Object.keys(endpoint("blog_post_count").inputSchema.properties)).toEqual(["id"]);
    expect(Object.keys(endpoint("blog_post_create").inputSchema.properties)).toEqual(["blog", "headline"]);
    expect(model.mcp.tools.map((t: { name: string }) => t.name)).toEqual([...blogTools, ...postTools].sort());
  });
});
