// REST live streams (spec/live.md, "REST live streams") against a real `wo run`, read as raw
// server-sent events over node:http: events in commit order, list filters, resuming with
// Last-Event-ID across a killed and restarted server, the retention reset, and bad input.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rawRequest } from "../support/raw-http.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import {
  del,
  liveApp,
  openSse,
  patch,
  post,
  waitFor,
  withLiveApp,
  type SseConnection,
  type SseEvent,
} from "./support.js";

vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 });

const data = (e: SseEvent) => JSON.parse(e.data!) as { op: string; id: number; row: Record<string, unknown> | null };
const changes = (s: SseConnection) => s.events.filter((e) => e.event !== "reset");

async function eventsAfter(s: SseConnection, n: number): Promise<SseEvent[]> {
  await waitFor(
    () => changes(s).length >= n,
    () => `wanted ${n} events, got: ${s.raw()}`,
  );
  return changes(s);
}

describe("GET P/live", () => {
  let appDir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    appDir = writeApp("live", liveApp);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
  });
  afterAll(async () => {
    await wo?.stop();
    removeApp(appDir);
  });

  it("is text/event-stream: one event per committed create, update and delete, in commit order, with increasing ids", async () => {
    const s = await openSse(wo.url, "/api/notes/live");
    expect(s.status).toBe(200);
    expect(s.headers["content-type"]).toBe("text/event-stream");
    const a = await post(wo.url, "/api/notes", { title: "one" });
    await patch(wo.url, `/api/notes/${a.id}`, { title: "two" });
    await del(wo.url, `/api/notes/${a.id}`);
    const events = await eventsAfter(s, 3);
    expect(events.map((e) => e.event)).toEqual(["create", "update", "delete"]);
    expect(events.map(data)).toEqual([
      { op: "create", id: a.id, row: { id: a.id, title: "one", status: "Draft", rank: 0 } },
      { op: "update", id: a.id, row: { id: a.id, title: "two", status: "Draft", rank: 0 } },
      { op: "delete", id: a.id, row: null },
    ]);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    s.close();
  });

  it("takes list filters: only changes whose row passes them (and every delete)", async () => {
    const s = await openSse(wo.url, "/api/notes/live?status=Published&rank[gte]=2");
    const skipped = await post(wo.url, "/api/notes", { title: "draft", rank: 5 });
    const kept = await post(wo.url, "/api/notes", { title: "pub", status: "Published", rank: 3 });
    await post(wo.url, "/api/notes", { title: "low", status: "Published", rank: 1 });
    await patch(wo.url, `/api/notes/${skipped.id}`, { status: "Published" });
    await del(wo.url, `/api/notes/${kept.id}`);
    const events = await eventsAfter(s, 3);
    expect(events.map((e) => [e.event, data(e).id])).toEqual([
      ["create", kept.id],
      ["update", skipped.id],
      ["delete", kept.id],
    ]);
    s.close();
  });

  it.each([
    ["a list-only parameter", "/api/notes/live?sort=-rank", {}, "/sort"],
    ["an unknown filter field", "/api/notes/live?colour=red", {}, "/colour"],
    ["an operator the field does not take", "/api/notes/live?status[gte]=Draft", {}, "/where/status/gte"],
    ["a union value that is not a variant", "/api/notes/live?status=Gone", {}, "/status"],
    [
      "a union value in a list that is not a variant",
      "/api/notes/live?status[in]=Draft,Gone",
      {},
      "/where/status/in/1",
    ],
    ["a filter value of the wrong type", "/api/notes/live?rank=lots", {}, "/rank"],
    ["a Last-Event-ID that is not a position", "/api/notes/live", { "last-event-id": "abc" }, "/Last-Event-ID"],
  ])("refuses %s with a 400 problem, opening no stream", async (_name, path, headers, errorPath) => {
    const res = await fetch(wo.url + path, { headers });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as { errors: { path: string }[] };
    expect(body.errors.map((e) => e.path)).toContain(errorPath);
  });

  it("resumes with Last-Event-ID after the server was killed and restarted: exactly the missed events, once each", async () => {
    const s = await openSse(wo.url, "/api/notes/live");
    const a = await post(wo.url, "/api/notes", { title: "seen" });
    const [seen] = await eventsAfter(s, 1);
    s.close();
    // Missed while no one listened:
    await patch(wo.url, `/api/notes/${a.id}`, { title: "missed 1" });
    const b = await post(wo.url, "/api/notes", { title: "missed 2" });
    await del(wo.url, `/api/notes/${a.id}`);
    await wo.stop("SIGKILL");
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);

    const resumed = await openSse(wo.url, "/api/notes/live", { "last-event-id": seen!.id! });
    const replayed = await eventsAfter(resumed, 3);
    expect(replayed.map((e) => [e.event, data(e).id])).toEqual([
      ["update", a.id],
      ["create", b.id],
      ["delete", a.id],
    ]);
    expect(replayed.every((e) => Number(e.id) > Number(seen!.id))).toBe(true);
    // Live events follow the replay on the same stream, none twice.
    await patch(wo.url, `/api/notes/${b.id}`, { title: "live" });
    const all = await eventsAfter(resumed, 4);
    expect(all.map((e) => e.id)).toEqual([...new Set(all.map((e) => e.id))]);
    expect(data(all[3]!)).toMatchObject({ op: "update", id: b.id, row: { title: "live" } });
    resumed.close();

    // The newest id again: nothing to replay.
    const current = await openSse(wo.url, "/api/notes/live", { "last-event-id": all[3]!.id! });
    await post(wo.url, "/api/notes", { title: "after" });
    const next = await eventsAfter(current, 1);
    expect(next.map((e) => e.event)).toEqual(["create"]);
    current.close();
  });
});

