// `wo run --background`, `wo status`, `wo stop`: real detached instances of samples/hello in
// temporary runtime directories, driven through the CLI as a user would, with raw HTTP and the
// official MCP client against them. Every instance a test starts is stopped in afterEach, by
// `wo stop` and, should that fail, by SIGKILL of the PID its state recorded.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHmac, randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyApp, removeApp, runWoCommand, startWo, tempDir, type WoProcess } from "../support/wo-process.js";

interface Started {
  appDir: string;
  runtimeDir: string;
  /** Every instance PID a start printed: killed in afterEach if `wo stop` left one running. */
  pids: number[];
}
const started: Started[] = [];
const foreground: WoProcess[] = [];

afterEach(async () => {
  for (const p of foreground.splice(0)) await p.stop();
  for (const { appDir, runtimeDir, pids } of started.splice(0)) {
    await runWoCommand(["stop", appDir, "--runtime-dir", runtimeDir]);
    for (const pid of new Set([...pids, statePid(runtimeDir)]))
      if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGKILL");
    removeApp(appDir);
  }
});

function statePid(runtimeDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(runtimeDir, "state.json"), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/** Running, not merely a zombie: an exited detached child waits for init to reap it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: signal 0 is all we know
  }
}

async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !isAlive(pid);
}

/** A copy of samples/hello and a runtime directory (inside a fresh private temp folder) for it. */
function newApp(): Started {
  const appDir = copyApp("samples/hello");
  const runtimeDir = join(tempDir("wo-ops-"), "rt");
  const s: Started = { appDir, runtimeDir, pids: [] };
  started.push(s);
  return s;
}

async function background(app: Started, extra: string[] = [], env?: Record<string, string>) {
  const result = await runWoCommand(
    ["run", app.appDir, "--background", "--runtime-dir", app.runtimeDir, "--listen", "127.0.0.1:0", ...extra],
    env ? { env } : {},
  );
  const pid = /pid\s+(\d+)/.exec(result.stdout);
  if (pid) app.pids.push(Number(pid[1]));
  return result;
}

function urlIn(output: string): string {
  return /running in the background at (http:\/\/\S+)/.exec(output)?.[1] ?? /at (http:\/\/\S+)/.exec(output)![1]!;
}

function pidIn(output: string): number {
  return Number(/pid\s+(\d+)/.exec(output)![1]);
}

function send(
  url: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { "content-length": "0", ...headers }, agent: false }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A management request signed with `key`, as the protocol in runtime/ops/management.ts says. */
function signed(key: Buffer, path: string): Record<string, string> {
  const nonce = randomBytes(32).toString("hex");
  return {
    "x-wo-nonce": nonce,
    "x-wo-proof": createHmac("sha256", key).update(`wo-request\nPOST\n${path}\n${nonce}`).digest("hex"),
  };
}

describe("wo run --background", () => {
  it("start → status → a tool call with the automatic token (401 without) → stop → stopped, lock free", async () => {
    const app = newApp();
    const start = await background(app);
    expect(start.code, start.stderr).toBe(0);
    const url = urlIn(start.stdout);
    const pid = pidIn(start.stdout);
    const tokenFile = join(app.runtimeDir, "agent.token");
    expect(start.stdout).toContain(`token     ${tokenFile}`);
    expect(start.stdout).toContain(`log       ${join(app.runtimeDir, "wo.log")}`);

    // The private runtime directory: 0700, every file 0600; the token is 64 hex characters.
    expect(lstatSync(app.runtimeDir).mode & 0o777).toBe(0o700);
    for (const name of ["agent.token", "management.key", "state.json", "wo.log"])
      expect([name, lstatSync(join(app.runtimeDir, name)).mode & 0o777]).toEqual([name, 0o600]);
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const state = JSON.parse(readFileSync(join(app.runtimeDir, "state.json"), "utf8"));
    expect(state).toMatchObject({ schema: 1, state: "running", pid, url });
    expect(JSON.stringify(state)).not.toContain(token);
    expect(readFileSync(join(app.runtimeDir, "wo.log"), "utf8")).not.toContain(token);

    const status = await runWoCommand(["status", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("state     running");
    expect(status.stdout).toContain(`url       ${url}`);
    expect(status.stdout).toContain(`pid       ${pid}`);
    expect(status.stdout).toMatch(/requests {2}\d+/);
    expect(status.stdout).toMatch(/build {5}[0-9a-f]{12}/);

    expect((await send(`${url}/api/greetings`, "GET")).status).toBe(401);
    expect((await send(`${url}/mcp`, "POST")).status).toBe(401);
    const client = new Client({ name: "ops-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const created = await client.callTool({ name: "greeting_create", arguments: { message: "hi from an agent" } });
    expect(created.isError).toBeFalsy();
    await client.close();

    const stop = await runWoCommand(["stop", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("stopped");
    expect(await ended(pid)).toBe(true);
    const after = await runWoCommand(["status", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect(after.code).toBe(3);
    expect(after.stdout).toContain("is not running");
    expect(existsSync(join(app.runtimeDir, "state.json"))).toBe(false);
    expect(existsSync(join(app.runtimeDir, "management.key"))).toBe(false);
    expect(existsSync(join(app.appDir, ".wo/data/wo.lock"))).toBe(false);
    // The data folder is free: a foreground server opens it and finds the committed row.
    const fg = await startWo([app.appDir, "--listen", "127.0.0.1:0"]);
    foreground.push(fg);
    const rows = await fetch(`${fg.url}/api/greetings`).then((r) => r.json() as Promise<any>);
    expect(rows.items.map((r: { message: string }) => r.message)).toEqual(["hi from an agent"]);
    // Stopping a stopped app says so and succeeds.
    const again = await runWoCommand(["stop", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("not running")]);
  });

  it("a second background start returns the running instance instead of starting another", async () => {
    const app = newApp();
    const first = await background(app);
    expect(first.code, first.stderr).toBe(0);
    const second = await background(app);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`already running in the background at ${urlIn(first.stdout)}`);
    expect(pidIn(second.stdout)).toBe(pidIn(first.stdout));
    expect(statePid(app.runtimeDir)).toBe(pidIn(first.stdout));

    // `wo mcp install` registers the running instance's address (port 0 in wo.toml's stead).
    const bin = join(app.runtimeDir, "..", "bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "claude"),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${join(bin, "argv")}'\n`,
      { mode: 0o755 },
    );
    const install = await runWoCommand(["mcp", "install", "claude", app.appDir, "--runtime-dir", app.runtimeDir], {
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(install.code, install.stderr).toBe(0);
    expect(readFileSync(join(bin, "argv"), "utf8").split("\n")[5]).toBe(`${urlIn(first.stdout)}/mcp`);
  });

  it("stop and status need this instance's management key; the bearer token opens neither, the key opens no /api", async () => {
    const app = newApp();
    const start = await background(app);
    expect(start.code, start.stderr).toBe(0);
    const url = urlIn(start.stdout);
    const token = readFileSync(join(app.runtimeDir, "agent.token"), "utf8").trim();
    const keyFile = join(app.runtimeDir, "management.key");
    const key = Buffer.from(readFileSync(keyFile, "utf8").trim(), "hex");

    expect((await send(`${url}/_wo/stop`, "POST", signed(randomBytes(32), "/_wo/stop"))).status).toBe(401);
    expect((await send(`${url}/_wo/stop`, "POST", { authorization: `Bearer ${token}` })).status).toBe(401);
    expect((await send(`${url}/_wo/stop`, "POST", { ...signed(key, "/_wo/status") })).status).toBe(401); // signed for another path
    expect((await send(`${url}/api/greetings`, "GET", { authorization: `Bearer ${key.toString("hex")}` })).status).toBe(
      401,
    );
    // The Host rule holds here as on every route.
    expect(
      (await send(`${url}/_wo/status`, "POST", { ...signed(key, "/_wo/status"), host: "evil.example:80" })).status,
    ).toBe(403);
    const ok = await send(`${url}/_wo/status`, "POST", signed(key, "/_wo/status"));
    expect([ok.status, JSON.parse(ok.body).state]).toEqual([200, "running"]);

    // `wo stop` holding a wrong key: the instance does not prove itself, so nothing is stopped.
    writeFileSync(keyFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    const refused = await runWoCommand(["stop", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect(refused.stdout + refused.stderr).toContain("is not this instance");
    expect(isAlive(statePid(app.runtimeDir)!)).toBe(true);
    writeFileSync(keyFile, `${key.toString("hex")}\n`, { mode: 0o600 });
    const status = await runWoCommand(["status", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect([status.code, status.stdout]).toEqual([0, expect.stringContaining("state     running")]);
  });

  it("after SIGKILL of the instance, status says stale and a new start works", async () => {
    const app = newApp();
    const first = await background(app);
    expect(first.code, first.stderr).toBe(0);
    const pid = pidIn(first.stdout);
    process.kill(pid, "SIGKILL");
    expect(await ended(pid)).toBe(true);
    const status = await runWoCommand(["status", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain("stale");
    const second = await background(app);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("replacing stale instance state");
    expect(pidIn(second.stdout)).not.toBe(pid);
    // The automatic token survives restarts: clients keep working.
    expect(second.stdout).toContain(join(app.runtimeDir, "agent.token"));
  });

  it("a start claim that never finished (its CLI died) is stale after a minute, and does not block a start", async () => {
    const app = newApp();
    mkdirSync(app.runtimeDir, { mode: 0o700 });
    const abandoned = {
      schema: 1,
      state: "starting",
      pid: 999999,
      startedAt: new Date(Date.now() - 120_000).toISOString(),
    };
    writeFileSync(join(app.runtimeDir, "state.json"), JSON.stringify(abandoned), { mode: 0o600 });
    const status = await runWoCommand(["status", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect([status.code, status.stdout]).toEqual([3, expect.stringContaining("never finished")]);
    const start = await background(app);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).toContain("replacing stale instance state");
  });

  it("refuses, and does not repair, a runtime directory or token file open to others, or a symlink", async () => {
    const app = newApp();
    mkdirSync(app.runtimeDir, { mode: 0o700 });
    chmodSync(app.runtimeDir, 0o755);
    const open = await background(app);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain(
      `${app.runtimeDir} has permissions 0755, open to group or others; wo refuses to use it (and does not repair it)`,
    );
    expect(lstatSync(app.runtimeDir).mode & 0o777).toBe(0o755);
    expect(existsSync(join(app.runtimeDir, "state.json"))).toBe(false);

    const linked = join(app.runtimeDir, "..", "linked");
    chmodSync(app.runtimeDir, 0o700);
    symlinkSync(app.runtimeDir, linked);
    const viaLink = await runWoCommand([
      "run",
      app.appDir,
      "--background",
      "--runtime-dir",
      linked,
      "--listen",
      "127.0.0.1:0",
    ]);
    expect([viaLink.code, viaLink.stderr]).toEqual([1, expect.stringContaining(`${linked} is a symbolic link`)]);

    // Another user's directory, even with the right mode (tests run as root: chown works).
    chownSync(app.runtimeDir, 65534, 65534);
    const foreign = await background(app);
    expect([foreign.code, foreign.stderr]).toEqual([
      1,
      expect.stringContaining(`${app.runtimeDir} is owned by uid 65534, not by you`),
    ]);
    chownSync(app.runtimeDir, process.getuid!(), process.getgid!());

    const tokenFile = join(app.runtimeDir, "..", "token");
    writeFileSync(tokenFile, "a-good-token\n", { mode: 0o644 });
    chmodSync(tokenFile, 0o644);
    const readable = await background(app, ["--token-file", tokenFile]);
    expect(readable.code).toBe(1);
    expect(readable.stderr).toContain(`${tokenFile} has permissions 0644, open to group or others`);
    expect(lstatSync(tokenFile).mode & 0o777).toBe(0o644);
    expect(existsSync(join(app.runtimeDir, "state.json"))).toBe(false);
  });

  it("an explicit owner-private token file is the token; one trailing newline is allowed", async () => {
    const app = newApp();
    const tokenFile = join(app.runtimeDir, "..", "token");
    writeFileSync(tokenFile, "my-explicit-token\r\n", { mode: 0o600 });
    const start = await background(app, ["--token-file", tokenFile]);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain(`token     ${tokenFile}`);
    const url = urlIn(start.stdout);
    expect((await send(`${url}/api/greetings`, "GET", { authorization: "Bearer my-explicit-token" })).status).toBe(200);
    expect(existsSync(join(app.runtimeDir, "agent.token"))).toBe(false);
  });
});

describe("tokens wo refuses to start with", () => {
  const bad: [string, string, string][] = [
    ["a space", "two words", "contains whitespace at position 4"],
    ["non-ASCII", "tökén", "contains a non-ASCII character at position 2"],
    ["empty", "", "is empty"],
  ];
  for (const [what, token, message] of bad) {
    it(`a token file with ${what}`, async () => {
      const app = newApp();
      const tokenFile = join(app.runtimeDir, "..", "token");
      writeFileSync(tokenFile, token, { mode: 0o600 });
      const run = await runWoCommand(["run", app.appDir, "--token-file", tokenFile, "--listen", "127.0.0.1:0"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`The token in ${tokenFile} ${message}`);
    });
  }

  it("token_env holding a space", async () => {
    const app = newApp();
    writeFileSync(join(app.appDir, "wo.toml"), '[server]\ntoken_env = "OPS_TEST_TOKEN"\n');
    const run = await background(app, [], { OPS_TEST_TOKEN: "two words" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "The token in the environment variable OPS_TEST_TOKEN contains whitespace at position 4",
    );
    expect(existsSync(join(app.runtimeDir, "state.json"))).toBe(false);
  });
});

describe('wo token-path and [server] token = "auto"', () => {
  it("token-path prints the automatic token's path without creating it", async () => {
    const app = newApp();
    const out = await runWoCommand(["token-path", app.appDir, "--runtime-dir", app.runtimeDir]);
    expect([out.code, out.stdout]).toEqual([0, `${join(app.runtimeDir, "agent.token")}\n`]);
    expect(existsSync(app.runtimeDir)).toBe(false);
  });

  it('a foreground run with token = "auto" requires the automatic token', async () => {
    const app = newApp();
    writeFileSync(join(app.appDir, "wo.toml"), '[server]\ntoken = "auto"\n');
    const fg = await startWo([app.appDir, "--listen", "127.0.0.1:0", "--runtime-dir", app.runtimeDir]);
    foreground.push(fg);
    const token = readFileSync(join(app.runtimeDir, "agent.token"), "utf8").trim();
    expect((await send(`${fg.url}/api/greetings`, "GET")).status).toBe(401);
    expect((await send(`${fg.url}/api/greetings`, "GET", { authorization: `Bearer ${token}` })).status).toBe(200);
  });
});
