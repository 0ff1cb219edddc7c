// startServer: the process around an app — lock the data folder, open (and migrate) the store,
// load the build, listen, print the address and the route/tool table, and shut down cleanly on
// SIGINT/SIGTERM (stop accepting, let in-flight requests finish within 5 s, close the store,
// release the lock). Owns nothing about requests; createApp does.
//
// User-facing failures (folder in use, migration refused, port taken, bad --listen, an unusable
// token or runtime directory) are thrown as ServerStartError with a message to print; the CLI
// prints it without a stack trace.
//
// As the background instance of a runtime directory (`background`), it also serves the
// management endpoint with the key found there, records its state once listening, and on stop
// removes that state after the store is closed (spec/operations.md).
//
// With `watch`, the app is served through an AppHost (app-host.ts) and reload() swaps in a new
// build while serving (spec/live.md); the CLI's watcher (cli/commands/watch.ts) calls it.

import { getRequestListener } from "@hono/node-server";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "./app.js";
import { createAppHost } from "./app-host.js";
import { describeChanges } from "./build-changes.js";
import { loadBuild, BuildLoadError } from "./load-build.js";
import { startupOperation } from "../model/build-contract.js";
import { isLoopbackName } from "./http-guard.js";
import { resolveAgentToken, TokenError } from "./ops/agent-token.js";
import { readManagementKey, removeInstance, writeRunningState } from "./ops/instance-state.js";
import { isManagementPath, type InstanceStatus } from "./ops/management.js";
import { ensurePrivateDir, PrivateFileError } from "./ops/private-files.js";
import { createRequestLogger, logWhenFinished, type RequestLogFormat } from "./request-log.js";
import { restEndpoints } from "./rest/routes.js";
import { openStore } from "./store/open.js";
import { StoreOpenError, type Store } from "../model/store.js";

export interface StartOptions {
  appDir: string;
  buildDir: string;
  /** HOST:PORT; default wo.toml `listen`, else 127.0.0.1:8080. Port 0 picks a free port. */
  listen?: string;
  /** A data folder (the database is `<db>/app.sqlite`) or a `.sqlite`/`.db` file. */
  db?: string;
  allowDestructiveMigration?: boolean;
  /** Overrides wo.toml `[mcp] sessions`: false serves 2025-era MCP clients without sessions. */
  mcpSessions?: boolean;
  /** Where the address and table go; default stdout. */
  out?: (text: string) => void;
  /** One line per request (text or JSON), or none; default none. */
  requestLog?: RequestLogFormat;
  /** Where request log lines go; default stderr (a background instance: its log file). */
  requestLogTo?: (text: string) => void;
  /** Install SIGINT/SIGTERM handlers that stop and exit 0 (the CLI does; tests do not). */
  handleSignals?: boolean;
  /** `--token-file`: the agent token is in this owner-private file. */
  tokenFile?: string;
  /** The app's private runtime directory: the automatic token and background state live there. */
  runtimeDir?: string;
  /** Serve as runtimeDir's background instance: automatic token, management endpoint, state file. */
  background?: boolean;
  /** Server-side log lines (default stderr). */
  log?: (line: string) => void;
  /** `--watch`: builds are swapped in with reload(), and MCP declares listChanged. */
  watch?: boolean;
}

export interface RunningServer {
  url: string;
  /**
   * `--watch`: serve the build in `buildDir` from now on (migrating the store), printing one
   * line on what changed; or print why not and keep the current build. False when refused.
   */
  reload(buildDir: string): Promise<boolean>;
  /** build-info.json's hash of the inputs of the build serving now. */
  readonly inputHash: string | undefined;
  /** Stop accepting, finish in-flight requests (5 s bound), close the store, release the lock. */
  stop(): Promise<void>;
}

export class ServerStartError extends Error {}

