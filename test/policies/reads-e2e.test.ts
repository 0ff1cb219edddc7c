// Reads under policies end to end (spec/policies.md, "Reads"): a real `wo run` of an app whose
// `.wo` source has read lines (one through a ref) and a skip-row-filters block, four callers —
// anonymous, a named token with role Editor and user 7, one with role Chief, and the owner —
// over REST and the official MCP SDK clients of both eras. What a caller observes: lists,
// counts, sorted pages and cursors cover only rows it may read; an unreadable row answers as a
// missing one (404 / resource not found); relation reads, resources/read, live streams (also
// Last-Event-ID replays) and row subscriptions carry nothing of a row it may not read,
// including a row an update makes unreadable.

import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { openSse, type SseConnection } from "../live/support.js";
import { addToken, clientV1, clientV2, rest, type Credential } from "./support.js";
import { makeDeskRows, readsApp, readsOwnerEnv, readsOwnerToken, walk, type DeskRows } from "./reads-support.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

async function until(ok: () => boolean, what: () => string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 20));
  }
}

const auth = (token: Credential): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
/** [event, id] of a stream's row events. */
const rowEvents = (s: SseConnection) =>
  s.events.filter((e) => e.data && e.event !== "reset").map((e) => [e.event, JSON.parse(e.data!).id as number]);

