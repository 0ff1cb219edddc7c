// Rate limits end to end (spec/operations.md, "Rate limits"): a real `wo run` with
// `[limits] reads_per_minute` and friends, callers identified by named tokens made with
// `wo token add`, raw HTTP and the official MCP SDK clients (v1 and v2). What a user observes:
// a caller past its bucket gets 429 with Retry-After (REST) or a "Rate limited" error (MCP)
// while another caller is unaffected; reads, writes and method calls have buckets of their
// own; the owner is not limited; refused writes and calls are in the audit trail; and two
// instances on one PostgreSQL database share each caller's bucket.

import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ownerToken = "owner-token-for-the-rate-limit-test";
const app = (limits: string) => ({
  "wo.toml": `name = "tasks"\n[server]\ntoken_env = "RL_OWNER_TOKEN"\n[admin]\nlisten = "127.0.0.1:0"\n[limits]\nmethod_steps = 100000\n${limits}`,
  "app.wo": `class Task {
  id: Id
  title: Text

  fn double(n: Int) -> Int {
    return n * 2
  }

  fn retitle(title: Text) {
    update Task{ id == self.id }.title = title
  }

  on create do emit "task.added"(self.id)

  service rest "/api/tasks" expose list, get, create, double, retitle
  service mcp "/mcp" expose list, get, create, double, retitle
}
`,
});
const env = { RL_OWNER_TOKEN: ownerToken };

