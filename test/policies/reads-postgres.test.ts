// Reads under policies on PostgreSQL (spec/policies.md, "Reads"): the app and callers of
// reads-e2e.test.ts served by `wo run --db postgres://…` of a server the test starts. The read
// condition is compiled by the PostgreSQL dialect (`$n`, IS DISTINCT FROM, a scalar subquery for
// comment.post.published): lists, counts, sorted pages, cursors and gets agree with SQLite's.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { addToken, clientV2, rest, type Credential } from "./support.js";
import { makeDeskRows, readsApp, readsOwnerEnv, readsOwnerToken, walk, type DeskRows } from "./reads-support.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

describe("reads under policies (PostgreSQL)", () => {
  let server: PostgresServer;
  let appDir: string;
  let wo: WoProcess;
  let editor: string;
  let rows: DeskRows;
  const anonymous: Credential = undefined;

  beforeAll(async () => {
    server = await startPostgres();
    const db = await server.createDatabase();
    appDir = writeApp("desk", readsApp);
    editor = await addToken(["editor", appDir, "--db", db, "--role", "editor", "--user", "7"]);
    wo = await startWo([appDir, "--db", db, "--listen", "127.0.0.1:0"], { env: readsOwnerEnv });
    rows = await makeDeskRows(wo.url);
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
    await server?.stop();
  });

  it("list, count, sort, cursors and get as anonymous, editor and owner", async () => {
    const r = rows;
    expect(await walk(wo.url, anonymous, "/api/posts")).toEqual([
      r.ownPublished,
      r.othersPublished,
      r.othersPublished2,
    ]);
    expect(await walk(wo.url, editor, "/api/posts?sort=-rank", 1)).toEqual([
      r.othersPublished2,
      r.ownDraft,
      r.othersPublished,
      r.ownPublished,
    ]);
    expect(await walk(wo.url, readsOwnerToken, "/api/posts")).toHaveLength(5);
    expect((await rest(wo.url, editor, "GET", "/api/posts?count=true&limit=1")).body.total).toBe(4);
    expect((await rest(wo.url, anonymous, "GET", `/api/posts/${r.ownDraft}`)).status).toBe(404);
    expect((await rest(wo.url, editor, "GET", `/api/posts/${r.ownDraft}`)).status).toBe(200);
    expect((await rest(wo.url, editor, "GET", `/api/posts/${r.othersDraft}`)).status).toBe(404);
    // Through a ref: the comment on the draft is hidden from anonymous.
    expect(await walk(wo.url, anonymous, "/api/comments")).toEqual([r.onOwnPublished, r.onOthersPublished]);
    expect((await rest(wo.url, anonymous, "GET", `/api/comments/${r.onOthersDraft}`)).status).toBe(404);

    const mcp = await clientV2(wo.url, editor);
    try {
      const listed = (await mcp.callTool({ name: "post_list", arguments: { count: true } })) as {
        structuredContent: { items: { id: number }[]; total: number };
      };
      expect(listed.structuredContent.items.map((p) => p.id)).toEqual([
        r.ownDraft,
        r.ownPublished,
        r.othersPublished,
        r.othersPublished2,
      ]);
      await expect(mcp.readResource({ uri: `wo://post/${r.othersDraft}` })).rejects.toThrow(/not found/i);
    } finally {
      await mcp.close();
    }
  });
});
