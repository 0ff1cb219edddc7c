// The `@search` suite both stores run (spec/rest.md "Search", spec/mcp.md, spec/storage.md
// "Full-text search"): a real `wo run` on SQLite (sqlite.test.ts) or PostgreSQL
// (postgres.test.ts), REST with and without the owner's token, and the MCP SDK client.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { clientV2, rest, type Credential } from "../policies/support.js";

export const ownerToken = "search-owner-token-0123456789abcdef01";
export const ownerEnv = { WO_SEARCH_OWNER: ownerToken };
const toml = 'name = "notes"\n\n[server]\ntoken_env = "WO_SEARCH_OWNER"\n';

const appText = (search: boolean) => `type Note {
  title: Text${search ? " @search" : ""}
  body: Text?${search ? " @search" : ""}
  published: Bool = true
  rank: Int = 0

  policy read anyone when published == true

  service rest "/api/notes" expose list, get, create, update, delete
  service mcp "/mcp" expose list, get, create, update, delete
}

type Tag {
  name: Text
  service rest "/api/tags" expose list, create
}
`;

export const searchApp = { "wo.toml": toml, "app.wo": appText(true) };

const owner: Credential = ownerToken;
const anonymous: Credential = undefined;

async function create(base: string, body: Record<string, unknown>): Promise<number> {
  const r = await rest(base, owner, "POST", "/api/notes", body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as number;
}

async function ids(base: string, who: Credential, query: string): Promise<number[]> {
  const r = await rest(base, who, "GET", `/api/notes?${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.items as { id: number }[]).map((n) => n.id);
}

/** Every page of `query` through the cursors, in order. */
async function walk(base: string, who: Credential, query: string): Promise<number[]> {
  const out: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await rest(base, who, "GET", `/api/notes?${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out.push(...(r.body.items as { id: number }[]).map((n) => n.id));
    cursor = r.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error("too many pages");
}

/** The cases, against a server of `searchApp` that `start` gives (its rows made here). */
export function searchCases(serve: () => { url: string }, restart: () => Promise<void>): void {
  const rows: Record<string, number> = {};

  it("ranks by relevance: more occurrences and shorter fields first, ties by id", async () => {
    const base = serve().url;
    rows.twice = await create(base, { title: "solar solar panel" });
    rows.once = await create(base, { title: "solar wind panel" });
    rows.longLunar = await create(base, { title: "lunar eclipse over the night sky tonight" });
    rows.shortLunar = await create(base, { title: "lunar" });
    rows.twinA = await create(base, { title: "twin text" });
    rows.twinB = await create(base, { title: "twin text" });
    rows.hidden = await create(base, { title: "solar secret", body: "solar solar solar", published: false });
    rows.inBody = await create(base, { title: "misc", body: "a note about comets" });
    // The hidden row holds the word four times in a longer text: where it ranks is each store's
    // rank function's business; the two visible rows of one length are ordered by frequency.
    const solar = await ids(base, owner, "q=solar");
    expect(solar.filter((id) => id !== rows.hidden)).toEqual([rows.twice, rows.once]);
    expect(solar).toContain(rows.hidden);
    expect(await ids(base, owner, "q=lunar")).toEqual([rows.shortLunar, rows.longLunar]);
    expect(await ids(base, owner, "q=twin")).toEqual([rows.twinA, rows.twinB]);
    // Every word must match; the last also as a prefix; case and punctuation do not matter.
    expect(await ids(base, owner, "q=SOLAR%20pan")).toEqual([rows.twice, rows.once]);
    expect(await ids(base, owner, "q=comet")).toEqual([rows.inBody]);
    expect(await ids(base, owner, "q=solar%20lunar")).toEqual([]);
  });

  it("a read policy hides rows from the search, in pages and in the count", async () => {
    const base = serve().url;
    expect(await ids(base, anonymous, "q=solar")).toEqual([rows.twice, rows.once]);
    const counted = await rest(base, anonymous, "GET", "/api/notes?q=solar&count=true");
    expect(counted.body.total).toBe(2);
    expect((await rest(base, owner, "GET", "/api/notes?q=solar&count=true")).body.total).toBe(3);
  });

  it("pages through every match with cursors, without duplicates or gaps, combined with filters", async () => {
    const base = serve().url;
    const made: number[] = [];
    for (let i = 0; i < 23; i++)
      made.push(
        await create(base, { title: `paging ${"filler ".repeat(i % 4)}`, rank: i, body: i % 2 ? "odd" : null }),
      );
    const all = await walk(base, owner, "q=paging&limit=5");
    expect(all).toHaveLength(23);
    expect([...all].sort((a, b) => a - b)).toEqual(made);
    // The pages read one order: the first page of a bigger limit is the same sequence.
    expect(await ids(base, owner, "q=paging&limit=23")).toEqual(all);
    const filtered = await walk(base, owner, "q=paging&limit=3&rank[gte]=10&body[null]=false");
    expect([...filtered].sort((a, b) => a - b)).toEqual(made.filter((_, i) => i >= 10 && i % 2 === 1));
    // An explicit sort wins over relevance; its cursors page as usual.
    expect(await walk(base, owner, "q=paging&sort=-rank&limit=4")).toEqual([...made].reverse());
    expect((await rest(base, owner, "GET", "/api/notes?q=paging&count=true&limit=1")).body.total).toBe(23);
  });

  it("updates and deletes show in the next search at once", async () => {
    const base = serve().url;
    const id = await create(base, { title: "meteor shower" });
    expect(await ids(base, owner, "q=meteor")).toEqual([id]);
    expect((await rest(base, owner, "PATCH", `/api/notes/${id}`, { title: "rain shower" })).status).toBe(200);
    expect(await ids(base, owner, "q=meteor")).toEqual([]);
    expect(await ids(base, owner, "q=rain")).toEqual([id]);
    expect((await rest(base, owner, "DELETE", `/api/notes/${id}`)).status).toBe(204);
    expect(await ids(base, owner, "q=rain")).toEqual([]);
  });

  it("hostile or bad searches are a 400 or a normal answer, never a 500", async () => {
    const base = serve().url;
    const hostile = [
      '"',
      '""',
      "NEAR(solar panel)",
      "*",
      "solar*",
      "solar' OR 1=1 --",
      "AND OR NOT",
      "title:solar",
      "^solar",
      "-solar",
      "(solar",
      "\\",
      "😀 solar",
      "Ünïcödé",
      "é",
      "\u0301",
      "a & b | !c <-> d:*",
      "x".repeat(10_000),
    ];
    for (const q of hostile) {
      const r = await rest(base, owner, "GET", `/api/notes?q=${encodeURIComponent(q)}`);
      expect([200, 400], `${q.slice(0, 40)}: ${JSON.stringify(r.body)}`).toContain(r.status);
    }
    expect(await ids(base, owner, `q=${encodeURIComponent('"solar" NEAR')}`)).toEqual([]);
    expect(await ids(base, owner, `q=${encodeURIComponent('solar"*')}`)).toEqual(await ids(base, owner, "q=solar"));
    const empty = await rest(base, owner, "GET", "/api/notes?q=");
    expect(empty.status).toBe(400);
    expect(empty.body.detail).toMatch(/search is empty/);
    const long = await rest(base, owner, "GET", `/api/notes?q=${"x".repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect(JSON.stringify(long.body)).toMatch(/500/);
    const punct = await rest(base, owner, "GET", `/api/notes?q=${encodeURIComponent("*** !!")}`);
    expect(punct.status).toBe(400);
    expect(punct.body.detail).toMatch(/no word/);
    const tags = await rest(base, owner, "GET", "/api/tags?q=x");
    expect(tags.status).toBe(400);
    expect(JSON.stringify(tags.body)).toMatch(/'q' is not a parameter/);
    const foreign = await rest(base, owner, "GET", "/api/notes?q=solar&cursor=WzFd");
    expect(foreign.status).toBe(400);
  });

  it("MCP: the list tool takes `query`, described in its inputSchema", async () => {
    const mcp = await clientV2(serve().url, owner);
    try {
      const tools = await mcp.listTools();
      const list = tools.tools.find((t) => t.name === "note_list")!;
      const query = (list.inputSchema.properties as Record<string, { description?: string }>).query;
      expect(query?.description).toMatch(/Full-text search over title, body/);
      expect(list.description).toMatch(/`query` searches title, body for words/);
      const tagList = tools.tools.find((t) => t.name === "tag_list")!;
      expect(Object.keys(tagList.inputSchema.properties ?? {})).not.toContain("query");
      const order = await ids(serve().url, owner, "q=solar");
      const r = (await mcp.callTool({ name: "note_list", arguments: { query: "solar", limit: 2 } })) as {
        structuredContent: { items: { id: number }[]; nextCursor?: string };
      };
      expect(r.structuredContent.items.map((n) => n.id)).toEqual(order.slice(0, 2));
      const next = (await mcp.callTool({
        name: "note_list",
        arguments: { query: "solar", limit: 2, cursor: r.structuredContent.nextCursor },
      })) as { structuredContent: { items: { id: number }[] } };
      expect(next.structuredContent.items.map((n) => n.id)).toEqual(order.slice(2));
      const bad = (await mcp.callTool({ name: "note_list", arguments: { query: "" } })) as { isError?: boolean };
      expect(bad.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it("a restart keeps the index right", async () => {
    const before = await ids(serve().url, owner, "q=solar");
    const pagedBefore = await walk(serve().url, owner, "q=paging&limit=6");
    await restart();
    expect(await ids(serve().url, owner, "q=solar")).toEqual(before);
    expect(await walk(serve().url, owner, "q=paging&limit=6")).toEqual(pagedBefore);
  });
}

/** A migration adds @search to a type that holds rows: the plan names it, then the rows are found. */
export async function migrationCase(db: string[]): Promise<void> {
  const dir = writeApp("notes-migrate", { "wo.toml": toml, "app.wo": appText(false) });
  let wo: WoProcess | undefined;
  try {
    wo = await startWo([dir, ...db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    const id = await create(wo.url, { title: "an old comet note" });
    expect((await rest(wo.url, owner, "GET", "/api/notes?q=comet")).status).toBe(400);
    await wo.stop();
    wo = undefined;
    writeFileSync(join(dir, "app.wo"), appText(true));
    const plan = await runWoCommand(["migrate", dir, ...db, "--plan"], { env: ownerEnv });
    expect(plan.stdout, plan.stderr).toMatch(/new full-text index of 'Note' over 'Note.title', 'Note.body'/);
    wo = await startWo([dir, ...db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    expect(await ids(wo.url, owner, "q=comet")).toEqual([id]);
    await wo.stop();
    wo = undefined;
    // And removing it drops the index: the list takes no search again.
    writeFileSync(join(dir, "app.wo"), appText(false));
    wo = await startWo([dir, ...db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    expect((await rest(wo.url, owner, "GET", "/api/notes?q=comet")).status).toBe(400);
    expect(await ids(wo.url, owner, "")).toEqual([id]);
  } finally {
    await wo?.stop();
    removeApp(dir);
  }
}