/** `wo token add NAME …`: the token, the last line of its stdout. */
async function addToken(name: string, args: string[]): Promise<string> {
  const r = await runWoCommand(["token", "add", name, ...args, "--role", "agent"]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trimEnd().split("\n").at(-1)!;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function send(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A 429 as a user sees it: Retry-After in whole seconds within the bucket's refill, and the problem. */
function expectRateLimited(r: Awaited<ReturnType<typeof send>>, maxWait: number, what: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(429);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  const wait = Number(r.headers.get("retry-after"));
  expect(Number.isInteger(wait)).toBe(true);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(maxWait);
  expect(r.body).toMatchObject({ type: "urn:wo:problem:rate-limited", title: "Rate limited", status: 429 });
  expect(r.body.detail).toBe(
    `retry in ${wait} s: each caller may make ${what} a minute, and this one made them; nothing ran.`,
  );
}

describe("rate limits on a serving SQLite app", () => {
  let appDir: string;
  let wo: WoProcess;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    appDir = writeApp("tasks", app("reads_per_minute = 5\nwrites_per_minute = 3\ncalls_per_minute = 2\n"));
    for (const name of ["alice", "bob", "carol", "dave", "erin"]) tokens[name] = await addToken(name, [appDir]);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"], { env });
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  it("a caller past its reads gets 429 with Retry-After while another caller is unaffected", async () => {
    const task = await send(wo.url, ownerToken, "POST", "/api/tasks", { title: "first" });
    expect(task.status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await send(wo.url, tokens.alice!, "GET", "/api/tasks")).status).toBe(200);
    // 5 a minute: the next token is at most 12 s away.
    expectRateLimited(await send(wo.url, tokens.alice!, "GET", `/api/tasks/${task.body.id}`), 12, "5 reads");
    expect((await send(wo.url, tokens.bob!, "GET", "/api/tasks")).status).toBe(200);
    // The owner is not limited.
    for (let i = 0; i < 12; i++) expect((await send(wo.url, ownerToken, "GET", "/api/tasks")).status).toBe(200);
    // A refusal is no crash: the server answers on, and the log has no failure.
    expect(wo.output()).not.toMatch(/unexpected|internal/i);
    // Counted in the metrics of the admin listener.
    const admin = /admin {5}(http:\/\/\S+) /.exec(wo.output())?.[1];
    expect(admin, wo.output()).toBeDefined();
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    expect(metrics).toMatch(/^wo_rate_limited_total\{kind="reads"\} 1$/m);
  });

  it("writes and method calls have buckets of their own; their refusals are in the audit trail, nothing ran", async () => {
    // alice's reads are spent; her writes are not.
    for (let i = 0; i < 3; i++)
      expect((await send(wo.url, tokens.alice!, "POST", "/api/tasks", { title: `a${i}` })).status).toBe(201);
    expectRateLimited(await send(wo.url, tokens.alice!, "POST", "/api/tasks", { title: "a3" }), 20, "3 writes");
    const id = (await send(wo.url, ownerToken, "GET", "/api/tasks?title=a0")).body.items[0].id;
    expect((await send(wo.url, tokens.alice!, "POST", `/api/tasks/${id}/double`, { n: 21 })).body).toBe(42);
    expect((await send(wo.url, tokens.alice!, "POST", `/api/tasks/${id}/retitle`, { title: "b" })).status).toBe(200);
    expectRateLimited(
      await send(wo.url, tokens.alice!, "POST", `/api/tasks/${id}/retitle`, { title: "c" }),
      30,
      "2 method calls",
    );
    // Nothing of the refused calls ran.
    const titles = (await send(wo.url, ownerToken, "GET", "/api/tasks")).body.items.map((t: any) => t.title);
    expect(titles).toEqual(["first", "b", "a1", "a2"]);

    const trail = await send(wo.url, ownerToken, "GET", "/_wo/audit");
    expect(trail.status).toBe(200);
    const seen = trail.body.items
      .filter((e: any) => e.principal === "alice")
      .map((e: any) => [e.principal, e.operation, e.outcome]);
    expect(seen).toEqual([
      ["alice", "task_create", "ok"],
      ["alice", "task_create", "ok"],
      ["alice", "task_create", "ok"],
      ["alice", "task_create", "rate_limited"],
      ["alice", "task_retitle", "ok"],
      ["alice", "task_retitle", "rate_limited"],
    ]);
  });

  it("MCP tools/call answers a 'Rate limited' tool error with the wait, on both SDKs", async () => {
    const v1 = new ClientV1({ name: "v1", version: "1" });
    await v1.connect(new TransportV1(new URL(`${wo.url}/mcp`), { requestInit: { headers: bearer(tokens.carol!) } }));
    for (let i = 0; i < 5; i++) expect((await v1.callTool({ name: "task_list", arguments: {} })).isError).toBeFalsy();
    const refused = await v1.callTool({ name: "task_list", arguments: {} });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toMatch(
      /^Rate limited: retry in ([1-9]|1[0-2]) s: each caller may make 5 reads a minute/,
    );
    // Listing tools is not limited.
    expect((await v1.listTools()).tools.length).toBeGreaterThan(0);
    await v1.close();

    const v2 = new ClientV2({ name: "v2", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await v2.connect(new TransportV2(new URL(`${wo.url}/mcp`), { requestInit: { headers: bearer(tokens.dave!) } }));
    const id = (await send(wo.url, ownerToken, "GET", "/api/tasks")).body.items[0].id;
    for (let i = 0; i < 5; i++) expect((await v2.readResource({ uri: `wo://task/${id}` })).contents).toHaveLength(1);
    // resources/read is a read too: past the bucket, a JSON-RPC error saying so.
    await expect(v2.readResource({ uri: `wo://task/${id}` })).rejects.toThrow(/Rate limited: retry in \d+ s/);
    const made = await v2.callTool({ name: "task_create", arguments: { title: "from dave" } });
    expect(made.isError).toBeFalsy();
    await v2.close();
  });

  it("reading the application events (wo://events) spends reads like a row's resources/read", async () => {
    expect((await send(wo.url, ownerToken, "POST", "/api/tasks", { title: "evented" })).status).toBe(201);
    const v1 = new ClientV1({ name: "v1", version: "1" });
    await v1.connect(new TransportV1(new URL(`${wo.url}/mcp`), { requestInit: { headers: bearer(tokens.erin!) } }));
    for (let i = 0; i < 5; i++) {
      const read = await v1.readResource({ uri: "wo://events" });
      expect(JSON.parse((read.contents[0] as { text: string }).text).events.length).toBeGreaterThan(0);
    }
    await expect(v1.readResource({ uri: "wo://events" })).rejects.toThrow(/Rate limited: retry in \d+ s/);
    // Another caller's bucket is its own.
    expect((await send(wo.url, tokens.bob!, "GET", "/api/tasks")).status).toBe(200);
    await v1.close();
  });
});

describe("rate limits on PostgreSQL, shared by two instances", () => {
  let server: PostgresServer;
  const running: WoProcess[] = [];
  const apps: string[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    for (const wo of running) await wo.stop();
    for (const dir of apps) removeApp(dir);
    await server?.stop();
  });

  it("3 reads on one instance and 3 on the other with a limit of 5: the 6th is refused", async () => {
    const url = await server.createDatabase();
    const files = app("reads_per_minute = 5\n");
    apps.push(writeApp("tasks", files), writeApp("tasks", files));
    const token = await addToken("ci", [apps[0]!, "--db", url]);
    const other = await addToken("other", [apps[0]!, "--db", url]);
    const [a, b] = await Promise.all(
      apps.map(async (dir) => {
        const wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0"], { env });
        running.push(wo);
        return wo;
      }),
    );
    for (let i = 0; i < 3; i++) expect((await send(a!.url, token, "GET", "/api/tasks")).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await send(b!.url, token, "GET", "/api/tasks")).status).toBe(200);
    expectRateLimited(await send(b!.url, token, "GET", "/api/tasks"), 12, "5 reads");
    expectRateLimited(await send(a!.url, token, "GET", "/api/tasks"), 12, "5 reads");
    expect((await send(b!.url, other, "GET", "/api/tasks")).status).toBe(200);
  });
});
