// Named tokens end to end (spec/operations.md, "Tokens"; spec/security.md, "Principals"): real
// `wo token` commands on the database of a real `wo run` while it serves, raw HTTP, the official
// MCP SDK clients (v1 and v2). What a user observes: with no identity configured every caller
// is the owner; the first `wo token add` makes a request without credentials anonymous (401 with
// the challenge); the token's principal is the caller the request log names; an unknown or
// revoked token is 401; and on PostgreSQL a revoke counts on another instance without a restart.

import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { waitFor } from "../live/support.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const tasks = {
  "wo.toml": 'name = "tasks"\n',
  "app.wo": `type Task {
  id: Id
  title: Text
  service rest "/api/tasks" expose list, get, create
  service mcp "/mcp" expose list, create
}
`,
};
const tokenLine = /^wo_[A-Za-z0-9_-]{43}$/;

/** The new token: the last line of `wo token add`'s stdout, alone. */
async function addToken(args: string[]): Promise<string> {
  const r = await runWoCommand(["token", "add", ...args]);
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines.at(-1)).toMatch(tokenLine);
  // Printed once: nowhere but on that line.
  expect(lines.slice(0, -1).join("\n")).not.toContain(lines.at(-1));
  return lines.at(-1)!;
}

/**
 * GETs `url` without credentials every 100 ms until it answers `status` or 5 s pass (a running
 * server counts its tokens once a second); the last answer either way.
 */
async function answerWithin(url: string, status: number): Promise<Response> {
  let answer = await fetch(url);
  for (const deadline = Date.now() + 5_000; answer.status !== status && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 100));
    answer = await fetch(url);
  }
  return answer;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Lines the server printed after `from` that match `pattern`, once one does. */
async function logged(wo: WoProcess, from: number, pattern: RegExp): Promise<string> {
  let line: string | undefined;
  await waitFor(
    () =>
      (line = wo
        .output()
        .slice(from)
        .split("\n")
        .find((l) => pattern.test(l))) !== undefined,
    () => `no line matching ${pattern} in:\n${wo.output().slice(from)}`,
  );
  return line!;
}

