// Several `wo run` instances on one PostgreSQL database (spec/storage.md, "PostgreSQL"): real
// processes, a real server started by the test (test/support/postgres.ts), plain HTTP. What a
// user behind a load balancer observes: a write acknowledged by one instance is read on the
// other, a unique value is taken once however the creates are spread, money is conserved under
// concurrent transfers on both, and SIGKILL of one instance loses no acknowledged write.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { liveApp, openSse, patch, waitFor } from "../live/support.js";
import { mcpClient, openTwoAccounts, post, transfersUntilKilled } from "../methods/wo-process.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { copyApp, removeApp, runToExit, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const members = {
  "app.wo": `type Member {
  id: Id
  name: Text
  email: Email @unique
  service rest "/api/members" expose list, get, create
}
`,
};

let server: PostgresServer;
const running: WoProcess[] = [];
const apps: string[] = [];

/** `wo run <copy of app> --db <url>` on a free port; each instance has its own copy (and build). */
async function instance(app: () => string, url: string, env: Record<string, string> = {}): Promise<WoProcess> {
  const dir = app();
  apps.push(dir);
  const wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0"], { env });
  running.push(wo);
  return wo;
}

async function rows(url: string, sql: string): Promise<any[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

describe("two wo run instances on one PostgreSQL database", () => {
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    for (const wo of running.splice(0)) await wo.stop();
    for (const dir of apps.splice(0)) removeApp(dir);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("a row created on A is read on B at once; one unique value raced across both is taken once", async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([
      instance(() => writeApp("members", members), url),
      instance(() => writeApp("members", members), url),
    ]);
    expect(a.output()).toMatch(/database {2}postgres:\/\/wo:\*\*\*@127\.0\.0\.1:\d+\/wo_test_/);
    expect(a.output()).not.toContain("wo-test-secret");
    for (let i = 0; i < 10; i++) {
      const created = await post(a.url, "/api/members", { name: `M${i}`, email: `m${i}@x.org` });
      expect(created.status).toBe(201);
      const got = await fetch(`${b.url}/api/members/${created.body.id}`);
      expect(got.status).toBe(200);
      expect(await got.json()).toEqual(created.body);
    }
    const race = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(i % 2 ? a.url : b.url, "/api/members", { name: `R${i}`, email: i % 3 ? "Same@x.org" : "same@X.org" }),
      ),
    );
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(19);
    expect(race.find((r) => r.status === 409)!.body.errors).toEqual([
      { path: "/email", message: "is already taken by another row" },
    ]);
    expect(await rows(url, `SELECT count(*)::int AS n FROM "member" WHERE lower(email) = 'same@x.org'`)).toEqual([
      { n: 1 },
    ]);
    const health = await fetch(`${b.url}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
  });

  it("an MCP client (2025 era, with a session) whose requests alternate between the instances keeps its session; DELETE on one ends it on both", async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([
      instance(() => writeApp("members", members), url),
      instance(() => writeApp("members", members), url),
    ]);
    // Every request the official SDK client makes goes to the other instance than the last.
    const hosts = [new URL(a.url).host, new URL(b.url).host];
    const seen: string[] = [];
    let turn = 0;
    const alternate = (input: string | URL | Request, init?: RequestInit) => {
      const target = new URL(String(input instanceof Request ? input.url : input));
      target.host = hosts[turn++ % 2]!;
      seen.push(target.host);
      return fetch(target, init);
    };
    const client = new Client({ name: "wo-pg-test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternate });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    // 128 random bits, when it was minted, the version, and the database key's signature (spec/mcp.md).
    expect(sessionId).toMatch(/^[0-9a-f]{32}\.[0-9a-z]+\.2025-11-25\.[A-Za-z0-9_-]{22}$/);
    for (let i = 0; i < 4; i++) {
      const created = await client.callTool({
        name: "member_create",
        arguments: { name: `M${i}`, email: `m${i}@x.org` },
      });
      expect(created.isError).toBeFalsy();
    }
    const listed = await client.callTool({ name: "member_list", arguments: {} });
    expect(JSON.stringify(listed.structuredContent ?? listed.content)).toContain("m3@x.org");
    expect(new Set(seen)).toEqual(new Set(hosts));
    // DELETE on one instance; the session is gone on both.
    await transport.terminateSession();
    for (const base of [a.url, b.url]) {
      const r = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(r.status).toBe(404);
    }
    await client.close();
  });

  it("a session its client abandons ends on every instance once idle; one kept busy by a GET stream, or in use, does not", async () => {
    const url = await server.createDatabase();
    // Sessions may sit unused 3 s here instead of an hour (a test hook: spec/mcp.md).
    const env = { WO_MCP_SESSION_IDLE_MS: "3000" };
    const [a, b] = await Promise.all([
      instance(() => writeApp("members", members), url, env),
      instance(() => writeApp("members", members), url, env),
    ]);
    // A session made by the official client, which then goes away without DELETE (its GET
    // stream closes with it).
    const sessionOf = async (base: string) => {
      const client = new Client({ name: "wo-pg-idle", version: "1" });
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
      await client.connect(transport);
      const id = transport.sessionId!;
      await client.close();
      return id;
    };
    const mcpHeaders = (id: string) => ({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": id,
      "mcp-protocol-version": "2025-11-25",
    });
    const toolsList = (base: string, id: string) =>
      fetch(`${base}/mcp`, {
        method: "POST",
        headers: mcpHeaders(id),
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
    const abandoned = await sessionOf(a.url);
    const abandonedAt = Date.now();
    const used = await sessionOf(b.url);
    // A session that only listens: its GET stream is open on A once the answer's headers are in.
    const streaming = await sessionOf(a.url);
    const listen = new AbortController();
    // 409 while A has not yet seen the SDK's own GET stream close.
    let stream: Response;
    const opened = Date.now();
    for (;;) {
      stream = await fetch(`${a.url}/mcp`, {
        headers: { ...mcpHeaders(streaming), accept: "text/event-stream" },
        signal: listen.signal,
      });
      if (stream.status !== 409 || Date.now() - opened > 10_000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stream.status).toBe(200);
    const known = async () =>
      (await rows(url, `SELECT "id" FROM "_wo_mcp_sessions"`)).map((r: { id: string }) => r.id).sort();
    expect(await known()).toEqual([abandoned, streaming, used].sort());

    // `used` keeps calling, on either instance; `abandoned` says nothing; `streaming` only
    // listens. Past the idle time and a sweep, only the abandoned one is gone, on both.
    const started = Date.now();
    for (let i = 0; (await known()).includes(abandoned) && Date.now() - started < 30_000; i++) {
      expect((await toolsList(i % 2 ? a.url : b.url, used)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Not before its idle time (3 s, less the moments between its last use and abandonedAt).
    expect(Date.now() - abandonedAt).toBeGreaterThan(2_500);
    expect(await known()).toEqual([streaming, used].sort());
    expect((await toolsList(b.url, abandoned)).status).toBe(404);
    expect((await toolsList(a.url, abandoned)).status).toBe(404);
    expect((await toolsList(b.url, streaming)).status).toBe(200);
    expect(a.output() + b.output()).toMatch(/mcp: ended 1 session idle for/);
    listen.abort();
  });

  it("a REST live stream on B sees the writes made on A, in commit order, and resumes by Last-Event-ID from the shared change log", async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([
      instance(() => writeApp("live", liveApp), url),
      instance(() => writeApp("live", liveApp), url),
    ]);
    const stream = await openSse(b.url, "/api/notes/live");
    expect(stream.status).toBe(200);
    const one = await post(a.url, "/api/notes", { title: "one" });
    await patch(a.url, `/api/notes/${one.body.id}`, { title: "two" });
    const other = await post(b.url, "/api/notes", { title: "on b" });
    const changes = () => stream.events.filter((e) => e.event !== "reset");
    await waitFor(
      () => changes().length >= 3,
      () => `wanted 3 events on B, got: ${stream.raw()}`,
    );
    const seen = changes().map((e) => [e.event, JSON.parse(e.data!).row.title, Number(e.id)] as const);
    expect(seen.map(([op, title]) => [op, title])).toEqual([
      ["create", "one"],
      ["update", "two"],
      ["create", "on b"],
    ]);
    expect(seen.map(([, , id]) => id)).toEqual([...seen.map(([, , id]) => id)].sort((x, y) => x - y));
    stream.close();
    // A client that saw only the first event resumes on A from it and gets the rest.
    const resumed = await openSse(a.url, "/api/notes/live", { "last-event-id": String(seen[0]![2]) });
    await waitFor(
      () => resumed.events.filter((e) => e.event !== "reset").length >= 2,
      () => resumed.raw(),
    );
    expect(resumed.events.filter((e) => e.event !== "reset").map((e) => JSON.parse(e.data!).row.title)).toEqual([
      "two",
      "on b",
    ]);
    expect(other.status).toBe(201);
    resumed.close();
  });

  it("ledger: transfers from 50 clients spread over both instances conserve the money and never overdraw", async () => {
    const url = await server.createDatabase();
    const a = await instance(() => copyApp("samples/ledger"), url);
    const b = await instance(() => copyApp("samples/ledger"), url);
    for (const owner of ["a", "b", "c"]) expect((await post(a.url, "/api/accounts", { owner })).status).toBe(201);
    await post(a.url, "/api/accounts/1/deposit", { amount: 500 });
    await post(b.url, "/api/accounts/2/deposit", { amount: 300 });
    const mcp = await Promise.all([mcpClient(a.url), mcpClient(b.url)]);
    const client = async (c: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const from = ((c + i) % 3) + 1;
        const to = ((c + i + 1) % 3) + 1;
        const amount = (c * 7 + i) % 10 === 9 ? 10_000 : 37 + ((c * 53 + i * 11) % 150);
        const base = (c + i) % 2 ? a.url : b.url;
        if (c % 5 === 4) {
          const r = await mcp[(c + i) % 2]!.callTool({
            name: "account_transfer",
            arguments: { id: from, to, amount },
          });
          const text = (r.content as { text: string }[]).map((x) => x.text).join("");
          statuses.push(r.isError ? (text.includes("insufficient funds") ? 409 : 500) : 200);
        } else {
          statuses.push((await post(base, `/api/accounts/${from}/transfer`, { to, amount })).status);
        }
      }
      return statuses;
    };
    const statuses = (await Promise.all(Array.from({ length: 50 }, (_, c) => client(c)))).flat();
    await Promise.all(mcp.map((m) => m.close()));
    expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThan(0);

    const accounts = await rows(url, `SELECT id::int, balance::int FROM accounts ORDER BY id`);
    const entries = await rows(url, `SELECT account::int, amount::int, memo FROM entries`);
    expect(accounts.reduce((n, x) => n + x.balance, 0)).toBe(800);
    for (const acc of accounts) {
      expect(acc.balance).toBeGreaterThanOrEqual(0);
      expect(entries.filter((e) => e.account === acc.id).reduce((n, e) => n + e.amount, 0)).toBe(acc.balance);
    }
    expect(entries.filter((e) => e.memo === "transfer out")).toHaveLength(ok);
    expect(entries.filter((e) => e.memo === "transfer in")).toHaveLength(ok);
    // Both instances show the same balances.
    const list = async (base: string) =>
      ((await (await fetch(`${base}/api/accounts`)).json()) as { items: { balance: number }[] }).items.map(
        (x) => x.balance,
      );
    expect(await list(a.url)).toEqual(accounts.map((x) => x.balance));
    expect(await list(b.url)).toEqual(accounts.map((x) => x.balance));
  });

  it("SIGKILL of one instance under load: every acknowledged transfer is there, none is half done, the other serves on", async () => {
    const url = await server.createDatabase();
    const a = await instance(() => copyApp("samples/ledger"), url);
    const b = await instance(() => copyApp("samples/ledger"), url);
    await openTwoAccounts(b.url);
    const inFlight = 8;
    const { acked } = await transfersUntilKilled(a.url, () => a.stop("SIGKILL"), inFlight);

    const entries = await rows(url, `SELECT account::int, amount::int, memo FROM entries`);
    const outs = entries.filter((e) => e.memo === "transfer out").length;
    expect(entries.filter((e) => e.memo === "transfer in").length).toBe(outs);
    expect(outs).toBeGreaterThanOrEqual(acked);
    expect(outs).toBeLessThanOrEqual(acked + inFlight);
    const accounts = await rows(url, `SELECT id::int, balance::int FROM accounts ORDER BY id`);
    expect(accounts.reduce((n, x) => n + x.balance, 0)).toBe(2_000_000);
    expect((await post(b.url, "/api/accounts/1/transfer", { to: 2, amount: 1 })).status).toBe(200);
  });

  it("refuses to start with a wrong password or an unreachable server, saying which; takes the password from [database] password_env", async () => {
    const url = await server.createDatabase();
    const wrong = new URL(url);
    wrong.password = "not-the-password";
    const refused = await runToExit([
      writeApp("members", members),
      "--db",
      wrong.toString(),
      "--listen",
      "127.0.0.1:0",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/Cannot log in to postgres:\/\/wo:\*\*\*@.*refused the user name or password/);
    expect(refused.output).not.toContain("not-the-password");
    expect(refused.output).not.toMatch(/\n\s+at /);
    const down = await runToExit([
      writeApp("members", members),
      "--db",
      "postgres://wo@127.0.0.1:1/x",
      "--listen",
      "127.0.0.1:0",
    ]);
    expect(down.code).toBe(1);
    expect(down.output).toMatch(
      /Cannot reach the PostgreSQL server at postgres:\/\/wo@127\.0\.0\.1:1\/x: the server refuses connections/,
    );

    const noPassword = new URL(url);
    noPassword.password = "";
    const toml = `[database]\nurl = "${noPassword.toString()}"\npassword_env = "WO_TEST_DB_PASSWORD"\npool_size = 3\nstatement_timeout_ms = 5000\n`;
    const unset = await runToExit([writeApp("members", { ...members, "wo.toml": toml }), "--listen", "127.0.0.1:0"]);
    expect(unset.output).toMatch(/password_env names WO_TEST_DB_PASSWORD, which is not set/);
    const wo = await instance(() => writeApp("members", { ...members, "wo.toml": toml }), noPassword.toString(), {
      WO_TEST_DB_PASSWORD: "wo-test-secret",
    });
    expect((await post(wo.url, "/api/members", { name: "x", email: "x@x.org" })).status).toBe(201);
  });

  it("losing the database: 503 (not 500) and /healthz says so; both recover by themselves when it returns", async () => {
    const url = await server.createDatabase();
    const wo = await instance(() => writeApp("members", members), url);
    expect((await post(wo.url, "/api/members", { name: "a", email: "a@x.org" })).status).toBe(201);
    await server.shutDown();
    try {
      const write = await post(wo.url, "/api/members", { name: "b", email: "b@x.org" });
      expect(write.status).toBe(503);
      expect(write.body.title).toBe("Database unavailable");
      const read = await fetch(`${wo.url}/api/members/1`);
      expect(read.status).toBe(503);
      expect(read.headers.get("retry-after")).toBe("1");
      const mcp = await mcpClient(wo.url).catch(() => undefined);
      if (mcp) {
        const r = await mcp.callTool({ name: "member_get", arguments: { id: 1 } });
        expect(r.isError).toBe(true);
        expect((r.content as { text: string }[])[0]!.text).toMatch(/^Database unavailable: /);
        await mcp.close();
      }
      const health = await fetch(`${wo.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.text()).toBe("database unavailable");
    } finally {
      await server.restart();
    }
    expect((await fetch(`${wo.url}/healthz`)).status).toBe(200);
    expect((await post(wo.url, "/api/members", { name: "b", email: "b@x.org" })).status).toBe(201);
    expect(((await (await fetch(`${wo.url}/api/members`)).json()) as { items: unknown[] }).items).toHaveLength(2);
    expect(wo.output()).toMatch(
      /wo: the database cannot be reached: the database postgres:\/\/wo:\*\*\*@.* is unavailable: /,
    );
    expect(wo.output()).toMatch(/wo: the database is reachable again/);
    expect(wo.output()).not.toMatch(/\n\s+at /);
  });
});