describe("retention", () => {
  it("a Last-Event-ID older than the kept changes gets a reset event (with the position to continue from), then live events", async () => {
    await withLiveApp("retained", { toml: "[live]\nretention = 3" }, async (url) => {
      for (let i = 0; i < 8; i++) await post(url, "/api/notes", { title: `n${i}` });
      const s = await openSse(url, "/api/notes/live", { "last-event-id": "1" });
      await waitFor(
        () => s.events.length >= 1,
        () => s.raw(),
      );
      expect(s.events[0]!.event).toBe("reset");
      expect(s.events[0]!.id).toBe("8");
      expect(JSON.parse(s.events[0]!.data!)).toMatchObject({ reason: "retention" });
      await post(url, "/api/notes", { title: "next" });
      await waitFor(
        () => s.events.length >= 2,
        () => s.raw(),
      );
      expect([s.events[1]!.event, s.events[1]!.id]).toEqual(["create", "9"]);
      s.close();
      // Within retention, the same server replays.
      const within = await openSse(url, "/api/notes/live", { "last-event-id": "7" });
      await waitFor(
        () => within.events.length >= 2,
        () => within.raw(),
      );
      expect(within.events.map((e) => e.id)).toEqual(["8", "9"]);
      within.close();
    });
  });
});

describe("back-pressure on a real socket", () => {
  // Under `wo run` a stream writes straight to its socket (runtime/sse.ts), so its queue is the
  // socket's buffer: a client that stops reading must still get the overflow reset at the
  // bound while writers and a reading stream go on. The kernel buffers several MiB on loopback
  // before node's own 4 MiB bound is reached, so the writes carry 20 MB of events.
  it("a client that stops reading is reset and closed; every write is answered and a reading stream gets every event", async () => {
    await withLiveApp("stalled", {}, async (url) => {
      const { port } = new URL(url);
      const stalled = connect(Number(port), "127.0.0.1");
      const received: Buffer[] = [];
      let hung = false;
      stalled.on("data", (chunk: Buffer) => {
        received.push(chunk);
        // Headers in: stop reading, as a client that hangs would.
        if (!hung && Buffer.concat(received).includes("\r\n\r\n")) {
          hung = true;
          stalled.pause();
        }
      });
      stalled.write(`GET /api/notes/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
      await waitFor(() => stalled.isPaused());
      const reading = await openSse(url, "/api/notes/live");

      const title = "x".repeat(200_000);
      const writes = 100;
      for (let i = 0; i < writes; i++) await post(url, "/api/notes", { title, rank: i });
      await waitFor(
        () => changes(reading).length >= writes,
        () => `reading stream got ${changes(reading).length} of ${writes}`,
      );
      expect(changes(reading).map((e) => data(e).row!.rank)).toEqual(Array.from({ length: writes }, (_, i) => i));

      // The stalled client now reads what the server kept for it: events, the reset, the end.
      const ended = new Promise<void>((resolve) => stalled.on("end", resolve));
      stalled.resume();
      await ended;
      const text = Buffer.concat(received).toString("utf8");
      const kept = text.match(/^event: create$/gm)?.length ?? 0;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(writes);
      expect(text).toMatch(/event: reset\ndata: \{"reason":"overflow"/);
      // Chunked framing intact to the last chunk.
      expect(text.endsWith("0\r\n\r\n")).toBe(true);
      expect(await (await fetch(`${url}/api/notes?count=true&limit=1`)).json()).toMatchObject({ total: writes });
      reading.close();
    });
  });
});

describe("the rules of every route", () => {
  // The stream's events go straight to the socket (runtime/sse.ts), but its answer starts as
  // every answer does: the Host/Origin guard and the token first, and the headers the
  // middleware sets (CORS) on the stream that is served.
  it("a live stream needs the token, refuses foreign Host and Origin, and carries the CORS headers of an admitted origin", async () => {
    const token = "live-stream-test-token";
    await withLiveApp(
      "guarded",
      {
        toml: '[server]\ntoken_env = "WO_LIVE_TOKEN"\nallowed_origins = ["https://app.example.com"]',
        env: { WO_LIVE_TOKEN: token },
      },
      async (url) => {
        const auth = { authorization: `Bearer ${token}` };
        const noToken = await rawRequest(url, "GET", "/api/notes/live");
        expect(noToken.status).toBe(401);
        expect(noToken.json).toMatchObject({ type: "urn:wo:problem:unauthorized" });
        const foreignOrigin = await rawRequest(url, "GET", "/api/notes/live", {
          ...auth,
          origin: "https://evil.example",
        });
        expect(foreignOrigin.status).toBe(403);
        const foreignHost = await rawRequest(url, "GET", "/api/notes/live", { ...auth, host: "evil.com" });
        expect(foreignHost.status).toBe(403);

        const s = await openSse(url, "/api/notes/live", { ...auth, origin: "https://app.example.com" });
        expect(s.status).toBe(200);
        expect(s.headers["content-type"]).toBe("text/event-stream");
        expect(s.headers["access-control-allow-origin"]).toBe("https://app.example.com");
        const res = await fetch(`${url}/api/notes`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ title: "guarded" }),
        });
        expect(res.status).toBe(201);
        const [event] = await eventsAfter(s, 1);
        expect(data(event!)).toMatchObject({ op: "create", row: { title: "guarded" } });
        s.close();
      },
    );
  });
});
