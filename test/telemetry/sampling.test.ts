// `[telemetry] sample_ratio` on a real `wo run` exporting to a real OTLP/HTTP receiver (a
// node:http server in this test, JSON encoding): of N requests without a `traceparent`, about
// ratio × N are traced — the ratio applied once, not twice (once would keep r, twice r²) — and a
// caller's `traceparent` decides by its sampled flag, whatever the ratio. The tolerance cannot
// flake: 400 requests at 0.5 are traced 200 ± 10 times (one standard deviation); 140–260 is six
// of them, and the ratio applied twice (100 ± 9) falls outside.
import { appendFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { copyApp, removeApp, startWo } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 180_000, testTimeout: 60_000 });

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
}

let receiver: Server;
let appDir: string;
const spans: OtlpSpan[] = [];
const requests = 400;
const sampledTrace = "5bf92f3577b34da6a3ce929d0e0e4736";
const unsampledTrace = "6bf92f3577b34da6a3ce929d0e0e4736";
const callerSpan = "00f067aa0ba902b7";

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;

  appDir = copyApp("samples/hello");
  appendFileSync(
    `${appDir}/wo.toml`,
    `\n[telemetry]\notlp_endpoint = "http://127.0.0.1:${port}"\nsample_ratio = 0.5\n`,
  );
  // Every span waits for the SIGTERM flush; the queue holds them all.
  const wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet"], {
    env: { OTEL_BSP_SCHEDULE_DELAY: "60000", OTEL_BSP_MAX_QUEUE_SIZE: "10000" },
  });
  try {
    const created = await fetch(`${wo.url}/api/greetings`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${sampledTrace}-${callerSpan}-00` },
      body: JSON.stringify({ message: "sampled" }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: number }).id;
    for (let i = 0; i < requests; i++) {
      const res = await fetch(`${wo.url}/api/greetings/${id}`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    for (const [trace, flags] of [
      [sampledTrace, "01"],
      [unsampledTrace, "00"],
    ] as const)
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${wo.url}/api/greetings`, {
          headers: { traceparent: `00-${trace}-${callerSpan}-${flags}` },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
  } finally {
    expect(await wo.stop("SIGTERM")).toBe(0);
  }
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  if (appDir) removeApp(appDir);
});

describe("sample_ratio = 0.5", () => {
  it("traces about half of the requests that come without a traceparent", () => {
    const traced = spans.filter((s) => s.name === "GET /api/greetings/:id");
    // One server span per traced request, each the root of a trace of its own.
    expect(new Set(traced.map((s) => s.traceId)).size).toBe(traced.length);
    expect(traced.every((s) => !s.parentSpanId)).toBe(true);
    expect(traced.length).toBeGreaterThanOrEqual(0.35 * requests);
    expect(traced.length).toBeLessThanOrEqual(0.65 * requests);
  });

  it("follows a caller's traceparent: every sampled request traced, no unsampled one", () => {
    const lists = spans.filter((s) => s.name === "GET /api/greetings");
    expect(lists.filter((s) => s.traceId === sampledTrace)).toHaveLength(20);
    expect(lists.filter((s) => s.traceId !== sampledTrace)).toEqual([]);
    // The create came with the sampled flag off: nothing of it either.
    expect(spans.filter((s) => s.traceId === unsampledTrace || s.name === "POST /api/greetings")).toEqual([]);
  });
});
