// Traces of a real `wo run` (bin/wo.js) exported to a real OTLP/HTTP receiver: a node:http
// server in this test that accepts POST /v1/traces in the JSON encoding, as a collector would.
// The batch delay is a minute, so every span arrives only through the flush that SIGTERM's
// shutdown does. Asserted: the span tree of a REST create (request → operation → store
// transaction, one trace), the caller's `traceparent` as the request span's parent, and an MCP
// tools/call with the MCP semantic conventions (mcp.method.name, gen_ai.tool.name,
// mcp.session.id).
import { appendFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyApp, removeApp, startWo } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 });

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface Received {
  contentType: string | undefined;
  resource: Record<string, unknown>;
  spans: OtlpSpan[];
}

const attrs = (span: OtlpSpan) =>
  Object.fromEntries(
    span.attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue),
    ]),
  );

let receiver: Server;
const received: Received[] = [];
let appDir: string;
let spans: OtlpSpan[] = [];
let sessionId: string | undefined;
const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
const callerSpan = "00f067aa0ba902b7";
let createdId: number;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: OtlpValue }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of body.resourceSpans)
          received.push({
            contentType: req.headers["content-type"],
            resource: Object.fromEntries(rs.resource.attributes.map((a) => [a.key, a.value.stringValue])),
            spans: rs.scopeSpans.flatMap((s) => s.spans),
          });
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;

  appDir = copyApp("samples/hello");
  appendFileSync(`${appDir}/wo.toml`, `\n[telemetry]\notlp_endpoint = "http://127.0.0.1:${port}"\n`);
  const wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet"], {
    env: { OTEL_BSP_SCHEDULE_DELAY: "60000" },
  });
  try {
    const created = await fetch(`${wo.url}/api/greetings`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: JSON.stringify({ message: "traced" }),
    });
    expect(created.status).toBe(201);
    createdId = ((await created.json()) as { id: number }).id;
    expect((await fetch(`${wo.url}/api/greetings/${createdId}`)).status).toBe(200);

    const client = new Client({ name: "traces-test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${wo.url}/mcp`));
    await client.connect(transport);
    sessionId = transport.sessionId;
    const out = await client.callTool({ name: "greeting_create", arguments: { message: "over mcp" } });
    expect(out.isError).toBeFalsy();
    await client.close();
    expect(received).toEqual([]);
  } finally {
    expect(await wo.stop("SIGTERM")).toBe(0);
  }
  spans = received.flatMap((r) => r.spans);
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  if (appDir) removeApp(appDir);
});

const childrenOf = (parent: OtlpSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

describe("OTLP/HTTP export", () => {
  it("sends JSON with the app as the service, flushed by the SIGTERM shutdown", () => {
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]!.contentType).toMatch(/^application\/json/);
    expect(received[0]!.resource["service.name"]).toBe("hello");
    expect(received[0]!.resource["service.version"]).toBe("0.1.0");
  });
});

describe("a REST create", () => {
  it("is a server span under the caller's traceparent → the operation → the store write", () => {
    const request = spans.find((s) => s.name === "POST /api/greetings");
    expect(request).toBeDefined();
    expect(request!.traceId).toBe(callerTrace);
    expect(request!.parentSpanId).toBe(callerSpan);
    expect(request!.kind).toBe(2); // SERVER
    expect(attrs(request!)).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/api/greetings",
      "http.response.status_code": 201,
      "url.path": "/api/greetings",
    });
    const [operation] = childrenOf(request!);
    expect(operation?.name).toBe("operation greeting_create");
    expect(attrs(operation!)).toMatchObject({ "wo.operation": "greeting_create", "wo.surface": "rest" });
    const store = childrenOf(operation!).filter((s) => s.name === "store.write");
    expect(store).toHaveLength(1);
    expect(store[0]!.traceId).toBe(callerTrace);
    expect(store[0]!.kind).toBe(3); // CLIENT
    expect(attrs(store[0]!)["db.system.name"]).toBe("sqlite");
  });

  it("without a traceparent starts a trace of its own, named by the route template", () => {
    const get = spans.find((s) => s.name === "GET /api/greetings/:id");
    expect(get).toBeDefined();
    expect(get!.traceId).not.toBe(callerTrace);
    expect(get!.parentSpanId || undefined).toBeUndefined();
    expect(attrs(get!)["url.path"]).toBe(`/api/greetings/${createdId}`);
    const [operation] = childrenOf(get!);
    expect(operation?.name).toBe("operation greeting_get");
    // A read is no transaction span of its own: its time is the operation's.
    expect(childrenOf(operation!)).toEqual([]);
  });
});

describe("an MCP tools/call", () => {
  it("carries the MCP semantic conventions, under the POST /mcp span, above the operation and its write", () => {
    const call = spans.find((s) => s.name === "tools/call greeting_create");
    expect(call).toBeDefined();
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(attrs(call!)).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "greeting_create",
      "gen_ai.operation.name": "execute_tool",
      "mcp.session.id": sessionId,
      "mcp.protocol.version": "2025-11-25",
    });
    const request = spans.find((s) => s.spanId === call!.parentSpanId);
    expect(request?.name).toBe("POST /mcp");
    expect(request?.traceId).toBe(call!.traceId);
    const [operation] = childrenOf(call!);
    expect(operation?.name).toBe("operation greeting_create");
    expect(attrs(operation!)["wo.surface"]).toBe("mcp");
    expect(childrenOf(operation!).map((s) => s.name)).toEqual(["store.write"]);
    // initialize and tools/list are spans of their own; the ids are bounded, the session is not a name.
    expect(spans.some((s) => s.name === "initialize" && attrs(s)["mcp.method.name"] === "initialize")).toBe(true);
  });
});
