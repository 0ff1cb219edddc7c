// A streamed answer in /metrics (spec/operations.md, "Metrics"): a REST live stream (server-sent
// events, a real `wo run` and a raw node:http client) is one request, counted once, when it
// ends — not while it is open, not again later — with its lifetime as its duration.
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { liveApp, openSse, post, waitFor } from "../live/support.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 });

let appDir: string;
let wo: WoProcess;
let admin: string;

async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${admin}/metrics`);
  expect(res.status).toBe(200);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

beforeAll(async () => {
  appDir = writeApp("stream-metrics", liveApp);
  appendFileSync(`${appDir}/wo.toml`, '\n[admin]\nlisten = "127.0.0.1:0"\n');
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet"]);
  for (let i = 0; i < 100 && !admin; i++) {
    const m = /admin {5}(http:\/\/\S+) /.exec(wo.output());
    if (m) admin = m[1]!;
    else await new Promise((r) => setTimeout(r, 50));
  }
  expect(admin).toBeDefined();
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

describe("a live stream", () => {
  it("is counted once, when it ends, with its lifetime as its duration", async () => {
    const count = 'wo_http_requests_total{method="GET",route="/api/notes/live",status="200"}';
    const seconds = 'wo_http_request_duration_seconds_sum{method="GET",route="/api/notes/live"}';
    const before = await scrape();
    const s = await openSse(wo.url, "/api/notes/live");
    expect(s.status).toBe(200);
    await post(wo.url, "/api/notes", { title: "one" });
    await waitFor(
      () => s.events.some((e) => e.event === "create"),
      () => s.raw(),
    );
    const opened = performance.now();
    const during = await scrape();
    expect(during.get("wo_streams_open")).toBe(1);
    expect(during.get(count) ?? 0).toBe(before.get(count) ?? 0);
    await new Promise((r) => setTimeout(r, 400));
    s.close();
    const lifetime = (performance.now() - opened) / 1000;

    let after = await scrape();
    for (let i = 0; i < 100 && (after.get(count) ?? 0) === (before.get(count) ?? 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape();
    }
    expect((after.get(count) ?? 0) - (before.get(count) ?? 0)).toBe(1);
    expect(after.get(seconds)! - (before.get(seconds) ?? 0)).toBeGreaterThanOrEqual(lifetime);
    expect(after.get("wo_streams_open")).toBe(0);
    // The create it saw is a request of its own; the stream is not counted again later.
    expect(
      (after.get('wo_http_requests_total{method="POST",route="/api/notes",status="201"}') ?? 0) -
        (before.get('wo_http_requests_total{method="POST",route="/api/notes",status="201"}') ?? 0),
    ).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect((await scrape()).get(count)).toBe(after.get(count));
  });
});
