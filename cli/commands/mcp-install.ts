// `wo mcp install <client> [dir] [--name NAME] [--url URL] [--runtime-dir DIR] [--token-file FILE] [--no-token]`:
// register the app's MCP endpoint with an agent. The URL is `--url`'s, else the running background
// instance's (its verified state), else wo.toml's listen (with a note when nothing answers there). The bearer token is `--token-file`'s, else
// `token_env`'s, else the automatic one (created if missing, as `wo run --background` would);
// `--no-token` registers an open server.
//
// The token is never printed: not to the terminal, not in a command shown for copying, not in
// a client's output passed through. Where it has to go:
// - claude: `claude mcp add --transport http NAME URL --header "Authorization: Bearer …"` — the
//   token is in that child's argv for the moment it runs (Claude Code reads headers from no
//   file or variable); its output is shown with the token masked.
// - codex: `codex mcp add NAME --url URL --bearer-token-env-var VAR`; Codex reads the token from
//   the environment variable VAR when it starts, so no token passes at all.
// - cursor, vscode: the JSON to put in .cursor/mcp.json / .vscode/mcp.json, with the token as a
//   reference the editor resolves (`${env:VAR}`, a password `${input:…}` prompt).

import { accessSync, constants, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { basename, delimiter, join, resolve } from "node:path";
import { configFileName, readConfig } from "../../compiler/check/config.js";
import { DiagnosticBag } from "../../compiler/diagnostics/diagnostic.js";
import { resolveAgentToken, TokenError } from "../../runtime/ops/agent-token.js";
import { ensurePrivateDir, PrivateFileError, runtimeDirFor } from "../../runtime/ops/private-files.js";
import { parseListen, ServerStartError } from "../../runtime/server.js";
import type { ParsedArgs } from "./args.js";
import { probeInstance } from "./instance.js";

const clients = ["claude", "claude-desktop", "codex", "cursor", "vscode"] as const;
type Client = (typeof clients)[number];

interface Auth {
  /** The token itself: only ever handed to `claude mcp add` (and shown once when made for this install). */
  token: string;
  /** Set when the token is a named token made for this install: shown once, as `wo token add` does. */
  named?: string;
  /** Where a person or a client can read it from. */
  file?: string;
  /** The environment variable a client should read it from. */
  envVar: string;
}

export async function runMcpInstallCommand(args: ParsedArgs): Promise<number> {
  const [client, dir] = args.positionals;
  if (!clients.includes(client as Client)) {
    const { usageError } = await import("./help.js");
    const { findCommand } = await import("./table.js");
    return usageError(
      findCommand("mcp install"),
      `${client === undefined ? "name the client" : `unknown client '${client}'`}; one of ${clients.join(", ")}`,
    );
  }
  const name = args.value("--name");
  if (client === "claude-desktop") {
    // A client that launches the server itself over stdio: no URL, no token.
    const appDir = resolve(dir ?? ".");
    const { installClaudeDesktop } = await import("./mcp-install-desktop.js");
    try {
      const serverName = (name ?? readAppConfig(appDir).app.name).replace(/[^A-Za-z0-9_-]/g, "-");
      return installClaudeDesktop(serverName, appDir, process.argv[1] ?? "wo");
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`wo mcp install: ${err.message}\n`);
      return 1;
    }
  }
  const tokenFile = args.value("--token-file");
  const noToken = args.has("--no-token");
  try {
    const appDir = resolve(dir ?? ".");
    const runtimeDir = runtimeDirFor(appDir, args.value("--runtime-dir"));
    const { app, config } = readAppConfig(appDir);
    const serverName = (name ?? app.name).replace(/[^A-Za-z0-9_-]/g, "-");
    const url = `${await endpointBase(runtimeDir, config.listen, args.value("--url"))}/mcp`;
    let auth: Auth | undefined;
    const tokenName = args.value("--token-name");
    if (tokenName !== undefined) {
      // The agent's own named token (spec/operations.md, "Tokens"), made now in the app's store.
      const made = await addAgentToken(appDir, config, tokenName, args.value("--role") ?? "agent", args.value("--db"));
      if (typeof made === "string") {
        process.stderr.write(`wo mcp install: ${made}\n`);
        return 1;
      }
      auth = { token: made.token, envVar: `${serverName.toUpperCase().replace(/-/g, "_")}_WO_TOKEN`, named: tokenName };
    } else if (!noToken) {
      if (tokenFile === undefined && !config.tokenEnv) ensurePrivateDir(runtimeDir);
      const found = resolveAgentToken({
        config,
        env: process.env,
        ...(tokenFile !== undefined ? { tokenFile: resolve(tokenFile) } : {}),
        automaticIn: runtimeDir,
      })!;
      auth = {
        token: found.token,
        ...(found.file ? { file: found.file } : {}),
        envVar: config.tokenEnv ?? `${serverName.toUpperCase().replace(/-/g, "_")}_WO_TOKEN`,
      };
    }
    const code = install(client as Exclude<Client, "claude-desktop">, serverName, url, auth);
    if (auth?.named !== undefined && (client !== "claude" || code !== 0))
      // The client reads the token from a variable it is given; a named token exists only now.
      process.stdout.write(
        `wo: named token '${auth.named}' is shown only now; set ${auth.envVar} to it where the client starts:\n${auth.token}\n`,
      );
    return code;
  } catch (err) {
    if (
      err instanceof PrivateFileError ||
      err instanceof TokenError ||
      err instanceof ServerStartError ||
      err instanceof ConfigError
    ) {
      process.stderr.write(`wo mcp install: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function install(client: Exclude<Client, "claude-desktop">, name: string, url: string, auth: Auth | undefined): number {
  // How a shell gets the token without it being written out: from its file, or its variable.
  const tokenRef = auth?.file ? `$(cat ${shellQuote(auth.file)})` : `$${auth?.envVar}`;
  const fromFile = `"${tokenRef}"`;
  switch (client) {
    case "claude": {
      const args = [
        "mcp",
        "add",
        "--transport",
        "http",
        name,
        url,
        ...(auth ? ["--header", `Authorization: Bearer ${auth.token}`] : []),
      ];
      const exe = findOnPath("claude");
      if (!exe) {
        process.stdout.write(
          `wo: claude is not on PATH. Once Claude Code is installed, run:\n\n  claude mcp add --transport http ${name} ${url}${auth ? ` --header "Authorization: Bearer ${tokenRef}"` : ""}\n`,
        );
        return 1;
      }
      return runClient(exe, args, auth, `registered ${url} with Claude Code as '${name}'`);
    }
    case "codex": {
      const args = ["mcp", "add", name, "--url", url, ...(auth ? ["--bearer-token-env-var", auth.envVar] : [])];
      const exe = findOnPath("codex");
      const envNote = auth
        ? `Codex reads the token from $${auth.envVar} when it starts; set it there, e.g. export ${auth.envVar}=${fromFile}\n`
        : "";
      if (!exe) {
        process.stdout.write(
          `wo: codex is not on PATH. Add this to ~/.codex/config.toml (or run \`codex ${args.join(" ")}\` once it is installed):\n\n[mcp_servers.${name}]\nurl = "${url}"\n${auth ? `bearer_token_env_var = "${auth.envVar}"\n` : ""}\n${envNote}`,
        );
        return 1;
      }
      const code = runClient(exe, args, auth, `registered ${url} with Codex as '${name}'`);
      if (code === 0) process.stdout.write(envNote);
      return code;
    }
    case "cursor": {
      const server = { url, ...(auth ? { headers: { Authorization: `Bearer \${env:${auth.envVar}}` } } : {}) };
      process.stdout.write(
        `Put this in .cursor/mcp.json (or ~/.cursor/mcp.json):\n\n${JSON.stringify({ mcpServers: { [name]: server } }, null, 2)}\n\n`,
      );
      if (auth)
        process.stdout.write(
          `Cursor reads the token from $${auth.envVar}; set it where Cursor starts, e.g. export ${auth.envVar}=${fromFile}\n`,
        );
      return 0;
    }
    case "vscode": {
      const input = `${name}-token`;
      const config = {
        ...(auth
          ? {
              inputs: [
                {
                  type: "promptString",
                  id: input,
                  description: `wo agent token for ${name}${auth.file ? ` (the contents of ${auth.file})` : ` ($${auth.envVar})`}`,
                  password: true,
                },
              ],
            }
          : {}),
        servers: {
          [name]: { type: "http", url, ...(auth ? { headers: { Authorization: `Bearer \${input:${input}}` } } : {}) },
        },
      };
      process.stdout.write(
        `Put this in .vscode/mcp.json; VS Code asks for the token once and stores it encrypted:\n\n${JSON.stringify(config, null, 2)}\n`,
      );
      return 0;
    }
  }
}

