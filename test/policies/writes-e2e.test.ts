// Writes under policies end to end (spec/policies.md, "Writes" and "Tools a caller is shown"): a
// real `wo run` of an app whose `.wo` source has policy lines, three principals — anonymous, a
// named token with role Editor (`wo token add … --role Editor --user 7`), the owner
// (`[server] token_env`) — and a fourth with another role, over REST and the official
// MCP SDK clients of both eras. What a user observes: a refused write is 403
// urn:wo:problem:forbidden (404 when the row is unreadable) or "Forbidden: …" over MCP, changes
// nothing (the database file is the same), and is in the audit trail with outcome `forbidden`;
// a caller is shown only the tools it holds a grant for, and one it is not shown answers like a
// tool that does not exist.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dumpDb, removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { env, modernHeaders, post as rawPost, req } from "../mcp/support/raw.js";
import {
  addToken,
  callError,
  clientV1,
  clientV2,
  errorText,
  ownerEnv,
  ownerToken,
  pressApp,
  rest,
  toolNames,
  type Credential,
} from "./support.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("writes under policies (SQLite)", () => {
  let appDir: string;
  let wo: WoProcess;
  let editor: string;
  let reader: string;
  const owner: Credential = ownerToken;
  const anonymous: Credential = undefined;
  // Rows the owner makes: Editor 7's draft and published post, and author 8's.
  const ids = { ownDraft: 0, ownPublished: 0, othersDraft: 0, othersPublished: 0, tag: 0 };

  beforeAll(async () => {
    appDir = writeApp("press", pressApp);
    editor = await addToken(["editor", appDir, "--role", "editor", "--user", "7"]);
    reader = await addToken(["reader", appDir, "--role", "reader", "--user", "9"]);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    const make = async (body: object) => {
      const r = await rest(wo.url, owner, "POST", "/api/posts", body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as number;
    };
    ids.ownDraft = await make({ title: "own draft", author: 7 });
    ids.ownPublished = await make({ title: "own published", author: 7, published: true });
    ids.othersDraft = await make({ title: "other's draft", author: 8 });
    ids.othersPublished = await make({ title: "other's published", author: 8, published: true });
    ids.tag = (await rest(wo.url, owner, "POST", "/api/tags", { label: "news" })).body.id;
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  /** `act` is refused with `status` and a problem of `kind`, and the database is the same afterwards. */
  const refused = async (act: () => Promise<{ status: number; body: any }>, status: number, kind: string) => {
    const before = dumpDb(appDir);
    const r = await act();
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body).toMatchObject({ type: `urn:wo:problem:${kind}`, status });
    expect(dumpDb(appDir)).toEqual(before);
    return r.body.detail as string;
  };

  it("anonymous: writes no line grants to anyone are 401 with the challenge, on a type with policies as on one without", async () => {
    const detail = await refused(
      () => rest(wo.url, anonymous, "POST", "/api/posts", { title: "drive-by", author: 7 }),
      401,
      "unauthorized",
    );
    expect(detail).toMatch(/anonymous/i);
    expect(detail).toMatch(/create/);
    expect(detail).toMatch(/Post/);
    await refused(
      () => rest(wo.url, anonymous, "PATCH", `/api/posts/${ids.ownPublished}`, { title: "x" }),
      401,
      "unauthorized",
    );
    await refused(() => rest(wo.url, anonymous, "DELETE", `/api/posts/${ids.ownDraft}`), 401, "unauthorized");
    await refused(
      () => rest(wo.url, anonymous, "POST", `/api/posts/${ids.ownPublished}/publish`, {}),
      401,
      "unauthorized",
    );
    await refused(
      () => rest(wo.url, anonymous, "PUT", `/api/posts/${ids.ownPublished}/tags/${ids.tag}`, {}),
      401,
      "unauthorized",
    );
    // Reading is what `anyone` is granted: the route answers.
    expect((await rest(wo.url, anonymous, "GET", "/api/posts")).status).toBe(200);
    await refused(() => rest(wo.url, anonymous, "POST", "/api/tags", { label: "spam" }), 401, "unauthorized");
    expect((await rest(wo.url, anonymous, "GET", "/api/tags")).status).toBe(401);
  });

  it("editor 7: the new row must satisfy the write line (create), and both the old and the new row (update)", async () => {
    const made = await rest(wo.url, editor, "POST", "/api/posts", { title: "mine", author: 7 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const detail = await refused(
      () => rest(wo.url, editor, "POST", "/api/posts", { title: "as someone else", author: 8 }),
      403,
      "forbidden",
    );
    expect(detail).toMatch(/editor/);
    expect(detail).toMatch(/create/);
    expect(detail).toContain("policy write for role editor when author == $session.user");

    const renamed = await rest(wo.url, editor, "PATCH", `/api/posts/${made.body.id}`, { title: "mine, renamed" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.title).toBe("mine, renamed");
    // Giving it away: the new row fails the line, and the update is rolled back.
    await refused(() => rest(wo.url, editor, "PATCH", `/api/posts/${made.body.id}`, { author: 8 }), 403, "forbidden");
    // Someone else's: readable (published) but not writable → 403; not readable → 404.
    await refused(
      () => rest(wo.url, editor, "PATCH", `/api/posts/${ids.othersPublished}`, { title: "x" }),
      403,
      "forbidden",
    );
    const hidden = await refused(
      () => rest(wo.url, editor, "PATCH", `/api/posts/${ids.othersDraft}`, { title: "x" }),
      404,
      "not-found",
    );
    // Word for word what a row that does not exist answers.
    const missing = await rest(wo.url, editor, "PATCH", "/api/posts/999999", { title: "x" });
    expect(hidden).toBe(missing.body.detail.replace("999999", String(ids.othersDraft)));
  });

  it("editor 7: delete checks the old row under the delete line; a method and a link check write on their row", async () => {
    await refused(() => rest(wo.url, editor, "DELETE", `/api/posts/${ids.ownPublished}`), 403, "forbidden");
    await refused(() => rest(wo.url, editor, "DELETE", `/api/posts/${ids.othersDraft}`), 404, "not-found");

    await refused(
      () => rest(wo.url, editor, "POST", `/api/posts/${ids.othersPublished}/publish`, {}),
      403,
      "forbidden",
    );
    await refused(() => rest(wo.url, editor, "POST", `/api/posts/${ids.othersDraft}/publish`, {}), 404, "not-found");
    const linkRefused = await refused(
      () => rest(wo.url, editor, "PUT", `/api/posts/${ids.othersPublished}/tags/${ids.tag}`, {}),
      403,
      "forbidden",
    );
    expect(linkRefused).toMatch(/link/);
    expect((await rest(wo.url, editor, "PUT", `/api/posts/${ids.ownDraft}/tags/${ids.tag}`, {})).status).toBe(201);
    expect((await rest(wo.url, editor, "DELETE", `/api/posts/${ids.ownDraft}/tags/${ids.tag}`)).status).toBe(204);

    // The method's body runs with the method's authority once its row was admitted.
    const published = await rest(wo.url, editor, "POST", `/api/posts/${ids.ownDraft}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.published).toBe(true);

    const draft = await rest(wo.url, editor, "POST", "/api/posts", { title: "to delete", author: 7 });
    expect((await rest(wo.url, editor, "DELETE", `/api/posts/${draft.body.id}`)).status).toBe(204);
  });

  it("an identified caller with another role holds no write grant: refused at the action, before any row is read", async () => {
    const detail = await refused(
      () => rest(wo.url, reader, "PATCH", `/api/posts/${ids.othersPublished}`, { title: "x" }),
      403,
      "forbidden",
    );
    expect(detail).toMatch(/no policy line of Post grants write/);
    await refused(() => rest(wo.url, reader, "POST", "/api/posts", { title: "x", author: 9 }), 403, "forbidden");
    // A type without policy lines is open to every identified caller.
    expect((await rest(wo.url, reader, "POST", "/api/tags", { label: "by reader" })).status).toBe(201);
  });

  it("the owner bypasses every line", async () => {
    const made = await rest(wo.url, owner, "POST", "/api/posts", { title: "owner's", author: 8 });
    expect(made.status).toBe(201);
    expect((await rest(wo.url, owner, "PATCH", `/api/posts/${ids.othersDraft}`, { author: 9 })).status).toBe(200);
    expect((await rest(wo.url, owner, "POST", `/api/posts/${made.body.id}/publish`, {})).status).toBe(200);
    expect((await rest(wo.url, owner, "DELETE", `/api/posts/${made.body.id}`)).status).toBe(204);
  });

  it("MCP, both eras: each caller is shown only the tools it holds a grant for; a hidden one is an unknown tool", async () => {
    // The relation read (post_tags) is a read, its add/remove a write. Tag has no policy
    // lines: its tools are every identified caller's, and no anonymous caller's.
    const postReads = ["post_get", "post_list", "post_tags"];
    const tagTools = ["tag_create", "tag_get", "tag_list"];
    const allTools = [
      ...postReads,
      "post_create",
      "post_delete",
      "post_publish",
      "post_update",
      "post_tags_add",
      "post_tags_remove",
      ...tagTools,
    ].sort();
    for (const connect of [clientV1, clientV2]) {
      const anon = await connect(wo.url, anonymous);
      const ed = await connect(wo.url, editor);
      const rd = await connect(wo.url, reader);
      const own = await connect(wo.url, owner);
      try {
        expect(await toolNames(anon)).toEqual(postReads);
        expect(await toolNames(rd)).toEqual([...postReads, ...tagTools]);
        expect(await toolNames(ed)).toEqual(allTools);
        expect(await toolNames(own)).toEqual(allTools);
        const unknown = await callError(anon, "post_nonexistent");
        expect(unknown).toMatch(/Unknown tool/);
        const before = dumpDb(appDir);
        expect(await callError(anon, "post_create")).toBe(unknown);
        expect(await callError(rd, "post_update")).toBe(unknown);
        expect(dumpDb(appDir)).toEqual(before);

        // Shown, but this row refuses: the tool error names the action and the type.
        const text = errorText(await ed.callTool({ name: "post_create", arguments: { title: "via mcp", author: 8 } }));
        expect(text).toMatch(/^Forbidden: /);
        expect(text).toMatch(/create/);
        expect(text).toMatch(/Post/);
        expect(
          errorText(await ed.callTool({ name: "post_update", arguments: { id: ids.othersPublished, title: "x" } })),
        ).toMatch(/^Forbidden: .*update Post/);
        expect(errorText(await ed.callTool({ name: "post_publish", arguments: { id: ids.othersPublished } }))).toMatch(
          /^Forbidden: /,
        );
        expect(dumpDb(appDir)).toEqual(before);
        const made = await ed.callTool({ name: "post_create", arguments: { title: "via mcp", author: 7 } });
        expect(made.isError, JSON.stringify(made)).toBeFalsy();
      } finally {
        for (const c of [anon, ed, rd, own]) await c.close();
      }
    }
  });

  it("2026-07-28: tools/list, which differs between callers, is marked private to the caller", async () => {
    const list = await rawPost(`${wo.url}/mcp`, req("tools/list", { _meta: env }), {
      ...modernHeaders("tools/list"),
      authorization: `Bearer ${editor}`,
    });
    expect(list.status).toBe(200);
    expect(list.json.result).toMatchObject({ resultType: "complete", cacheScope: "private" });
    expect(list.json.result.tools.map((t: { name: string }) => t.name)).toContain("post_create");
    const anon = await rawPost(`${wo.url}/mcp`, req("tools/list", { _meta: env }), modernHeaders("tools/list"));
    expect(anon.json.result.cacheScope).toBe("private");
    expect(anon.json.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      "post_get",
      "post_list",
      "post_tags",
    ]);
  });

  it("each refusal is in the audit trail with outcome forbidden and the refused principal", async () => {
    const trail = await rest(wo.url, owner, "GET", "/_wo/audit?limit=1000");
    expect(trail.status).toBe(200);
    const entries = trail.body.items as {
      principal: string;
      surface: string;
      operation: string;
      type: string;
      rowId: number | null;
      outcome: string;
    }[];
    const refusals = entries.filter((e) => e.outcome === "forbidden");
    const seen = (e: (typeof entries)[number]) => [e.principal, e.surface, e.operation, e.rowId];
    expect(refusals.map(seen)).toEqual(
      expect.arrayContaining([
        ["editor", "rest", "post_create", null],
        ["editor", "rest", "post_update", ids.othersPublished],
        ["editor", "rest", "post_delete", ids.ownPublished],
        ["editor", "rest", "post_publish", ids.othersPublished],
        ["editor", "rest", "post_tags_add", ids.othersPublished],
        ["reader", "rest", "post_update", ids.othersPublished],
        ["editor", "mcp", "post_create", null],
      ]),
    );
    expect(refusals.every((e) => e.type === "Post")).toBe(true);
    // Anonymous: refused as unidentified (401), recorded with that outcome.
    expect(entries.map((e) => [e.principal, e.operation, e.outcome])).toContainEqual([
      "anonymous",
      "post_create",
      "unauthorized",
    ]);
    // An unreadable row is refused as not found, and recorded so.
    expect(entries.map((e) => [e.principal, e.operation, e.rowId, e.outcome])).toContainEqual([
      "editor",
      "post_update",
      ids.othersDraft,
      "not_found",
    ]);
  });
});