describe("named tokens on a serving SQLite app", () => {
  let appDir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    appDir = writeApp("tasks", tasks);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  it("no identity configured: every local caller is the owner, and the banner says so", async () => {
    expect(wo.output()).toMatch(/identity {2}none configured — every local caller is the owner/);
    const from = wo.output().length;
    expect((await fetch(`${wo.url}/api/tasks`)).status).toBe(200);
    // Any Authorization header is ignored, as before identities existed.
    expect((await fetch(`${wo.url}/api/tasks`, { headers: bearer("wo_whatever") })).status).toBe(200);
    expect(await logged(wo, from, /GET \/api\/tasks 200/)).toMatch(/ by owner$/);
  });

  it("add, use over REST and both MCP SDKs, list, refuse duplicates and bad names, revoke", async () => {
    const token = await addToken(["claude", appDir, "--role", "agent", "--user", "u-17"]);

    // The first token configures identity: within a second, no credentials means anonymous → 401.
    const anonymous = await answerWithin(`${wo.url}/api/tasks`, 401);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="wo"');
    expect(anonymous.headers.get("content-type")).toBe("application/problem+json");
    expect(await anonymous.json()).toMatchObject({ type: "urn:wo:problem:unauthorized", status: 401 });
    // What holds no data stays reachable.
    expect((await fetch(`${wo.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${wo.url}/`, { headers: { accept: "text/html" } })).status).toBe(200);

    const from = wo.output().length;
    const created = await fetch(`${wo.url}/api/tasks`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ title: "from claude" }),
    });
    expect(created.status).toBe(201);
    expect(await logged(wo, from, /POST \/api\/tasks 201/)).toMatch(/ by claude$/);

    const v1 = new ClientV1({ name: "v1", version: "1" });
    await v1.connect(new TransportV1(new URL(`${wo.url}/mcp`), { requestInit: { headers: bearer(token) } }));
    const listed = await v1.callTool({ name: "task_list", arguments: {} });
    expect((listed.structuredContent as { items: unknown[] }).items).toHaveLength(1);
    await v1.close();
    expect(await logged(wo, from, /POST \/mcp tools\/call task_list 200/)).toMatch(/ by claude$/);

    const v2 = new ClientV2({ name: "v2", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await v2.connect(new TransportV2(new URL(`${wo.url}/mcp`), { requestInit: { headers: bearer(token) } }));
    const made = await v2.callTool({ name: "task_create", arguments: { title: "from v2" } });
    expect(made.isError).toBeFalsy();
    await v2.close();
    expect(await logged(wo, from, /POST \/mcp tools\/call task_create 200/)).toMatch(/ by claude$/);

    // Without a token the SDK is refused with 401.
    const stranger = new ClientV1({ name: "stranger", version: "1" });
    await expect(stranger.connect(new TransportV1(new URL(`${wo.url}/mcp`)))).rejects.toThrow(/401|nauthorized/);

    const list = await runWoCommand(["token", "list", appDir, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout);
    expect(rows).toEqual([
      { name: "claude", role: "agent", user: "u-17", createdAt: expect.any(String), lastUsed: expect.any(String) },
    ]);
    expect(list.stdout).not.toContain(token);
    const table = await runWoCommand(["token", "list", appDir]);
    expect(table.stdout).toMatch(/^NAME {2,}ROLE {2,}USER {2,}CREATED {2,}LAST USED\nclaude {2,}agent {2,}u-17 /);
    expect(table.stdout).not.toContain(token);

    const again = await runWoCommand(["token", "add", "claude", appDir, "--role", "agent"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("a token named 'claude' exists already");
    expect(again.stdout).not.toMatch(/wo_/);
    for (const [args, message] of [
      [["Claude Code", appDir, "--role", "agent"], "is not a token name"],
      [["owner", appDir, "--role", "agent"], "'owner' is the name of a principal wo gives itself"],
      [["ci", appDir], "--role ROLE is required"],
      [["ci", appDir, "--role", "Admin!"], "is not a role"],
    ] as const) {
      const r = await runWoCommand(["token", "add", ...args]);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stderr).toContain(message);
    }

    // An unknown token is 401 with the challenge, on REST and on /mcp.
    const unknown = `wo_${"x".repeat(43)}`;
    const rest = await fetch(`${wo.url}/api/tasks`, { headers: bearer(unknown) });
    expect(rest.status).toBe(401);
    expect(rest.headers.get("www-authenticate")).toBe('Bearer realm="wo"');
    expect(((await rest.json()) as { detail: string }).detail).toMatch(/unknown or was revoked/);
    const mcp = await fetch(`${wo.url}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(unknown),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toBe('Bearer realm="wo"');

    // A second token keeps identities configured once `claude` is revoked: with none left, the
    // server's next count (within a second) makes every local caller the owner again, and on a
    // slow machine that count can land before the next request (spec/security.md "Principals").
    await addToken(["keeper", appDir, "--role", "agent"]);
    const revoked = await runWoCommand(["token", "revoke", "claude", appDir]);
    expect(revoked.code, revoked.stderr).toBe(0);
    // At once: the next request is refused.
    expect((await fetch(`${wo.url}/api/tasks`, { headers: bearer(token) })).status).toBe(401);
    const gone = await runWoCommand(["token", "revoke", "claude", appDir]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("there is no token named 'claude'");
    // Adding and revoking are writes: each has its audit entry, the owner's, from the CLI; the
    // refused second revoke changed nothing and has none.
    const audit = JSON.parse((await runWoCommand(["audit", appDir, "--json"])).stdout) as Record<string, unknown>[];
    expect(audit.filter((e) => e.surface === "cli").map((e) => [e.operation, e.principal])).toEqual([
      ["(token add) claude", "owner"],
      ["(token add) keeper", "owner"],
      ["(token revoke) claude", "owner"],
    ]);

    // The last revoke: within a second, no identity is configured and every local caller is the owner.
    expect((await runWoCommand(["token", "revoke", "keeper", appDir])).code).toBe(0);
    expect((await answerWithin(`${wo.url}/api/tasks`, 200)).status).toBe(200);
  });
});

describe("named tokens on PostgreSQL, shared by two instances", () => {
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

  it("a token added once works on both; revoked, the second instance refuses it without a restart", async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all(
      [0, 1].map(async () => {
        const dir = writeApp("tasks", tasks);
        apps.push(dir);
        const wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0"]);
        running.push(wo);
        return wo;
      }),
    );
    const token = await addToken(["ci", apps[0]!, "--db", url, "--role", "agent"]);
    // A second token keeps identities configured once `ci` is revoked (with none left, every
    // local caller would be the owner again, spec/security.md "Principals").
    await addToken(["keeper", apps[0]!, "--db", url, "--role", "agent"]);
    for (const wo of [a!, b!]) {
      const from = wo.output().length;
      expect((await fetch(`${wo.url}/api/tasks`, { headers: bearer(token) })).status).toBe(200);
      expect(await logged(wo, from, /GET \/api\/tasks 200/)).toMatch(/ by ci$/);
    }
    const revoked = await runWoCommand(["token", "revoke", "ci", apps[1]!, "--db", url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await fetch(`${b!.url}/api/tasks`, { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fetch(`${a!.url}/api/tasks`, { headers: bearer(token) })).status).toBe(401);
    expect(a!.output() + b!.output()).not.toContain(token);
    const audit = JSON.parse((await runWoCommand(["audit", apps[0]!, "--db", url, "--json"])).stdout) as {
      operation: string;
    }[];
    expect(audit.map((e) => e.operation).filter((o) => o.startsWith("(token"))).toEqual([
      "(token add) ci",
      "(token add) keeper",
      "(token revoke) ci",
    ]);
  });
});
