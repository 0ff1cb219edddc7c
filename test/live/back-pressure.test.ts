// Back-pressure of REST live streams (spec/live.md, "Limits and back-pressure"), in process on
// a real SQLite store: a stream whose client never reads fills only its own bounded queue, then
// gets a `reset` event and is closed; writers and a stream that reads are not held up.
import { expect, it } from "vitest";
import { createLiveStreams } from "../../runtime/rest/live.js";
import { field, scalar, type } from "../store/fixture.js";
import { liveStoreEach, opened } from "./live-store.js";

const note = type("Note", [field("title", scalar("Text"))], { rest: [{ path: "/api/notes", ops: ["subscribe"] }] });
const store = liveStoreEach(note);

async function readAll(body: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) into.push(decoder.decode(chunk));
}

it("a stalled stream is reset and closed at its bound; every write commits and a reading stream gets every event", async () => {
  const live = createLiveStreams(store(), () => {}, { keepAliveMs: 0, maxQueuedBytes: 300 });
  const stalled = opened(live.open(note, { where: [], catalog: { types: [note] } }, undefined));
  const reading = opened(live.open(note, { where: [], catalog: { types: [note] } }, undefined));
  const heard: string[] = [];
  const done = readAll(reading, heard);
  expect(live.openCount).toBe(2);

  for (let i = 0; i < 20; i++) await store().write((tx) => tx.insert("note", { title: `n${i}` }));
  expect(await store().read((tx) => tx.count("note"))).toBe(20);

  // The stalled stream holds its first frames, then the reset, and has ended.
  const frames: string[] = [];
  await readAll(stalled, frames);
  const text = frames.join("");
  const kept = text.match(/^event: create$/gm)?.length ?? 0;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(6); // 300 bytes hold a few events of about 75
  expect(text.length).toBeLessThan(300 + 400); // the bound, one last event and the reset
  expect(text).toMatch(/event: reset\ndata: \{"reason":"overflow"/);
  expect(text.endsWith("\n\n")).toBe(true);
  expect(live.openCount).toBe(1);

  // Events of an unfiltered stream go out together every few ms (spec/live.md): wait for them.
  const deadline = Date.now() + 5_000;
  while ((heard.join("").match(/^event: create$/gm)?.length ?? 0) < 20 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  expect(heard.join("").match(/^event: create$/gm)?.length).toBe(20);
  live.closeAll();
  await done;
  expect(live.openCount).toBe(0);
});

it("a replay waits for its reader instead of overflowing, and hands over to live events without a gap or a repeat", async () => {
  for (let i = 0; i < 30; i++) await store().write((tx) => tx.insert("note", { title: `n${i}` }));
  const live = createLiveStreams(store(), () => {}, { keepAliveMs: 0, maxQueuedBytes: 300, maxHeldChanges: 4 });
  const body = opened(live.open(note, { where: [], catalog: { types: [note] } }, 0));
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  // Read slowly while writes go on (fewer than the bound, which also bounds what a replay holds
  // back): the replay must neither overflow nor drop or repeat one.
  let wrote = 30;
  while (ids().length < 33) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
    if (wrote < 33) {
      await store().write((tx) => tx.insert("note", { title: `w${wrote}` }));
      wrote++;
    }
  }
  expect(text).not.toContain("event: reset");
  expect(ids()).toEqual(Array.from({ length: 33 }, (_, i) => i + 1));
  live.closeAll();
});
