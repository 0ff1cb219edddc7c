// The emitted build files from a hand-built catalog: manifest shape and order, tool titles,
// descriptions and annotations, routes, OpenAPI validity, types.d.ts type-checking, and the
// validators module loaded from a folder outside the repository.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import ts from "typescript";
import { ts as tsMorphTs } from "ts-morph";
import SwaggerParser from "@apidevtools/swagger-parser";
import { emitBuild } from "../../compiler/emit/index.js";
import { emitOpenApi } from "../../compiler/emit/openapi.js";
import { emitSchemas } from "../../compiler/emit/json-schema.js";
import { compileTypeScript } from "../../compiler/build.js";
import type { Manifest, ValidatorsModule } from "../../model/build-contract.js";
import { blogCatalog } from "./fixtures.js";
import { validObject, validRow } from "./examples.js";

const catalog = blogCatalog();
const files = emitBuild(catalog);
const text = (path: string) => files.find((f) => f.path === path)!.text;
const manifest = JSON.parse(text("manifest.json")) as Manifest;
const temp = mkdtempSync(join(tmpdir(), "wo-emit-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("manifest.json", () => {
  it("has exactly tools, resourceTemplates and routes, each sorted", () => {
    expect(Object.keys(manifest)).toEqual(["tools", "resourceTemplates", "routes"]);
    const names = manifest.tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual([
      "blog_post_create",
      "blog_post_get",
      "blog_post_list",
      "blog_post_publish",
      "blog_post_retitle",
      "blog_post_summary",
      "blog_post_update",
      "comment_create",
      "comment_delete",
      "comment_get",
      "comment_list",
    ]);
    for (const t of manifest.tools)
      expect(Object.keys(t)).toEqual(["name", "title", "description", "inputSchema", "outputSchema", "annotations"]);
  });
  it("service mcp alone decides MCP exposure; a REST-only type has no tools", () => {
    expect(manifest.tools.some((t) => t.name.startsWith("author_"))).toBe(false);
    expect(manifest.tools.some((t) => t.name === "blog_post_delete")).toBe(false); // REST-only op
    expect(manifest.tools.some((t) => t.name === "blog_post_tag_counts")).toBe(false); // not exposed
  });
  it("titles: CRUD reads as an action, a method as the type and the method", () => {
    const title = (n: string) => manifest.tools.find((t) => t.name === n)!.title;
    expect(title("blog_post_list")).toBe("List blog posts");
    expect(title("comment_get")).toBe("Get comment");
    expect(title("blog_post_retitle")).toBe("Blog post: retitle");
    expect(title("blog_post_summary")).toBe("Blog post: summary");
    expect(title("blog_post_create")).toBe("Create blog post");
  });
  it("inputs show create defaults and parameter docs; get and list name the related tools", () => {
    const tool = (n: string) => manifest.tools.find((t) => t.name === n)!;
    const create = (tool("blog_post_create").inputSchema as any).properties;
    const status = catalog.types.find((t) => t.name === "BlogPost")!.fields.find((f) => f.name === "status")!;
    expect(status.default).toEqual({ kind: "literal", value: "Draft" });
    expect(create.status.default).toBe("Draft");
    expect((tool("blog_post_update").inputSchema as any).properties.status.default).toBeUndefined();

    const documented = structuredClone(catalog);
    documented.types.find((t) => t.name === "BlogPost")!.methods.find((m) => m.name === "retitle")!.params[0]!.doc =
      "The new title, as readers see it.";
    const schemas = emitSchemas(documented);
    expect((schemas.inputs.blog_post_retitle as any).properties.title.description).toBe(
      "The new title, as readers see it.",
    );

    expect(tool("blog_post_get").description).toMatch(/Related: author is the id of an author\b/);
    expect(tool("comment_get").description).toContain("post is the id of a blog post (blog_post_get reads it)");
    expect(tool("blog_post_get").description).toContain(
      "comment_list with { post: <id> } lists the comments whose post it is",
    );
  });
  it("descriptions carry the docs and the required fields", () => {
    const d = (n: string) => manifest.tools.find((t) => t.name === n)!.description;
    expect(d("blog_post_create")).toMatch(/^A blog post\. Creates a blog post/);
    expect(d("blog_post_create")).toContain(
      "Required: title (Text), slug (Slug), body (Markdown), author (id of Author)",
    );
    expect(d("blog_post_create")).not.toMatch(/word_count|reviewers/);
    expect(d("blog_post_publish")).toMatch(/^Publish the post now\. Calls publish on the blog post with the given id/);
    expect(d("blog_post_list")).toContain("limit");
    expect(d("comment_delete")).toContain("Deletes a comment by id");
  });
  it("annotations follow spec/schemas.md", () => {
    const a = (n: string) => manifest.tools.find((t) => t.name === n)!.annotations;
    expect(a("blog_post_list")).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(a("comment_delete")).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(a("comment_create")).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(a("blog_post_update")).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(a("blog_post_summary")).toMatchObject({ readOnlyHint: true }); // no txn: cannot write
    expect(a("blog_post_publish")).toMatchObject({ readOnlyHint: false, destructiveHint: true }); // update self
    expect(a("blog_post_retitle")).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const t of manifest.tools) expect(t.annotations.openWorldHint).toBe(false);
  });
  it("output schemas are objects; method results are wrapped in { result }", () => {
    for (const t of manifest.tools) expect((t.outputSchema as { type: string }).type).toBe("object");
    const publish = manifest.tools.find((t) => t.name === "blog_post_publish")!.outputSchema as { required: string[] };
    expect(publish.required).toEqual(["result"]);
    const list = manifest.tools.find((t) => t.name === "comment_list")!.outputSchema as { required: string[] };
    expect(list.required).toEqual(["items"]);
  });
  it("resource templates per MCP-exposed type", () => {
    expect(manifest.resourceTemplates).toEqual([
      { uriTemplate: "wo://blog_post/{id}", name: "blog_post" },
      { uriTemplate: "wo://comment/{id}", name: "comment" },
    ]);
  });
  it("routes per service rest block, sorted by path then method", () => {
    expect(manifest.routes).toEqual([
      { method: "GET", path: "/api/authors", op: "author_list" },
      { method: "POST", path: "/api/authors", op: "author_create" },
      { method: "DELETE", path: "/api/authors/:id", op: "author_delete" },
      { method: "GET", path: "/api/authors/:id", op: "author_get" },
      { method: "PATCH", path: "/api/authors/:id", op: "author_update" },
      { method: "GET", path: "/api/authors/:id/posts", op: "author_posts" },
      { method: "GET", path: "/api/comments", op: "comment_list" },
      { method: "POST", path: "/api/comments", op: "comment_create" },
      { method: "DELETE", path: "/api/comments/:id", op: "comment_delete" },
      { method: "GET", path: "/api/comments/:id", op: "comment_get" },
      { method: "GET", path: "/api/comments/live", op: "comment_subscribe" },
      { method: "GET", path: "/api/posts", op: "blog_post_list" },
      { method: "POST", path: "/api/posts", op: "blog_post_create" },
      { method: "DELETE", path: "/api/posts/:id", op: "blog_post_delete" },
      { method: "GET", path: "/api/posts/:id", op: "blog_post_get" },
      { method: "PATCH", path: "/api/posts/:id", op: "blog_post_update" },
      { method: "POST", path: "/api/posts/:id/publish", op: "blog_post_publish" },
      { method: "GET", path: "/api/posts/live", op: "blog_post_subscribe" },
      { method: "GET", path: "/api/posts/me", op: "blog_post_me" },
    ]);
  });
});

