// The reads suites' app and rows (spec/policies.md, "Reads"): posts anyone reads once
// published and Editors read as their author; comments anyone reads when their post is
// published (a path through a ref); Chiefs skip row filters (a top-level block).

import { expect } from "vitest";
import { rest, type Credential } from "./support.js";

export const readsOwnerToken = "policy-reads-owner-token-0123456789abcdef";
export const readsOwnerEnv = { WO_POLICY_READS_OWNER: readsOwnerToken };

export const readsApp = {
  "wo.toml": 'name = "desk"\n\n[server]\ntoken_env = "WO_POLICY_READS_OWNER"\n',
  "app.wo": `type Post {
  title: Text
  author: Int
  published: Bool = false
  rank: Int = 0
  comments: backlink Comment.post

  policy read anyone when published == true
  policy read for role editor when author == $session.user
  policy write for role editor when author == $session.user

  service rest "/api/posts" expose list, get, create, update, subscribe
  service mcp "/mcp" expose list, get, create, update
}

type Comment {
  post: ref Post
  body: Text

  policy read anyone when post.published == true

  service rest "/api/comments" expose list, get, create, update, subscribe
  service mcp "/mcp" expose list, get
}

policy Chiefs
  applies_to: *
  when: $session.role == chief
  effect: skip-row-filters
`,
};

/** The rows the owner makes, by name: which principal may read which is the point of each. */
export interface DeskRows {
  /** Editor 7's draft (rank 3) and published post (rank 1). */
  ownDraft: number;
  ownPublished: number;
  /** Author 8's draft (rank 5) and two published posts (ranks 2 and 4). */
  othersDraft: number;
  othersPublished: number;
  othersPublished2: number;
  /** Comments on ownPublished, othersDraft and othersPublished. */
  onOwnPublished: number;
  onOthersDraft: number;
  onOthersPublished: number;
}

export async function makeDeskRows(base: string): Promise<DeskRows> {
  const make = async (path: string, body: object) => {
    const r = await rest(base, readsOwnerToken, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as number;
  };
  const ownDraft = await make("/api/posts", { title: "own draft", author: 7, rank: 3 });
  const ownPublished = await make("/api/posts", { title: "own published", author: 7, published: true, rank: 1 });
  const othersDraft = await make("/api/posts", { title: "other's draft", author: 8, rank: 5 });
  const othersPublished = await make("/api/posts", { title: "other's published", author: 8, published: true, rank: 2 });
  const othersPublished2 = await make("/api/posts", { title: "other's second", author: 8, published: true, rank: 4 });
  return {
    ownDraft,
    ownPublished,
    othersDraft,
    othersPublished,
    othersPublished2,
    onOwnPublished: await make("/api/comments", { post: ownPublished, body: "on own published" }),
    onOthersDraft: await make("/api/comments", { post: othersDraft, body: "on other's draft" }),
    onOthersPublished: await make("/api/comments", { post: othersPublished, body: "on other's published" }),
  };
}

/** Every id of a list, following its cursors (`limit` per page). */
export async function walk(base: string, who: Credential, path: string, limit = 2): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const sep = path.includes("?") ? "&" : "?";
    const r = await rest(
      base,
      who,
      "GET",
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    ids.push(...r.body.items.map((row: { id: number }) => row.id));
    cursor = r.body.nextCursor;
    if (!cursor) break;
  }
  return ids;
}