const drainMillis = 5_000;

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  let build;
  try {
    build = await loadBuild(options.buildDir);
  } catch (err) {
    if (err instanceof BuildLoadError) throw new ServerStartError(err.message);
    throw err;
  }
  const fileConfig = build.catalog.config;
  const config =
    options.mcpSessions === undefined
      ? fileConfig
      : { ...fileConfig, mcp: { ...fileConfig.mcp, sessions: options.mcpSessions } };
  const { host, port } = parseListen(options.listen ?? config.listen ?? "127.0.0.1:8080");

  const automatic = options.background || config.token === "auto";
  if (automatic && options.runtimeDir === undefined)
    throw new ServerStartError("The automatic agent token needs a runtime directory.");
  let token: string | undefined;
  let managementKey: Buffer | undefined;
  try {
    if (automatic) ensurePrivateDir(options.runtimeDir!);
    token = resolveAgentToken({
      config,
      env: process.env,
      ...(options.tokenFile !== undefined ? { tokenFile: options.tokenFile } : {}),
      ...(automatic ? { automaticIn: options.runtimeDir } : {}),
    })?.token;
    if (options.background) {
      managementKey = readManagementKey(options.runtimeDir!);
      if (!managementKey)
        throw new ServerStartError(
          `No management key in ${options.runtimeDir}; start background instances with \`wo run --background\`.`,
        );
    }
  } catch (err) {
    if (err instanceof TokenError || err instanceof PrivateFileError) throw new ServerStartError(err.message);
    throw err;
  }

  // openStore takes the store's single-writer lock (SQLite: the data folder's) and releases it on close.
  let store: Store;
  let migrated: string[];
  let database: string;
  try {
    const opened = await openStore({
      appDir: options.appDir,
      ...(options.db !== undefined ? { db: options.db } : {}),
      config,
      catalog: build.catalog,
      allowDestructiveMigration: options.allowDestructiveMigration ?? false,
    });
    store = opened.store;
    migrated = opened.migration.applied;
    database = opened.description;
  } catch (err) {
    if (err instanceof StoreOpenError) throw new ServerStartError(err.message);
    throw err;
  }

  const startedAt = new Date();
  let requests = 0;
  let url = "";
  let stopping: Promise<void> | undefined;
  // Which build serves: `wo status` shows it, and under --watch a swap changes it.
  let servingHash = build.inputHash;
  const buildId = () => servingHash?.slice(0, 12);
  const status = (): InstanceStatus => ({
    state: stopping ? "stopping" : "running",
    url,
    pid: process.pid,
    startedAt: startedAt.toISOString(),
    uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
    requests,
    ...(buildId() ? { build: buildId()! } : {}),
  });
  // The node listener is per app (its hono adapter); a swap rebinds it (onSwap below).
  let listener: RequestListener | undefined;
  const appHost = createAppHost({
    build,
    store,
    config,
    listenHost: host,
    allowDestructiveMigration: options.allowDestructiveMigration ?? false,
    watching: options.watch ?? false,
    ...(token ? { token } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(managementKey ? { management: { key: managementKey, status, stop: () => stopFor("wo stop") } } : {}),
    onSwap: (next) => (listener = listenerFor(next)),
  });
  const app = appHost.app;
  // `on startup` hooks run once, in one transaction, before anything is served.
  const startup = app.operations[startupOperation];
  if (startup) {
    try {
      await startup({}, { surface: "startup" });
    } catch (err) {
      app.close();
      await store.close();
      throw new ServerStartError(`on startup failed: ${(err as Error).message}`);
    }
  }
  let server: Server;
  let address: AddressInfo;
  const requestLog = createRequestLogger(options.requestLog ?? "off", options.requestLogTo);
  function listenerFor(current: App): RequestListener {
    const honoListener = getRequestListener(current.hono.fetch, { hostname: host });
    const serveManagement = current.serveManagement;
    const log = requestLog;
    return (req: IncomingMessage, res: ServerResponse) => {
      requests++;
      // With `--quiet` there is no logger, and nothing per request is spent on logging.
      if (isMcpPath(req.url)) return current.serveMcp(req, res, log);
      if (log) logWhenFinished(log, req, res);
      if (serveManagement && isManagementPath(req.url)) serveManagement(req, res);
      else honoListener(req, res);
    };
  }
  listener = listenerFor(app);
  try {
    // Each request goes to the listener of the app serving when it arrives.
    ({ server, address } = await listen((req, res) => listener!(req, res), host, port));
  } catch (err) {
    await store.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE" ? "the port is in use" : code === "EACCES" ? "permission denied" : (err as Error).message;
    throw new ServerStartError(
      `Cannot listen on ${host}:${port}: ${why}. Pick another with --listen HOST:PORT (port 0 picks a free one).`,
    );
  }

  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  url = `http://${shownHost}:${address.port}`;
  // Refuse queued calls and end MCP streams first, then stop accepting and drain (5 s bound),
  // then close the store (which releases the data folder's lock), then forget the instance.
  const stop = () => {
    stopping ??= (async () => {
      appHost.app.close();
      await closeServer(server);
      await store.close();
      if (options.background) removeInstance(options.runtimeDir!, process.pid);
    })();
    return stopping;
  };
  const log = options.log ?? ((line: string) => process.stderr.write(`wo: ${line}\n`));
  // The CLI's process ends with the server; a caller that handles no signals just gets it stopped.
  function stopFor(reason: string): void {
    if (options.background && !stopping) log(`stopping (${reason})`);
    const stopped = stop();
    if (!options.handleSignals) return;
    stopped.then(
      () => process.exit(0),
      (err) => {
        log(`shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  }

  if (options.background) {
    try {
      writeRunningState(options.runtimeDir!, { url, startedAt, ...(buildId() ? { build: buildId()! } : {}) });
    } catch (err) {
      await stop();
      throw new ServerStartError(`Cannot record the instance in ${options.runtimeDir}: ${(err as Error).message}`);
    }
  }
  if (options.handleSignals) {
    process.once("SIGINT", () => stopFor("SIGINT"));
    process.once("SIGTERM", () => stopFor("SIGTERM"));
  }
  // Only now: whoever waits for the address may signal at once, and a signal arriving before
  // the handlers exist kills the process without closing the store.
  for (const change of migrated) out(`wo: migrated: ${change}\n`);
  // Off loopback the Host check is off too (spec/security.md): without a token, anyone who can
  // reach the address reads and writes everything.
  if (!token && !isLoopbackName(host))
    out(
      `wo: warning: listening on ${host} without a bearer token: anyone who can reach ${url} can read and change every row. Set [server] token_env (or token = "auto") in wo.toml.\n`,
    );
  out(
    startupBanner(
      build.catalog.app,
      url,
      database,
      restEndpoints(build.catalog),
      build.catalog.operations.filter((o) => o.mcp).map((o) => o.name),
    ),
  );
  const reload = async (buildDir: string): Promise<boolean> => {
    if (stopping) return false;
    let next;
    try {
      next = await loadBuild(buildDir);
    } catch (err) {
      if (!(err instanceof BuildLoadError)) throw err;
      out(`wo: not reloaded: ${err.message}\n`);
      return false;
    }
    const outcome = await appHost.swap(next);
    if (!outcome.swapped) {
      out(`wo: not reloaded, the previous build keeps serving: ${outcome.reason}\n`);
      return false;
    }
    servingHash = next.inputHash;
    for (const change of outcome.migrated) out(`wo: migrated: ${change}\n`);
    out(`wo: reloaded: ${describeChanges(outcome.changes)}\n`);
    if (outcome.changes.settings) out("wo: wo.toml settings changed; they apply when wo run starts again\n");
    return true;
  };
  return {
    url,
    stop,
    reload,
    get inputHash() {
      return servingHash;
    },
  };
}

/** /mcp, as hono's `app.route("/mcp", …)` with strict: false matches it: a trailing slash and a query allowed. */
function isMcpPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith("/mcp")) return false;
  const rest = url.slice(4);
  return rest === "" || rest === "/" || rest.startsWith("?") || rest.startsWith("/?");
}

function listen(listener: RequestListener, hostname: string, port: number) {
  return new Promise<{ server: Server; address: AddressInfo }>((resolvePromise, reject) => {
    const server = createServer(listener);
    server.once("error", reject);
    server.listen(port, hostname, () => resolvePromise({ server, address: server.address() as AddressInfo }));
  });
}

/**
 * Stop accepting; idle keep-alive sockets close now, busy ones after their response or 5 s.
 * A socket whose response ends after close() (a stream just ended by the shutdown) becomes
 * idle later, and node would leave it to the client's keep-alive timeout: it is swept every
 * 50 ms instead, so a server with streaming clients stops promptly.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => server.closeAllConnections(), drainMillis);
    timer.unref();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    sweep.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolvePromise();
    });
    server.closeIdleConnections();
  });
}

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new ServerStartError(
      `'${text}' is not a listen address; write HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free port).`,
    );
  return { host: m[1] ?? (m[2] || "127.0.0.1"), port };
}

function startupBanner(
  app: { name: string; version: string },
  url: string,
  database: string,
  endpoints: { method: string; path: string; op: string }[],
  tools: string[],
): string {
  const lines = [
    `wo: ${app.name} ${app.version} serving at ${url}`,
    `  database  ${database}`,
    `  mcp       ${url}/mcp (${tools.length} tools)`,
    `  explorer  ${url}/ (API docs: ${url}/docs)`,
    "",
  ];
  if (endpoints.length > 0) {
    const width = Math.max(...endpoints.map((e) => e.method.length + 1 + e.path.length));
    lines.push("  routes");
    for (const e of endpoints) lines.push(`    ${`${e.method.padEnd(6)} ${e.path}`.padEnd(width + 7)}  ${e.op}`);
  }
  if (tools.length > 0) {
    lines.push("  tools");
    for (const name of tools) lines.push(`    ${name}`);
  }
  lines.push("");
  return lines.join("\n");
}