describe("openapi.json", () => {
  it("passes a standard OpenAPI 3.1 validator", async () => {
    const doc = JSON.parse(text("openapi.json"));
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/posts/{id}/publish");
    const list = doc.paths["/api/posts"].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    const equality = [
      "id",
      "title",
      "slug",
      "body",
      "status",
      "author",
      "editor",
      "rating",
      "price",
      "sku",
      "views",
      "featured",
      "published_at",
      "created_at",
    ];
    expect(names.slice(0, equality.length)).toEqual(equality);
    expect(names.slice(-4)).toEqual(["sort", "count", "limit", "cursor"]);
    // Operators as `field[op]`, only those the field's type takes.
    expect(names).toEqual(
      expect.arrayContaining(["views[gte]", "views[in]", "title[contains]", "status[in]", "published_at[lt]"]),
    );
    expect(names).not.toContain("status[lt]");
    expect(names).not.toContain("views[contains]");
    expect(list.summary).toBe("List blog posts");
    expect(list.description).toMatch(/field\[op\]=value/);
    expect(Object.keys(doc.paths["/api/posts"].post.responses)).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "422",
      "503",
    ]);
    expect(Object.keys(doc.paths["/api/posts/me"].get.responses).sort()).toEqual(["200", "401", "403", "404", "503"]);
    expect(doc.paths["/api/posts/me"].get.operationId).toBe("blog_post_me");
    expect(doc.paths["/api/posts/{id}"].patch.requestBody.content["application/json"].schema.$ref).toBe(
      "#/components/schemas/blog_post_update_body",
    );
    expect(doc.components.schemas.blog_post_update_body.properties.id).toBeUndefined();
  });
  it("declares the bearer scheme only when wo.toml sets token_env; 401 either way (--token-file gives a token at run time)", async () => {
    const open = JSON.parse(text("openapi.json"));
    expect(open.security).toBeUndefined();
    expect(open.components.securitySchemes).toBeUndefined();
    expect(open.paths["/api/posts"].get.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });

    const guarded = emitOpenApi({ ...catalog, config: { ...catalog.config, tokenEnv: "BLOG_TOKEN" } }) as any;
    await expect(SwaggerParser.validate(structuredClone(guarded))).resolves.toBeTruthy();
    expect(guarded.components.securitySchemes).toEqual({
      bearer: { type: "http", scheme: "bearer", description: expect.stringContaining("BLOG_TOKEN") },
    });
    expect(guarded.security).toEqual([{ bearer: [] }]);
    expect(guarded.paths["/api/posts"].get.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
  });
  it("fails the validator when broken (the check can fail)", async () => {
    const doc = JSON.parse(text("openapi.json"));
    doc.paths["/api/posts"].get.responses = "nope";
    await expect(SwaggerParser.validate(doc)).rejects.toThrow();
  });
});