/** Runs a client's CLI; its output is shown with the token masked, its exit code returned. */
function runClient(exe: string, args: string[], auth: Auth | undefined, done: string): number {
  const result = spawnSync(exe, args, { stdio: ["inherit", "pipe", "pipe"], encoding: "utf8" });
  const mask = (text: string | null) => (auth && text ? text.split(auth.token).join("<token>") : (text ?? ""));
  process.stdout.write(mask(result.stdout));
  process.stderr.write(mask(result.stderr));
  if (result.error) {
    process.stderr.write(`wo mcp install: could not run ${exe}: ${result.error.message}\n`);
    return 1;
  }
  if (result.status !== 0) {
    process.stderr.write(`wo mcp install: ${basename(exe)} exited with ${result.status ?? result.signal}.\n`);
    return 1;
  }
  process.stdout.write(`wo: ${done}.\n`);
  return 0;
}

/**
 * `--url`'s address, else the running background instance's, else wo.toml's listen (default
 * 127.0.0.1:8080). A `wo run` in the foreground records its address nowhere, so when nothing
 * answers at wo.toml's, that is said, with how to name the right one.
 */
async function endpointBase(
  runtimeDir: string,
  listen: string | undefined,
  given: string | undefined,
): Promise<string> {
  if (given !== undefined) return givenBase(given);
  const probe = await probeInstance(runtimeDir);
  if (probe.kind === "running") return probe.status.url;
  const base = configuredBase(listen);
  if (!(await answersHealthz(base)))
    process.stderr.write(
      `wo mcp install: no wo answers at ${base} now; registering wo.toml's listen address. A wo run in the foreground records its address nowhere: if one serves elsewhere (wo run --listen), name it with --url http://HOST:PORT.\n`,
    );
  return base;
}

