// Session table and SSE stream bounds (spec/mcp.md, "Session limits"): a reader that stops
// reading fills only its own bounded queue, and its stream is closed rather than buffering
// without end; other streams keep flowing. Session ids are unique and random.
import { describe, expect, it } from "vitest";
import { createSessionTable, createSseStream } from "../../runtime/mcp/sessions.js";

describe("SSE streams", () => {
  it("a stream nobody reads closes once its queue is full; a read stream keeps going", async () => {
    const stalled = createSseStream({ keepAliveMs: 0, maxQueuedFrames: 4 });
    const live = createSseStream({ keepAliveMs: 0, maxQueuedFrames: 4 });
    const reader = live.response.getReader();
    const sent: boolean[] = [];
    for (let i = 0; i < 10; i++) {
      sent.push(stalled.send(`event: message\ndata: ${i}\n\n`));
      expect(live.send(`event: message\ndata: ${i}\n\n`)).toBe(true);
      await reader.read();
    }
    expect(sent.filter(Boolean).length).toBe(4);
    expect(stalled.closed).toBe(true);
    expect(live.closed).toBe(false);
    live.close();
  });
  it("a cancelled reader releases the stream", async () => {
    let closed = 0;
    const s = createSseStream({ keepAliveMs: 0, maxQueuedFrames: 4, onClose: () => closed++ });
    await s.response.cancel();
    expect(s.closed).toBe(true);
    expect(s.send("x")).toBe(false);
    expect(closed).toBe(1);
  });
});

describe("session table", () => {
  it("mints unique 128-bit hex ids; end() aborts calls in flight and closes the stream", () => {
    const table = createSessionTable({ maxSessions: 100, idleMs: 60_000 });
    const ids = new Set(Array.from({ length: 50 }, () => table.create("2025-11-25").id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    const s = table.create("2025-11-25");
    const ac = new AbortController();
    s.pending.set(1, ac);
    s.getStream = createSseStream({ keepAliveMs: 0, maxQueuedFrames: 4 });
    expect(table.end(s.id)).toBe(true);
    expect(ac.signal.aborted).toBe(true);
    expect(s.getStream.closed).toBe(true);
    expect(table.get(s.id)).toBeUndefined();
    expect(table.end(s.id)).toBe(false);
  });
  it("stays bounded: beyond maxSessions the least recently used session goes", () => {
    const table = createSessionTable({ maxSessions: 3, idleMs: 60_000 });
    const a = table.create("2025-11-25");
    const b = table.create("2025-11-25");
    const c = table.create("2025-11-25");
    table.get(a.id);
    table.create("2025-11-25");
    expect(table.size).toBe(3);
    expect(table.get(b.id)).toBeUndefined();
    expect(table.get(a.id)).toBeDefined();
    expect(table.get(c.id)).toBeDefined();
  });
});
