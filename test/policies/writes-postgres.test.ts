// Writes under policies on PostgreSQL (spec/policies.md, "Writes"): the same app and callers as
// writes-e2e.test.ts, served by `wo run --db postgres://…` of a server the test starts. The row
// checks run as SQL in the write's transaction there too: a create or update whose row fails
// the write line is 403 and rolled back, one that satisfies it commits.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { addToken, errorText, clientV2, ownerEnv, ownerToken, pressApp, rest } from "./support.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

describe("writes under policies (PostgreSQL)", () => {
  let server: PostgresServer;
  let appDir: string;
  let wo: WoProcess;
  let editor: string;
  let othersPost: number;
  /** Every post, as the owner sees them: what a refusal must leave unchanged. */
  const posts = async () => (await rest(wo.url, ownerToken, "GET", "/api/posts?limit=100")).body.items;

  beforeAll(async () => {
    server = await startPostgres();
    const db = await server.createDatabase();
    appDir = writeApp("press", pressApp);
    editor = await addToken(["editor", appDir, "--db", db, "--role", "editor", "--user", "7"]);
    wo = await startWo([appDir, "--db", db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    const made = await rest(wo.url, ownerToken, "POST", "/api/posts", { title: "other's", author: 8, published: true });
    expect(made.status).toBe(201);
    othersPost = made.body.id;
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
    await server?.stop();
  });

  it("create: refused when the new row fails the write line, admitted when it holds", async () => {
    const before = await posts();
    const refused = await rest(wo.url, editor, "POST", "/api/posts", { title: "as 8", author: 8 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: "urn:wo:problem:forbidden" });
    expect(await posts()).toEqual(before);
    const admitted = await rest(wo.url, editor, "POST", "/api/posts", { title: "mine", author: 7 });
    expect(admitted.status).toBe(201);
    expect((await posts()).length).toBe(before.length + 1);
  });

  it("update: the old row and the new row are checked; a refusal rolls back", async () => {
    const mine = await rest(wo.url, editor, "POST", "/api/posts", { title: "to edit", author: 7 });
    const before = await posts();
    expect((await rest(wo.url, editor, "PATCH", `/api/posts/${othersPost}`, { title: "x" })).status).toBe(403);
    expect((await rest(wo.url, editor, "PATCH", `/api/posts/${mine.body.id}`, { author: 8 })).status).toBe(403);
    expect(await posts()).toEqual(before);
    const edited = await rest(wo.url, editor, "PATCH", `/api/posts/${mine.body.id}`, { title: "edited" });
    expect(edited.status).toBe(200);
    expect(edited.body.title).toBe("edited");

    const mcp = await clientV2(wo.url, editor);
    try {
      const text = errorText(await mcp.callTool({ name: "post_update", arguments: { id: mine.body.id, author: 9 } }));
      expect(text).toMatch(/^Forbidden: .*update Post/);
    } finally {
      await mcp.close();
    }
    expect((await rest(wo.url, ownerToken, "GET", `/api/posts/${mine.body.id}`)).body.author).toBe(7);
  });
});