/** `--url http://127.0.0.1:9090` (a trailing `/` or `/mcp` allowed): its origin. */
function givenBase(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ConfigError(`--url ${given} is not a URL; give the server's address, e.g. --url http://127.0.0.1:8080`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !["/", "/mcp", "/mcp/"].includes(url.pathname))
    throw new ConfigError(
      `--url ${given}: give the server's address, http(s)://HOST:PORT, e.g. --url http://127.0.0.1:8080`,
    );
  return url.origin;
}

async function answersHealthz(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function configuredBase(listen: string | undefined): string {
  const { host, port } = parseListen(listen ?? "127.0.0.1:8080");
  if (port === 0)
    throw new ConfigError(
      "wo.toml listens on port 0 (a free port picked at each start); start the app with `wo run --background` first, or name the running server with --url http://HOST:PORT, then install.",
    );
  const shown =
    host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export class ConfigError extends Error {}

/** wo.toml of `appDir` (defaults when there is none); ConfigError when it has errors. */
export function readAppConfig(appDir: string) {
  let text: string | undefined;
  try {
    text = readFileSync(join(appDir, configFileName), "utf8");
  } catch {
    text = undefined;
  }
  const bag = new DiagnosticBag();
  const result = readConfig(text, join(appDir, configFileName), basename(appDir), bag);
  if (bag.hasErrors) throw new ConfigError(`${join(appDir, configFileName)} has errors; \`wo check\` shows them.`);
  return result;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `--token-name NAME [--role ROLE]`: a named token for the agent, added to the app's store as
 * `wo token add` would (the token is returned, never stored); a message when it cannot be.
 */
async function addAgentToken(
  appDir: string,
  config: ReturnType<typeof readAppConfig>["config"],
  name: string,
  role: string,
  db: string | undefined,
): Promise<{ token: string } | string> {
  const { namedTokenHash, newNamedToken, tokenNameProblem, tokenRoleProblem } = await import(
    "../../runtime/identity/named-tokens.js"
  );
  const { openNamedTokens } = await import("../../runtime/store/open-named-tokens.js");
  const problem = tokenNameProblem(name) ?? tokenRoleProblem(role);
  if (problem) return `--token-name ${name}: ${problem}`;
  const opened = await openNamedTokens({ appDir, ...(db !== undefined ? { db } : {}), config }, true);
  try {
    const token = newNamedToken();
    const added = await opened!.tokens.add({ name, role, user: null, hash: namedTokenHash(token) });
    if (!added)
      return `a token named '${name}' exists already; revoke it first (wo token revoke ${name}) or pick another name`;
    return { token };
  } finally {
    await opened?.close();
  }
}
