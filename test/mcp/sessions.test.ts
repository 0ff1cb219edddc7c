// Session table and SSE stream bounds (spec/mcp.md, "Session limits"): a reader that stops
// reading fills only its own bounded queue, and its stream is closed rather than buffering
// without end; other streams keep flowing. Session ids are unique and random. Sessions nobody
// has used since initialize live in their own bounded pool, so a flood of them cannot evict a
// session in use (the same against a real `wo run`: test/security/mcp-protocol.test.ts).
import { describe, expect, it } from "vitest";
import { createSessionTable } from "../../runtime/mcp/sessions.js";
import { createSseStream } from "../../runtime/sse.js";

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
    const table = createSessionTable({ maxSessions: 100, maxUnusedSessions: 100, idleMs: 60_000 });
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
  it("a flood of new sessions evicts only sessions never used since initialize", () => {
    const table = createSessionTable({ maxSessions: 3, maxUnusedSessions: 3, idleMs: 60_000 });
    const active = table.create("2025-11-25");
    table.get(active.id);
    const flood = Array.from({ length: 50 }, () => table.create("2025-11-25"));
    expect(table.size).toBe(4);
    expect(table.get(active.id)).toBe(active);
    expect(table.get(flood[0]!.id)).toBeUndefined();
    expect(table.get(flood[46]!.id)).toBeUndefined();
    for (const s of flood.slice(47)) expect(table.get(s.id)).toBe(s);
  });
  it("sessions in use stay bounded: the least recently used goes, one with a stream or a call in flight last", () => {
    const table = createSessionTable({ maxSessions: 3, maxUnusedSessions: 3, idleMs: 60_000 });
    const use = () => {
      const s = table.create("2025-11-25");
      table.get(s.id);
      return s;
    };
    const streaming = use();
    streaming.getStream = createSseStream({ keepAliveMs: 0, maxQueuedFrames: 4 });
    const calling = use();
    calling.pending.set(1, new AbortController());
    const idle = use();
    const fourth = use();
    expect(table.size).toBe(3);
    expect(table.get(idle.id)).toBeUndefined();
    expect(table.get(streaming.id)).toBe(streaming);
    expect(table.get(calling.id)).toBe(calling);
    expect(table.get(fourth.id)).toBe(fourth);
    // With every session busy, the least recently used goes all the same: the pool stays bounded.
    fourth.pending.set(2, new AbortController());
    const fifth = use();
    expect(table.size).toBe(3);
    expect(table.get(streaming.id)).toBeUndefined();
    expect(streaming.getStream.closed).toBe(true);
    expect(table.get(fifth.id)).toBe(fifth);
    table.closeAll();
  });
});
