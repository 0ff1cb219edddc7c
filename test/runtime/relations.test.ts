// Relations end to end (spec/rest.md "Relations", spec/mcp.md): `wo run samples/blog` on a real
// socket, tags attached to posts through the `Tagging` link type over REST and over the
// official MCP client — link, list both ways, page, unlink, refs to missing rows, and deleting
// an endpoint row that still has links.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { dumpDatabase, send, sendJson, serveApp, type Served } from "../rest/support/harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let app: Served;
let base: string;
let author: number;
let slugs = 0;

beforeAll(async () => {
  app = await serveApp("samples/blog");
  base = app.url;
  const a = await sendJson(base, "POST", "/api/authors", { name: "Ada", email: "ada@example.com" });
  expect(a.status, a.text).toBe(201);
  author = a.json.id;
});
afterAll(async () => {
  await app?.dispose();
});

async function post(): Promise<number> {
  const r = await sendJson(base, "POST", "/api/posts", { title: "T", slug: `post-${++slugs}`, body: "b", author });
  expect(r.status, r.text).toBe(201);
  return r.json.id;
}

async function tag(label: string): Promise<number> {
  const r = await sendJson(base, "POST", "/api/tags", { label });
  expect(r.status, r.text).toBe(201);
  return r.json.id;
}

const link = (p: number, t: number, body: unknown = {}) => sendJson(base, "PUT", `/api/posts/${p}/tags/${t}`, body);
const ids = (r: { json: { items: { id: number }[] } }) => r.json.items.map((x) => x.id);

function taggingRows(): { post: number; tag: number }[] {
  const db = new Database(app.dbFile, { readonly: true });
  try {
    return db.prepare(`SELECT "post", "tag" FROM "tagging" ORDER BY "id"`).all() as { post: number; tag: number }[];
  } finally {
    db.close();
  }
}

describe("REST", () => {
  it("links a post to tags, lists them both ways, and a second PUT is the same link", async () => {
    const p = await post();
    const [news, tech] = [await tag("news"), await tag("tech")];
    const first = await link(p, tech);
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ post: p, tag: tech });
    expect(typeof first.json.added_at).toBe("string");
    expect((await link(p, news, { added_at: "2026-01-02T03:04:05.000Z" })).json).toMatchObject({
      tag: news,
      added_at: "2026-01-02T03:04:05.000Z",
    });

    const again = await link(p, tech);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);

    // In the order the links were made, not by tag id.
    const tags = await send(base, "GET", `/api/posts/${p}/tags`);
    expect(tags.status).toBe(200);
    expect(tags.json.items).toEqual([
      { id: tech, label: "tech", colour: "Grey" },
      { id: news, label: "news", colour: "Grey" },
    ]);
    expect(ids(await send(base, "GET", `/api/tags/${tech}/posts`))).toEqual([p]);
    expect(taggingRows().filter((r) => r.post === p)).toEqual([
      { post: p, tag: tech },
      { post: p, tag: news },
    ]);
  });

  it("pages a post's tags with limit and cursor", async () => {
    const p = await post();
    const made = [await tag("a1"), await tag("a2"), await tag("a3")];
    for (const t of made) expect((await link(p, t)).status).toBe(201);
    const one = await send(base, "GET", `/api/posts/${p}/tags?limit=2`);
    expect(ids(one)).toEqual(made.slice(0, 2));
    const two = await send(base, "GET", `/api/posts/${p}/tags?limit=2&cursor=${one.json.nextCursor}`);
    expect(ids(two)).toEqual([made[2]]);
    expect(two.json.nextCursor).toBeUndefined();
    const bad = await send(base, "GET", `/api/posts/${p}/tags?label=x`);
    expect(bad.status).toBe(400);
  });

  it("refuses links to rows that do not exist, and bad input, changing nothing", async () => {
    const p = await post();
    const t = await tag("real");
    const before = dumpDatabase(app.dbFile);
    const missingTag = await link(p, 9999);
    expect(missingTag.status).toBe(422);
    expect(missingTag.json.errors).toEqual([{ path: "/tag", message: "no Tag with id 9999 exists" }]);
    const missingPost = await link(9999, t);
    expect(missingPost.status).toBe(404);
    expect(missingPost.json.detail).toBe("No Post with id 9999.");
    expect((await send(base, "GET", "/api/posts/9999/tags")).status).toBe(404);
    expect((await link(p, "abc" as unknown as number)).status).toBe(400);
    const unknown = await link(p, t, { colour: "Red" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([{ path: "/colour", message: "is not an accepted field; remove it" }]);
    expect((await send(base, "PUT", `/api/posts/${p}/tags/${t}`)).status).toBe(415);
    expect((await sendJson(base, "DELETE", `/api/posts/${p}/tags/9999`, undefined)).status).toBe(422);
    expect(dumpDatabase(app.dbFile)).toBe(before);
  });

  it("unlinks, idempotently; both rows stay", async () => {
    const p = await post();
    const [t1, t2] = [await tag("u1"), await tag("u2")];
    await link(p, t1);
    await link(p, t2);
    expect((await send(base, "DELETE", `/api/posts/${p}/tags/${t1}`)).status).toBe(204);
    expect((await send(base, "DELETE", `/api/posts/${p}/tags/${t1}`)).status).toBe(204);
    expect(ids(await send(base, "GET", `/api/posts/${p}/tags`))).toEqual([t2]);
    expect((await send(base, "GET", `/api/tags/${t1}`)).status).toBe(200);
  });

  it("deleting a tag or a post deletes its links in the same call", async () => {
    const [p1, p2] = [await post(), await post()];
    const [t1, t2] = [await tag("d1"), await tag("d2")];
    for (const [p, t] of [
      [p1, t1],
      [p1, t2],
      [p2, t1],
    ] as const)
      expect((await link(p, t)).status).toBe(201);

    expect((await send(base, "DELETE", `/api/tags/${t1}`)).status).toBe(204);
    expect(ids(await send(base, "GET", `/api/posts/${p1}/tags`))).toEqual([t2]);
    expect(ids(await send(base, "GET", `/api/posts/${p2}/tags`))).toEqual([]);
    expect(taggingRows().some((r) => r.tag === t1)).toBe(false);

    expect((await send(base, "DELETE", `/api/posts/${p1}`)).status).toBe(204);
    expect(ids(await send(base, "GET", `/api/tags/${t2}/posts`))).toEqual([]);
    expect(taggingRows().some((r) => r.post === p1)).toBe(false);
  });

  it("a backlink is readable: a post's comments, an author's posts", async () => {
    const p = await post();
    const c = await sendJson(base, "POST", "/api/comments", { post: p, author_name: "Bo", body: "hi" });
    expect(c.status, c.text).toBe(201);
    expect(ids(await send(base, "GET", `/api/posts/${p}/comments`))).toEqual([c.json.id]);
    expect(ids(await send(base, "GET", `/api/authors/${author}/posts`))).toContain(p);
    // Read-only: no route writes a backlink.
    expect((await sendJson(base, "PUT", `/api/posts/${p}/comments/${c.json.id}`, {})).status).toBe(404);
  });
});

