// The shared per-table buffer of REST live streams (spec/live.md, "Limits and back-pressure"),
// in process on a real SQLite store: streams of one table, filtered or not, are fed from one
// encoded interval; each must get exactly its events, in commit order, including commits of
// several rows and writes grouped into one COMMIT, and nothing committed before it opened.
import { expect, it } from "vitest";
import type { ListQuery } from "../../model/store.js";
import { createLiveStreams } from "../../runtime/rest/live.js";
import { field, scalar, type } from "../store/fixture.js";
import { liveStoreEach, opened } from "./live-store.js";

const note = type("Note", [field("title", scalar("Text")), field("rank", scalar("Int"))], {
  rest: [{ path: "/api/notes", ops: ["subscribe"] }],
});
const store = liveStoreEach(note);

/** Reads a stream's events as [op, title or id] while the test goes on. */
function reader(body: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let text = "";
  void (async () => {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk);
  })();
  return {
    events: () =>
      [...text.matchAll(/^event: (\w+)\nid: (\d+)\ndata: (.*)$/gm)].map((m) => {
        const data = JSON.parse(m[3]!) as { id: number; row: { title: string } | null };
        return [m[1], data.row?.title ?? data.id] as const;
      }),
    text: () => text,
  };
}

const rankAtLeast = (n: number): NonNullable<ListQuery["where"]> => [{ column: "rank", op: ">=", value: n }];

async function until(ok: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 5));
  }
}

it("unfiltered and filtered streams of one table each get their own events of multi-row and grouped commits, in order", async () => {
  const live = createLiveStreams(store(), () => {}, { keepAliveMs: 0 });
  const all = reader(opened(live.open(note, { where: [], catalog: { types: [note] } }, undefined)));
  const high = reader(opened(live.open(note, { where: rankAtLeast(5), catalog: { types: [note] } }, undefined)));
  const none = reader(opened(live.open(note, { where: rankAtLeast(100), catalog: { types: [note] } }, undefined)));

  // One commit of three rows, two of which pass; then writes queued together, so they share a COMMIT.
  await store().write(async (tx) => {
    await tx.insert("note", { title: "a", rank: 9 });
    await tx.insert("note", { title: "b", rank: 1 });
    await tx.insert("note", { title: "c", rank: 7 });
  });
  await Promise.all([
    store().write((tx) => tx.insert("note", { title: "d", rank: 2 })),
    store().write((tx) => tx.insert("note", { title: "e", rank: 6 })),
    store().write((tx) => tx.update("note", 2, { rank: 8 })),
    store().write((tx) => tx.delete("note", 1)),
  ]);
  await until(
    () => all.events().length === 7 && high.events().length === 5,
    () => `all: ${all.text()}\nhigh: ${high.text()}`,
  );
  expect(all.events()).toEqual([
    ["create", "a"],
    ["create", "b"],
    ["create", "c"],
    ["create", "d"],
    ["create", "e"],
    ["update", "b"],
    ["delete", 1],
  ]);
  expect(high.events()).toEqual([
    ["create", "a"],
    ["create", "c"],
    ["create", "e"],
    ["update", "b"],
    ["delete", 1],
  ]);
  // Only the delete passes a filter no row meets: a deleted row cannot be tested.
  await until(
    () => none.events().length === 1,
    () => none.text(),
  );
  expect(none.events()).toEqual([["delete", 1]]);

  // A stream opened now gets only what commits after it, and the others go on.
  const late = reader(opened(live.open(note, { where: rankAtLeast(0), catalog: { types: [note] } }, undefined)));
  await store().write((tx) => tx.insert("note", { title: "f", rank: 3 }));
  await until(
    () => late.events().length === 1 && all.events().length === 8,
    () => `late: ${late.text()}\nall: ${all.text()}`,
  );
  expect(late.events()).toEqual([["create", "f"]]);
  expect(high.events()).toHaveLength(5);
  live.closeAll();
});

it("a filtered stream whose client stops reading is reset at its bound; an unfiltered one reading goes on", async () => {
  const live = createLiveStreams(store(), () => {}, { keepAliveMs: 0, maxQueuedBytes: 300 });
  const stalled = opened(live.open(note, { where: rankAtLeast(0), catalog: { types: [note] } }, undefined));
  const reading = reader(opened(live.open(note, { where: [], catalog: { types: [note] } }, undefined)));
  for (let i = 0; i < 20; i++) await store().write((tx) => tx.insert("note", { title: `n${i}`, rank: i }));
  await until(
    () => reading.events().length === 20,
    () => reading.text(),
  );
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stalled as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk);
  const kept = text.match(/^event: create$/gm)?.length ?? 0;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(6);
  expect(text).toMatch(/event: reset\ndata: \{"reason":"overflow"/);
  expect(live.openCount).toBe(1);
  live.closeAll();
});