describe("types.d.ts", () => {
  it("type-checks with tsc, and a client using the row and input types compiles", () => {
    const dir = mkdtempSync(join(temp, "types-"));
    writeFileSync(join(dir, "types.d.ts"), text("types.d.ts"));
    const post = catalog.types.find((t) => t.name === "BlogPost")!;
    writeFileSync(
      join(dir, "client.ts"),
      [
        `import type { BlogPost, BlogPostCreateInput, BlogPostListOutput, BlogPostPublishOutput } from "./types.js";`,
        `export const input: BlogPostCreateInput = ${JSON.stringify(validObject(catalog, post.fields))};`,
        `export const row: BlogPost = ${JSON.stringify(validRow(catalog, post))};`,
        `export const page: BlogPostListOutput = { items: [row] };`,
        `export const published: BlogPostPublishOutput = null;`,
        `// @ts-expect-error status is a union of variants`,
        `export const bad: BlogPostCreateInput = { ...input, status: "Nope" };`,
      ].join("\n"),
    );
    const program = ts.createProgram([join(dir, "types.d.ts"), join(dir, "client.ts")], {
      strict: true,
      noEmit: true,
      lib: ["lib.es5.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
  });
});

describe("validators module", () => {
  it("loads from a folder outside the repository and validates like the schemas", async () => {
    const js = files.find((f) => f.path === "validators.js")!;
    expect(compileTypeScript(files, tsMorphTs).map((f) => f.path)).toEqual(["operations.js"]);
    expect(js.text).not.toMatch(/^\s*import\s/m);
    const dir = mkdtempSync(join(temp, "build-"));
    writeFileSync(join(dir, "validators.js"), js.text);
    const mod = (await import(pathToFileURL(join(dir, "validators.js")).href)) as ValidatorsModule;
    // The runtime's require: resolves ajv's helpers from wo's own installation.
    const validators = mod.createValidators(createRequire(join(process.cwd(), "runtime", "build.ts")));
    expect(Object.keys(validators).sort()).toEqual(
      [
        ...Object.keys(JSON.parse(text("schemas.json")).inputs),
        "blog_post live filters",
        "comment live filters",
      ].sort(),
    );
    const post = catalog.types.find((t) => t.name === "BlogPost")!;
    const create = validators.blog_post_create!;
    expect(create(validObject(catalog, post.fields))).toBe(true);
    expect(create({ ...validObject(catalog, post.fields), published_at: "yesterday" })).toBe(false);
    expect(create.errors?.[0]).toMatchObject({ instancePath: "/published_at", keyword: "format" });
    expect(create({})).toBe(false);
    expect(create.errors!.length).toBeGreaterThan(1); // allErrors: every missing field at once
  });
});

describe("determinism", () => {
  it("emitting twice is byte-identical, and every TypeScript file starts with the header", () => {
    expect(emitBuild(blogCatalog())).toEqual(files);
    for (const f of files.filter((f) => f.path.endsWith(".ts") && f.path !== "operations.ts")) {
      expect(f.text.split("\n")[0]).toBe(
        "// Generated by wo 0.1.0 from app/blog.wo. Do not edit: change the .wo files and run `wo build`.",
      );
    }
  });
});