describe("reads under policies (SQLite)", () => {
  let appDir: string;
  let wo: WoProcess;
  let editor: string;
  let chief: string;
  const owner: Credential = readsOwnerToken;
  const anonymous: Credential = undefined;
  let rows: DeskRows;

  beforeAll(async () => {
    appDir = writeApp("desk", readsApp);
    editor = await addToken(["editor", appDir, "--role", "editor", "--user", "7"]);
    chief = await addToken(["chief", appDir, "--role", "chief", "--user", "3"]);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"], { env: readsOwnerEnv });
    rows = await makeDeskRows(wo.url);
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  it("list, count, sort and cursors cover only the rows each caller may read", async () => {
    const r = rows;
    const anonymousSees = [r.ownPublished, r.othersPublished, r.othersPublished2];
    const editorSees = [r.ownDraft, r.ownPublished, r.othersPublished, r.othersPublished2];
    const everything = [r.ownDraft, r.ownPublished, r.othersDraft, r.othersPublished, r.othersPublished2];
    expect(await walk(wo.url, anonymous, "/api/posts")).toEqual(anonymousSees);
    expect(await walk(wo.url, editor, "/api/posts")).toEqual(editorSees);
    expect(await walk(wo.url, owner, "/api/posts")).toEqual(everything);
    // The top-level block: Chiefs see every row (their read grant is `anyone`, its `when` lifted).
    expect(await walk(wo.url, chief, "/api/posts")).toEqual(everything);

    const count = async (who: Credential, query = "") =>
      (await rest(wo.url, who, "GET", `/api/posts?count=true&limit=1${query}`)).body.total;
    expect(await count(anonymous)).toBe(3);
    expect(await count(editor)).toBe(4);
    expect(await count(owner)).toBe(5);
    // A filter and the policy together.
    expect(await count(editor, "&author=8")).toBe(2);

    // Sorted by rank descending, one row a page: the cursor walks readable rows only.
    expect(await walk(wo.url, editor, "/api/posts?sort=-rank", 1)).toEqual([
      r.othersPublished2, // 4
      r.ownDraft, // 3
      r.othersPublished, // 2
      r.ownPublished, // 1
    ]);
    expect(await walk(wo.url, anonymous, "/api/posts?sort=rank", 2)).toEqual([
      r.ownPublished, // 1
      r.othersPublished, // 2
      r.othersPublished2, // 4
    ]);
  });

  it("get of an unreadable row is the 404 of a missing row, word for word", async () => {
    const hidden = await rest(wo.url, anonymous, "GET", `/api/posts/${rows.ownDraft}`);
    expect(hidden.status).toBe(404);
    const missing = await rest(wo.url, anonymous, "GET", "/api/posts/999999");
    expect(hidden.body.detail).toBe(missing.body.detail.replace("999999", String(rows.ownDraft)));
    expect((await rest(wo.url, editor, "GET", `/api/posts/${rows.ownDraft}`)).status).toBe(200);
    expect((await rest(wo.url, editor, "GET", `/api/posts/${rows.othersDraft}`)).status).toBe(404);
    expect((await rest(wo.url, chief, "GET", `/api/posts/${rows.othersDraft}`)).status).toBe(200);
    expect((await rest(wo.url, owner, "GET", `/api/posts/${rows.othersDraft}`)).status).toBe(200);
  });

  it("a policy through a ref (comment.post.published) filters lists and gets; relation reads check both rows", async () => {
    expect(await walk(wo.url, anonymous, "/api/comments")).toEqual([rows.onOwnPublished, rows.onOthersPublished]);
    expect((await rest(wo.url, anonymous, "GET", `/api/comments/${rows.onOthersDraft}`)).status).toBe(404);
    expect(await walk(wo.url, owner, "/api/comments")).toEqual([
      rows.onOwnPublished,
      rows.onOthersDraft,
      rows.onOthersPublished,
    ]);
    // The relation read: the owning post must be readable, and only readable comments come.
    const hiddenPost = await rest(wo.url, anonymous, "GET", `/api/posts/${rows.othersDraft}/comments`);
    expect(hiddenPost.status).toBe(404);
    const visible = await rest(wo.url, anonymous, "GET", `/api/posts/${rows.ownPublished}/comments`);
    expect(visible.body.items.map((c: { id: number }) => c.id)).toEqual([rows.onOwnPublished]);
    // Editor 7 reads its draft, but the draft's comments need a published post.
    const ownDraftComments = await rest(wo.url, editor, "GET", `/api/posts/${rows.othersDraft}/comments`);
    expect(ownDraftComments.status).toBe(404);
    const asOwner = await rest(wo.url, owner, "GET", `/api/posts/${rows.othersDraft}/comments`);
    expect(asOwner.body.items.map((c: { id: number }) => c.id)).toEqual([rows.onOthersDraft]);
  });

  for (const [era, connect] of [
    ["2025 era (SDK v1)", clientV1],
    ["SDK v2", clientV2],
  ] as const) {
    it(`MCP ${era}: list, get, resources/read and completions show each caller its rows only`, async () => {
      for (const [who, sees] of [
        [anonymous, [rows.ownPublished, rows.othersPublished, rows.othersPublished2]],
        [editor, [rows.ownDraft, rows.ownPublished, rows.othersPublished, rows.othersPublished2]],
        [owner, [rows.ownDraft, rows.ownPublished, rows.othersDraft, rows.othersPublished, rows.othersPublished2]],
      ] as const) {
        const client = await connect(wo.url, who);
        try {
          const listed = (await client.callTool({ name: "post_list", arguments: { count: true } })) as {
            structuredContent: { items: { id: number }[]; total: number };
          };
          expect(listed.structuredContent.items.map((p) => p.id)).toEqual(sees);
          expect(listed.structuredContent.total).toBe(sees.length);
          const got = (await client.callTool({ name: "post_get", arguments: { id: rows.othersDraft } })) as {
            isError?: boolean;
          };
          expect(got.isError === true).toBe(!sees.includes(rows.othersDraft as never));
          const read = client.readResource({ uri: `wo://post/${rows.ownDraft}` });
          if (sees.includes(rows.ownDraft as never)) {
            expect(JSON.parse((await read).contents[0]!.text as string).id).toBe(rows.ownDraft);
          } else {
            await expect(read).rejects.toThrow(/not found/i);
          }
          const completed = await client.complete({
            ref: { type: "ref/resource", uri: "wo://post/{id}" },
            argument: { name: "id", value: "" },
          });
          expect(completed.completion.values).toEqual(sees.map(String));
        } finally {
          await client.close();
        }
      }
    });
  }

  it("a live stream sends a caller only changes of rows it may read, also when an update makes one unreadable; so does a replay", async () => {
    const anon = await openSse(wo.url, "/api/posts/live");
    const ed = await openSse(wo.url, "/api/posts/live", auth(editor));
    const comments = await openSse(wo.url, "/api/comments/live");
    const all = await openSse(wo.url, "/api/posts/live", auth(owner));
    try {
      expect([anon.status, ed.status, comments.status, all.status]).toEqual([200, 200, 200, 200]);
      const patch = (id: number, body: object, path = "/api/posts") =>
        rest(wo.url, owner, "PATCH", `${path}/${id}`, body).then((r) => expect(r.status).toBe(200));
      await patch(rows.othersDraft, { title: "still a draft" }); // nobody but the owner
      await patch(rows.ownDraft, { title: "Editor's draft, edited" }); // the Editor
      await patch(rows.othersPublished2, { published: false }); // becomes unreadable to anonymous
      await patch(rows.othersPublished2, { title: "hidden now" }); // and stays so
      await patch(rows.onOthersDraft, { body: "edited" }, "/api/comments"); // its post is a draft
      await patch(rows.onOwnPublished, { body: "edited" }, "/api/comments"); // its post is published
      const fence = await rest(wo.url, owner, "POST", "/api/posts", { title: "fence", author: 1, published: true });
      await until(
        () => [anon, ed, all].every((s) => rowEvents(s).some(([, id]) => id === fence.body.id)),
        () => JSON.stringify([rowEvents(anon), rowEvents(ed), rowEvents(all)]),
      );
      await until(
        () => rowEvents(comments).length > 0,
        () => "no comment event",
      );
      expect(rowEvents(anon)).toEqual([["create", fence.body.id]]);
      expect(rowEvents(ed)).toEqual([
        ["update", rows.ownDraft],
        ["create", fence.body.id],
      ]);
      expect(rowEvents(all).length).toBe(5);
      // A little later still: the comment on the draft's post never comes.
      await new Promise((r) => setTimeout(r, 300));
      expect(rowEvents(comments)).toEqual([["update", rows.onOwnPublished]]);

      // Resuming from the start: the replay carries only what anonymous may read, as it was then.
      const replay = await openSse(wo.url, "/api/posts/live", { "last-event-id": "0" });
      try {
        await until(
          () => rowEvents(replay).some(([, id]) => id === fence.body.id),
          () => JSON.stringify(rowEvents(replay)),
        );
        const replayed = new Set(rowEvents(replay).map(([, id]) => id));
        expect(replayed.has(rows.ownDraft)).toBe(false);
        expect(replayed.has(rows.othersDraft)).toBe(false);
        expect(replayed.has(rows.ownPublished)).toBe(true);
        // othersPublished2 was created readable; its later, unreadable updates are not replayed.
        expect(rowEvents(replay).filter(([, id]) => id === rows.othersPublished2)).toEqual([
          ["create", rows.othersPublished2],
        ]);
      } finally {
        replay.close();
      }
    } finally {
      for (const s of [anon, ed, comments, all]) s.close();
    }
  });

  it("MCP row subscriptions: an unreadable row cannot be subscribed to; an update that makes one unreadable is not announced", async () => {
    const mine = (await rest(wo.url, owner, "POST", "/api/posts", { title: "sub a", author: 7 })).body.id as number;
    const fence = (await rest(wo.url, owner, "POST", "/api/posts", { title: "sub fence", author: 7 })).body
      .id as number;
    const client = await clientV1(wo.url, editor);
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    try {
      await expect(client.subscribeResource({ uri: `wo://post/${rows.othersDraft}` })).rejects.toThrow(/not found/i);
      await client.subscribeResource({ uri: `wo://post/${mine}` });
      await client.subscribeResource({ uri: `wo://post/${fence}` });
      const touch = (id: number, body: object) => rest(wo.url, owner, "PATCH", `/api/posts/${id}`, body);
      // The session's GET stream opens just after initialize: touch the fence until it carries one.
      for (let i = 0; i < 200 && seen.length === 0; i++) {
        await touch(fence, { rank: i });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen.length).toBeGreaterThan(0);
      await touch(mine, { title: "still mine" });
      await until(
        () => seen.includes(`wo://post/${mine}`),
        () => JSON.stringify(seen),
      );
      seen.length = 0;
      await touch(mine, { author: 8 }); // now Editor 7 may not read it
      await touch(mine, { title: "someone else's" });
      await touch(fence, { title: "fence" });
      await until(
        () => seen.includes(`wo://post/${fence}`),
        () => JSON.stringify(seen),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.filter((u) => u === `wo://post/${mine}`)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
