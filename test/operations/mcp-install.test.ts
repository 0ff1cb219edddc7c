// `wo mcp install`: registering the app's endpoint with an agent's own CLI, proven against fake
// `claude` and `codex` executables on PATH that record the arguments they were given. The token
// may reach `claude` (its only way in) but never wo's own output.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyApp, removeApp, runWoCommand, startWo, tempDir } from "../support/wo-process.js";

const apps: string[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) removeApp(app);
});

/** samples/hello listening on a fixed address, a runtime dir, and a bin folder holding a fake `name`. */
function setup(name: string) {
  const appDir = copyApp("samples/hello");
  apps.push(appDir);
  writeFileSync(join(appDir, "wo.toml"), 'name = "hello"\n[server]\nlisten = "127.0.0.1:8931"\n');
  const work = tempDir("wo-install-");
  const argvFile = join(work, "argv");
  const bin = join(work, "bin");
  const fake = join(bin, name);
  mkdirSync(bin);
  // One argument per line, exactly as received; prints nothing, like a quiet success.
  writeFileSync(fake, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${argvFile}'\n`);
  chmodSync(fake, 0o755);
  return { appDir, runtimeDir: join(work, "rt"), argvFile, env: { PATH: `${bin}:${process.env.PATH}` } };
}

describe("wo mcp install", () => {
  it("claude: runs `claude mcp add` with the URL and the automatic token's header, never printing the token", async () => {
    const { appDir, runtimeDir, argvFile, env } = setup("claude");
    const run = await runWoCommand(["mcp", "install", "claude", appDir, "--runtime-dir", runtimeDir], { env });
    expect(run.code, run.stderr).toBe(0);
    const token = readFileSync(join(runtimeDir, "agent.token"), "utf8").trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(argvFile, "utf8").split("\n").slice(0, -1)).toEqual([
      "mcp",
      "add",
      "--transport",
      "http",
      "hello",
      "http://127.0.0.1:8931/mcp",
      "--header",
      `Authorization: Bearer ${token}`,
    ]);
    expect(run.stdout + run.stderr).not.toContain(token);
    expect(run.stdout).toContain("registered http://127.0.0.1:8931/mcp with Claude Code as 'hello'");
  });

  it("--token-name: the agent gets a named token of its own, which the served app then knows by name", async () => {
    const { appDir, runtimeDir, argvFile, env } = setup("claude");
    const run = await runWoCommand(
      ["mcp", "install", "claude", appDir, "--runtime-dir", runtimeDir, "--token-name", "claude", "--role", "agent"],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const header = readFileSync(argvFile, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Authorization: Bearer "));
    const token = header!.slice("Authorization: Bearer ".length);
    expect(token).toMatch(/^wo_/);
    expect(run.stdout + run.stderr).not.toContain(token); // claude took it: shown nowhere
    const listed = await runWoCommand(["token", "list", appDir, "--json"]);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: "claude", role: "agent", user: null }]);
    // The app serves it as that principal, and the explorer's model says who the caller is.
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    try {
      const model = await fetch(`${wo.url}/explorer/app.json`, { headers: { authorization: `Bearer ${token}` } });
      expect(model.status).toBe(200);
      expect(((await model.json()) as { caller: unknown }).caller).toEqual({
        name: "claude",
        user: null,
        role: "agent",
        via: "token",
      });
    } finally {
      await wo.stop();
    }
    // A second install with the same name is refused, and adds nothing.
    const again = await runWoCommand(["mcp", "install", "claude", appDir, "--token-name", "claude"], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("a token named 'claude' exists already");
  });

  it("--token-name with a client that reads a variable: the new token is shown once, to set it", async () => {
    const { appDir, runtimeDir, env } = setup("codex");
    const run = await runWoCommand(
      ["mcp", "install", "codex", appDir, "--runtime-dir", runtimeDir, "--token-name", "codex-agent"],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines.at(-2)).toContain("named token 'codex-agent' is shown only now; set HELLO_WO_TOKEN to it");
    expect(lines.at(-1)).toMatch(/^wo_[A-Za-z0-9_-]{43}$/);
  });

  it("codex: runs `codex mcp add` naming an environment variable, so the token passes nowhere", async () => {
    const { appDir, runtimeDir, argvFile, env } = setup("codex");
    const run = await runWoCommand(
      ["mcp", "install", "codex", appDir, "--runtime-dir", runtimeDir, "--name", "notes"],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const token = readFileSync(join(runtimeDir, "agent.token"), "utf8").trim();
    expect(readFileSync(argvFile, "utf8").split("\n").slice(0, -1)).toEqual([
      "mcp",
      "add",
      "notes",
      "--url",
      "http://127.0.0.1:8931/mcp",
      "--bearer-token-env-var",
      "NOTES_WO_TOKEN",
    ]);
    expect(run.stdout).toContain(`export NOTES_WO_TOKEN="$(cat ${join(runtimeDir, "agent.token")})"`);
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it("vscode: prints the configuration with a password prompt in place of the token", async () => {
    const { appDir, runtimeDir, env } = setup("unused");
    const run = await runWoCommand(["mcp", "install", "vscode", appDir, "--runtime-dir", runtimeDir], { env });
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout.slice(run.stdout.indexOf("{")));
    expect(json.servers.hello).toEqual({
      type: "http",
      url: "http://127.0.0.1:8931/mcp",
      headers: { Authorization: "Bearer ${input:hello-token}" },
    });
    expect(json.inputs[0]).toMatchObject({ type: "promptString", id: "hello-token", password: true });
    expect(run.stdout).not.toContain(readFileSync(join(runtimeDir, "agent.token"), "utf8").trim());
  });

  it("a foreground wo run elsewhere: without --url it says nothing answers at wo.toml's address and how to name it; --url registers that server", async () => {
    const { appDir, runtimeDir, argvFile, env } = setup("claude");
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--runtime-dir", runtimeDir]);
    try {
      const guessed = await runWoCommand(["mcp", "install", "claude", appDir, "--runtime-dir", runtimeDir], { env });
      expect(guessed.code, guessed.stderr).toBe(0);
      expect(guessed.stderr).toContain(
        "wo mcp install: no wo answers at http://127.0.0.1:8931 now; registering wo.toml's listen address.",
      );
      expect(guessed.stderr).toContain("name it with --url http://HOST:PORT");

      const named = await runWoCommand(
        ["mcp", "install", "claude", appDir, "--runtime-dir", runtimeDir, "--url", `${wo.url}/mcp`],
        { env },
      );
      expect(named.code, named.stderr).toBe(0);
      expect(named.stderr).toBe("");
      expect(readFileSync(argvFile, "utf8").split("\n")[5]).toBe(`${wo.url}/mcp`);
      expect(named.stdout).toContain(`registered ${wo.url}/mcp with Claude Code as 'hello'`);

      const bad = await runWoCommand(["mcp", "install", "claude", appDir, "--url", "ftp://x/y"], { env });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("--url ftp://x/y: give the server's address, http(s)://HOST:PORT");
    } finally {
      await wo.stop();
    }
  });
});
