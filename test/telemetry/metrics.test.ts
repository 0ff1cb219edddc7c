// The admin listener of a real `wo run` (bin/wo.js, real socket, real SQLite file): after a
// known load — REST creates and reads, MCP tools/call through the official SDK client — the
// counts scraped from /metrics are the requests sent, labelled by route template and tool;
// /live and /ready answer; the public port has no /metrics; a rebinding Host is refused.
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

// `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 });

let appDir: string;
let wo: WoProcess;
let admin: string;

/** The admin URL from the banner (it comes in the same write as the public one). */
async function adminUrl(process: WoProcess): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = /admin {5}(http:\/\/\S+) /.exec(process.output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no admin line in:\n${process.output()}`);
}

/** Every sample of the exposition: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${admin}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
}

beforeAll(async () => {
  appDir = copyApp("samples/hello");
  appendFileSync(`${appDir}/wo.toml`, '\n[admin]\nlisten = "127.0.0.1:0"\n');
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet"]);
  admin = await adminUrl(wo);
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

describe("the admin listener", () => {
  it("is on its own port, and /metrics on the public port is a 404 like any unknown path", async () => {
    expect(new URL(admin).port).not.toBe(new URL(wo.url).port);
    expect(new URL(admin).hostname).toBe("127.0.0.1");
    const res = await fetch(`${wo.url}/metrics`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { type: string }).type).toBe("urn:wo:problem:route-not-found");
    for (const path of ["/live", "/ready"]) expect((await fetch(`${wo.url}${path}`)).status).toBe(404);
  });

  it("answers /live and /ready, and nothing else", async () => {
    const live = await fetch(`${admin}/live`);
    expect([live.status, await live.text()]).toEqual([200, "live\n"]);
    const ready = await fetch(`${admin}/ready`);
    expect([ready.status, await ready.text()]).toEqual([200, "ready\n"]);
    expect((await fetch(`${admin}/api/greetings`)).status).toBe(404);
    expect((await fetch(`${admin}/metrics`, { method: "POST" })).status).toBe(405);
  });

  it("refuses a Host that is not loopback (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${admin}/metrics`, { headers: { host: "rebound.example:80" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe("/metrics after a known load", () => {
  it("counts every request by route template, MCP method and tool, and operation outcome", async () => {
    const before = await scrape();
    const post = (message: string) =>
      fetch(`${wo.url}/api/greetings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
    const ids: number[] = [];
    for (const m of ["one", "two", "three"]) {
      const res = await post(m);
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: number }).id);
    }
    // 7 GETs: 5 by id (ids differ: one label, the template), 2 lists.
    for (let i = 0; i < 5; i++) expect((await fetch(`${wo.url}/api/greetings/${ids[i % 3]}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${wo.url}/api/greetings`)).status).toBe(200);
    expect((await fetch(`${wo.url}/api/greetings/999999`)).status).toBe(404);

    const client = new Client({ name: "metrics-test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${wo.url}/mcp`));
    await client.connect(transport);
    const created = await client.callTool({ name: "greeting_create", arguments: { message: "over mcp" } });
    expect(created.isError).toBeFalsy();
    const got = await client.callTool({ name: "greeting_get", arguments: { id: ids[0] } });
    expect(got.isError).toBeFalsy();
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);

    const during = await scrape();
    expect(during.get("wo_mcp_sessions")).toBe(1);
    await transport.terminateSession();
    await client.close();

    const after = await scrape();
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta('wo_http_requests_total{method="POST",route="/api/greetings",status="201"}')).toBe(3);
    expect(delta('wo_http_requests_total{method="GET",route="/api/greetings/:id",status="200"}')).toBe(5);
    expect(delta('wo_http_requests_total{method="GET",route="/api/greetings",status="200"}')).toBe(2);
    expect(delta('wo_http_requests_total{method="GET",route="/api/greetings/:id",status="404"}')).toBe(1);
    expect(delta('wo_http_request_duration_seconds_count{method="GET",route="/api/greetings/:id"}')).toBe(6);
    // No raw path with an id is ever a label.
    expect([...after.keys()].filter((k) => /route="[^"]*\d/.test(k))).toEqual([]);

    expect(delta('wo_mcp_requests_total{method="tools/call",tool="greeting_create",outcome="ok"}')).toBe(1);
    expect(delta('wo_mcp_requests_total{method="tools/call",tool="greeting_get",outcome="ok"}')).toBe(1);
    // A name no tool has is not a label of its own.
    expect(delta('wo_mcp_requests_total{method="tools/call",tool="unknown",outcome="rpc_error"}')).toBe(1);
    expect([...after.keys()].some((k) => k.includes("no_such_tool"))).toBe(false);
    expect(delta('wo_mcp_requests_total{method="tools/list",tool="",outcome="ok"}')).toBe(0);

    // Operations: REST and MCP alike; errors by kind.
    expect(delta('wo_operations_total{operation="greeting_create",outcome="ok"}')).toBe(4);
    expect(delta('wo_operations_total{operation="greeting_get",outcome="ok"}')).toBe(6);
    expect(delta('wo_operations_total{operation="greeting_get",outcome="not_found"}')).toBe(1);
    expect(delta('wo_operations_total{operation="greeting_list",outcome="ok"}')).toBe(2);

    // The 4 creates are 4 writes of one row each.
    expect(delta("wo_store_write_duration_seconds_count")).toBe(4);
    expect(delta("wo_store_write_rows_count")).toBe(4);
    expect(delta("wo_store_write_rows_sum")).toBe(4);

    expect(after.get("wo_operations_running")).toBe(0);
    expect(after.get("wo_operations_queued")).toBe(0);
    expect(after.get("wo_streams_open")).toBe(0);
    expect(after.get("wo_mcp_sessions")).toBe(0);
    // SQLite has no pool; nothing has been rate limited (the counter is there, with no samples).
    expect([...after.keys()].some((k) => k.startsWith("wo_store_pool"))).toBe(false);
    expect([...after.keys()].some((k) => k.startsWith("wo_rate_limited_total"))).toBe(false);
    expect(after.get("process_cpu_seconds_total")).toBeGreaterThan(0);

    const publicMetrics = 'wo_http_requests_total{method="GET",route="other",status="404"}';
    await fetch(`${wo.url}/metrics`);
    expect(((await scrape()).get(publicMetrics) ?? 0) - (after.get(publicMetrics) ?? 0)).toBe(1);
  });
});
