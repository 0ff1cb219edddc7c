// REST live streams (spec/live.md, "REST live streams") against a real `wo run`, read as raw
// server-sent events over node:http: events in commit order, list filters, resuming with
// Last-Event-ID across a killed and restarted server, the retention reset, and bad input.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { del, liveApp, openSse, patch, post, waitFor, type SseConnection, type SseEvent } from "./support.js";

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
    ["a union value in a list that is not a variant", "/api/notes/live?status[in]=Draft,Gone", {}, "/where/status/in"],
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
    const appDir = writeApp("retained", liveApp);
    appendFileSync(join(appDir, "wo.toml"), "\n[live]\nretention = 3\n");
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    try {
      for (let i = 0; i < 8; i++) await post(wo.url, "/api/notes", { title: `n${i}` });
      const s = await openSse(wo.url, "/api/notes/live", { "last-event-id": "1" });
      await waitFor(
        () => s.events.length >= 1,
        () => s.raw(),
      );
      expect(s.events[0]!.event).toBe("reset");
      expect(s.events[0]!.id).toBe("8");
      expect(JSON.parse(s.events[0]!.data!)).toMatchObject({ reason: "retention" });
      await post(wo.url, "/api/notes", { title: "next" });
      await waitFor(
        () => s.events.length >= 2,
        () => s.raw(),
      );
      expect([s.events[1]!.event, s.events[1]!.id]).toEqual(["create", "9"]);
      s.close();
      // Within retention, the same server replays.
      const within = await openSse(wo.url, "/api/notes/live", { "last-event-id": "7" });
      await waitFor(
        () => within.events.length >= 2,
        () => within.raw(),
      );
      expect(within.events.map((e) => e.id)).toEqual(["8", "9"]);
      within.close();
    } finally {
      await wo.stop();
      removeApp(appDir);
    }
  });
});