describe("MCP (official SDK client)", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "wo-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists the relation tools next to the CRUD tools", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "post_tags",
        "post_tags_add",
        "post_tags_remove",
        "post_comments",
        "tag_posts",
        "author_posts",
      ]),
    );
    // Tag exposes no update: its side of the link is read-only.
    expect(names).not.toContain("tag_posts_add");
  });

  it("adds, lists and removes a post's tags", async () => {
    const p = await post();
    const t = await tag("mcp");
    const added = await client.callTool({ name: "post_tags_add", arguments: { id: p, tag: t } });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ created: true, link: { post: p, tag: t } });
    const again = await client.callTool({ name: "post_tags_add", arguments: { id: p, tag: t } });
    expect(again.structuredContent).toMatchObject({
      created: false,
      link: (added.structuredContent as { link: object }).link,
    });

    const listed = await client.callTool({ name: "post_tags", arguments: { id: p } });
    expect(listed.structuredContent).toEqual({ items: [{ id: t, label: "mcp", colour: "Grey" }] });
    // The same page as REST.
    expect(listed.structuredContent).toEqual((await send(base, "GET", `/api/posts/${p}/tags`)).json);

    expect(
      (await client.callTool({ name: "post_tags_remove", arguments: { id: p, tag: t } })).structuredContent,
    ).toEqual({ removed: true });
    expect(
      (await client.callTool({ name: "post_tags_remove", arguments: { id: p, tag: t } })).structuredContent,
    ).toEqual({ removed: false });
    expect((await client.callTool({ name: "post_tags", arguments: { id: p } })).structuredContent).toEqual({
      items: [],
    });
  });

  it("missing rows are tool errors", async () => {
    const p = await post();
    const missing = await client.callTool({ name: "post_tags_add", arguments: { id: p, tag: 9999 } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/^Unprocessable: .*no Tag with id 9999 exists/);
    const noPost = await client.callTool({ name: "post_tags", arguments: { id: 9999 } });
    expect(noPost.isError).toBe(true);
    expect((noPost.content as { text: string }[])[0]!.text).toMatch(/^Not found: No Post with id 9999\./);
  });
});
