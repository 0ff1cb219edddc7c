// One stream budget for every kind of long-lived stream (spec/security.md, "Streams and
// sessions"), against a real `wo run` whose wo.toml allows one stream: while a REST live stream
// holds it, another REST live stream, an MCP GET stream and a 2026-07-28 subscriptions/listen
// stream are each answered 503 with Retry-After and open nothing; once it closes, the slot is free.
import { expect, it } from "vitest";
import { env, initialize, modernHeaders, post as rpc, req, sessionHeaders } from "../mcp/support/raw.js";
import { rawRequest } from "../support/raw-http.js";
import { openSse, post, waitFor, withLiveApp } from "./support.js";

it("past [live] max_streams: REST live, MCP GET and subscriptions/listen get 503 + Retry-After; a closed stream frees its slot", async () => {
  await withLiveApp("stream-cap", { toml: "[live]\nmax_streams = 1" }, async (base) => {
    const note = await post(base, "/api/notes", { title: "watched" });
    const holder = await openSse(base, "/api/notes/live");
    expect(holder.status).toBe(200);

    const rest = await rawRequest(base, "GET", "/api/notes/live", { accept: "text/event-stream" });
    expect(rest.status).toBe(503);
    expect(rest.headers["retry-after"]).toMatch(/^\d+$/);
    expect(rest.headers["content-type"]).toBe("application/problem+json");
    expect(rest.json).toMatchObject({ type: "urn:wo:problem:busy", status: 503 });
    expect(rest.json.detail).toMatch(/1 streams open, its limit/);

    const { sid } = await initialize(`${base}/mcp`);
    const get = await fetch(`${base}/mcp`, { headers: { ...sessionHeaders(sid), accept: "text/event-stream" } });
    expect(get.status).toBe(503);
    expect(get.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await get.json()) as { error: { code: number } }).error.code).toBe(-32000);

    const listen = await rpc(
      `${base}/mcp`,
      req("subscriptions/listen", { notifications: { resourceSubscriptions: [`wo://note/${note.id}`] }, _meta: env }),
      modernHeaders("subscriptions/listen"),
    );
    expect(listen.status).toBe(503);
    expect(listen.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(listen.json.error.code).toBe(-32000);

    holder.close();
    let again = await openSse(base, "/api/notes/live");
    // The server sees the first stream's close a moment later.
    const started = Date.now();
    while (again.status === 503 && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      again = await openSse(base, "/api/notes/live");
    }
    expect(again.status).toBe(200);
    await post(base, "/api/notes", { title: "seen" });
    await waitFor(() => again.events.some((e) => e.event === "create"));
    again.close();
  });
});
