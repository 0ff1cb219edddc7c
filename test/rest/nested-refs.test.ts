// Reference integrity for refs that are not top-level columns (spec/rest.md 409/422,
// spec/storage.md referrers): ids inside arrays, inline structs, arrays of structs, an
// embedded type and arrays of arrays are checked on every write and keep their rows from being
// deleted, over REST and MCP alike. `wo run` of test/fixtures/apps/shelf on a real socket.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dumpDatabase, send, sendJson, serveApp, type Served } from "./support/harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let app: Served;
let base: string;
let tag: (name: string) => Promise<number>;

beforeAll(async () => {
  app = await serveApp("test/fixtures/apps/shelf");
  base = app.url;
  tag = async (name) => {
    const r = await sendJson(base, "POST", "/api/tags", { name });
    expect(r.status, r.text).toBe(201);
    return r.json.id as number;
  };
});
afterAll(async () => {
  await app?.dispose();
});

/** A valid book whose every ref slot names `id`. */
const bookReferring = (id: number) => ({
  title: "B",
  tags: [id],
  meta: { editor: id, also: [id] },
  parts: [{ title: "one", tag: id }],
  credit: { role: "author", person: id },
  shelves: [[id]],
});

describe("writes check every ref, however deep", () => {
  it("a create naming missing rows anywhere is 422 with a pointer per missing id, and stores nothing", async () => {
    const real = await tag("real");
    const before = dumpDatabase(app.dbFile);
    const r = await sendJson(base, "POST", "/api/books", {
      title: "Dangling",
      tags: [real, 9001],
      meta: { editor: 9002, also: [real, 9003] },
      parts: [
        { title: "ok", tag: real },
        { title: "bad", tag: 9004 },
        { title: "none", tag: null },
      ],
      credit: { role: "author", person: 9005 },
      shelves: [[real], [real, 9006]],
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json.errors).toEqual([
      { path: "/tags/1", message: "no Tag with id 9001 exists" },
      { path: "/meta/editor", message: "no Tag with id 9002 exists" },
      { path: "/meta/also/1", message: "no Tag with id 9003 exists" },
      { path: "/parts/1/tag", message: "no Tag with id 9004 exists" },
      { path: "/credit/person", message: "no Tag with id 9005 exists" },
      { path: "/shelves/1/1", message: "no Tag with id 9006 exists" },
    ]);
    expect(r.json.detail).toContain("parts[1].tag: no Tag with id 9004 exists");
    expect(r.json.detail).toContain("shelves[1][1]: no Tag with id 9006 exists");
    expect(dumpDatabase(app.dbFile)).toBe(before);
  });

  it("an update replacing a nested value is checked the same way and leaves the row as it was", async () => {
    const real = await tag("kept");
    const created = await sendJson(base, "POST", "/api/books", bookReferring(real));
    expect(created.status, created.text).toBe(201);
    const r = await sendJson(base, "PATCH", `/api/books/${created.json.id}`, { meta: { editor: null, also: [9100] } });
    expect(r.status, r.text).toBe(422);
    expect(r.json.errors).toEqual([{ path: "/meta/also/0", message: "no Tag with id 9100 exists" }]);
    expect((await send(base, "GET", `/api/books/${created.json.id}`)).json).toEqual(created.json);
  });

  it("the same check answers an MCP tools/call as a tool error", async () => {
    const r = await send(base, "POST", "/mcp", {
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "book_create",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "book_create",
          arguments: { title: "M", tags: [], parts: [], shelves: [], credit: { role: "r", person: 9200 } },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.content[0].text).toContain("credit.person: no Tag with id 9200 exists");
  });
});

describe("a delete is refused while any nested ref still names the row", () => {
  it("409 names every place holding the id; the row stays until the last one lets go", async () => {
    const held = await tag("held");
    const book = await sendJson(base, "POST", "/api/books", bookReferring(held));
    expect(book.status, book.text).toBe(201);

    const refused = await send(base, "DELETE", `/api/tags/${held}`);
    expect(refused.status, refused.text).toBe(409);
    for (const field of ["tags", "meta.editor", "meta.also", "parts.tag", "credit.person", "shelves"]) {
      expect(refused.json.detail).toContain(`1 Book row (field '${field}')`);
    }
    expect(refused.json.errors).toContainEqual({ path: "/book/parts/tag", message: `1 row refers to Tag ${held}` });
    expect((await send(base, "GET", `/api/tags/${held}`)).status).toBe(200);

    // Let go one place at a time: each delete attempt names only what still holds the id.
    const other = await tag("other");
    const patched = await sendJson(base, "PATCH", `/api/books/${book.json.id}`, {
      ...bookReferring(other),
      shelves: [[other], [other, held]],
    });
    expect(patched.status, patched.text).toBe(200);
    const still = await send(base, "DELETE", `/api/tags/${held}`);
    expect(still.status).toBe(409);
    expect(still.json.errors).toEqual([{ path: "/book/shelves", message: `1 row refers to Tag ${held}` }]);

    expect((await sendJson(base, "PATCH", `/api/books/${book.json.id}`, { shelves: [] })).status).toBe(200);
    expect((await send(base, "DELETE", `/api/tags/${held}`)).status).toBe(204);
  });

  it("a book listed as its own sequel can still be deleted; one named by another cannot", async () => {
    const t = await tag("t");
    const first = await sendJson(base, "POST", "/api/books", { ...bookReferring(t), title: "first" });
    const self = await sendJson(base, "PATCH", `/api/books/${first.json.id}`, { sequel: first.json.id });
    expect(self.status, self.text).toBe(200);
    const second = await sendJson(base, "POST", "/api/books", {
      ...bookReferring(t),
      title: "second",
      sequel: first.json.id,
    });
    expect((await send(base, "DELETE", `/api/books/${first.json.id}`)).status).toBe(409);
    expect((await send(base, "DELETE", `/api/books/${second.json.id}`)).status).toBe(204);
    expect((await send(base, "DELETE", `/api/books/${first.json.id}`)).status).toBe(204);
  });
});
