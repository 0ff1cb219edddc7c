// startServer: the process around an app — lock the data folder, open (and migrate) the store,
// load the build, assemble the runtime instance (runtime/instance.ts) and its HTTP edge
// (runtime/edge.ts), listen, print the address and the route/tool table, and shut down cleanly
// on SIGINT/SIGTERM (stop accepting, let in-flight requests finish within 5 s, close the store,
// release the lock). Owns nothing about requests; the edge does.
//
// User-facing failures (folder in use, migration refused, port taken, bad --listen, an unusable
// token or runtime directory) are thrown as ServerStartError with a message to print; the CLI
// prints it without a stack trace.
//
// As the background instance of a runtime directory (`background`), it also serves the
// management endpoint with the key found there, records its state once listening, and on stop
// removes that state after the store is closed (spec/operations.md).
//
// With `watch`, reload() swaps a new build into the instance while serving (spec/live.md); the
// CLI's watcher (cli/commands/watch.ts) calls it.

import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createEdge } from "./edge.js";
import { NosniffResponse } from "./nosniff-response.js";
import type { BearerSource, ProtectedResource } from "./identity/contract.js";
import { createProtectedResource } from "./identity/resource-metadata.js";
import { reloadBuild } from "./reload.js";
import { startJobRunner } from "./jobs/runner.js";
import { createRuntimeInstance, type RuntimeInstance } from "./instance.js";
import { loadBuild, BuildLoadError } from "./load-build.js";
import { startupOperation } from "../model/build-contract.js";
import { ownerPrincipal } from "../model/principal.js";
import { callContext } from "./operations/call-context.js";
import { hasRepeatedHost, isLoopbackName } from "./http-guard.js";
import { resolveAgentToken, TokenError } from "./ops/agent-token.js";
import { readManagementKey, removeInstance, writeRunningState } from "./ops/instance-state.js";
import type { InstanceStatus } from "./ops/management.js";
import { ensurePrivateDir, PrivateFileError } from "./ops/private-files.js";
import { createRequestLogger, type RequestLogFormat } from "./request-log.js";
import { restEndpoints } from "./rest/routes.js";
import { openStore } from "./store/open.js";
import { startAdminListener, type AdminListener } from "./telemetry/admin.js";
import { StoreOpenError, type Store } from "../model/store.js";
import type { CatalogType } from "../model/app.js";
import { hasPolicies } from "./operations/row-policy.js";

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
  /** Identity sources asked after the owner's token and the named tokens (the OAuth 2.1 JWT verifier). */
  bearerSources?: readonly BearerSource[];
  /** Served at /.well-known/oauth-protected-resource[/mcp]; every 401 carries its challenge. */
  protectedResource?: ProtectedResource;
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
  // The container image sets WO_REQUIRE_TOKEN=1 (spec/operations.md, "Container image"): where
  // wo run would warn below that anyone reaching it may change every row, it refuses instead.
  if (process.env.WO_REQUIRE_TOKEN === "1" && !token && !isLoopbackName(host))
    throw new ServerStartError(
      `WO_REQUIRE_TOKEN=1 and no bearer token: refusing to listen on ${host}, where anyone who can reach it could read and change every row. Set [server] token_env in wo.toml and that environment variable (or pass --token-file).`,
    );

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
    requests: edge?.requests ?? 0,
    ...(buildId() ? { build: buildId()! } : {}),
  });
  // `[auth]`: bearer JWTs of one OAuth 2.1 / OIDC issuer (spec/security.md). Their default
  // audience is this server's /mcp URL, known once it listens; no request comes before that.
  const auth = config.auth;
  // The verifier (and jose, 46 modules) is loaded only for an app that names an issuer.
  const jwt = auth && (await import("./identity/jwt.js"));
  let jwtSource: BearerSource | undefined;
  const bearerSources: BearerSource[] = [
    ...(options.bearerSources ?? []),
    ...(auth && jwt
      ? [
          {
            resolve: (credential: string) =>
              (jwtSource ??= jwt.createJwtSource(auth, { publicOrigin: url })).resolve(credential),
          },
        ]
      : []),
  ];
  const protectedResource = options.protectedResource ?? (auth ? createProtectedResource(auth) : undefined);
  let instance: RuntimeInstance;
  try {
    instance = await createRuntimeInstance({
      build,
      store,
      config,
      listenHost: host,
      allowDestructiveMigration: options.allowDestructiveMigration ?? false,
      watching: options.watch ?? false,
      ...(token ? { ownerToken: token } : {}),
      ...(bearerSources.length > 0 ? { bearerSources } : {}),
      ...(protectedResource ? { protectedResource } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(managementKey ? { management: { key: managementKey, status, stop: () => stopFor("wo stop") } } : {}),
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  // Row expressions over the stored rows: materialized columns filled, checks held (row-exprs.ts).
  try {
    await instance.binding.settle();
  } catch (err) {
    instance.close();
    await store.close();
    throw new ServerStartError((err as Error).message);
  }
  // `on startup` hooks run once, in one transaction, before anything is served.
  const startup = instance.binding.operations[startupOperation];
  if (startup) {
    try {
      await startup({}, callContext({ principal: ownerPrincipal, surface: "startup" }));
    } catch (err) {
      instance.close();
      await store.close();
      throw new ServerStartError(`on startup failed: ${(err as Error).message}`);
    }
  }
  let server: Server;
  let address: AddressInfo;
  // With `--quiet` there is no logger, and nothing per request is spent on logging.
  const requestLog = createRequestLogger(options.requestLog ?? "off", options.requestLogTo);
  const edge = createEdge(instance, { hostname: host, publicOrigin: () => url, ...(requestLog ? { requestLog } : {}) });
  try {
    ({ server, address } = await listen(edge.node, host, port));
  } catch (err) {
    instance.close();
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
  // The admin listener (/metrics, /live, /ready): its own address, never the public port.
  let admin: AdminListener | undefined;
  if (config.adminListen !== undefined && instance.telemetry?.metrics) {
    const where = parseListen(config.adminListen);
    try {
      admin = await startAdminListener({
        ...where,
        metrics: instance.telemetry.metrics,
        notReady: () => (stopping ? Promise.resolve("shutting down") : storeProblem(store)),
        log: options.log ?? ((line: string) => process.stderr.write(`wo: ${line}\n`)),
      });
    } catch (err) {
      instance.close();
      await closeServer(server);
      await store.close();
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === "EADDRINUSE" ? "the port is in use" : (err as Error).message;
      throw new ServerStartError(
        `Cannot listen on ${where.host}:${where.port} for [admin] listen: ${why}. Pick another in wo.toml (port 0 picks a free one).`,
      );
    }
  }
  // Jobs a free fn runs are run here, after commit (spec/operations.md, "Jobs"), once serving.
  const jobRunner = store.jobs
    ? startJobRunner({
        jobs: store.jobs,
        store,
        operations: () => instance.binding.operations,
        settings: config.jobs,
        log: options.log ?? ((line: string) => process.stderr.write(`wo: ${line}\n`)),
      })
    : undefined;
  // Refuse queued calls and end MCP streams first, then stop accepting and drain (5 s bound),
  // then close the store (which releases the data folder's lock), then forget the instance.
  const stop = () => {
    stopping ??= (async () => {
      instance.close();
      await closeServer(server);
      await admin?.close();
      await jobRunner?.stop();
      await store.close();
      // Spans of the requests just drained are exported before the process ends.
      await instance.telemetry?.shutdown();
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
  if (!instance.identity.configured && !isLoopbackName(host))
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
      instance.identity.describe(),
      policiesInForce(build.catalog.types, instance.identity.configured),
      admin?.url,
    ),
  );
  const reload = async (buildDir: string): Promise<boolean> => {
    if (stopping) return false;
    const reloaded = await reloadBuild(instance, buildDir, out);
    if (reloaded) servingHash = reloaded.inputHash;
    return reloaded !== false;
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

function listen(listener: RequestListener, hostname: string, port: number) {
  return new Promise<{ server: Server; address: AddressInfo }>((resolvePromise, reject) => {
    const server = createServer({ ServerResponse: NosniffResponse }, applyHttpBaseline(onePerConnection(listener)));
    // `Expect: 100-continue`: node would send `100 Continue` before any check ran; deferred to
    // the first read of the body, a refusal (403, 415, 413) is the only answer the client gets.
    server.on("checkContinue", applyHttpBaseline(onePerConnection(continueOnFirstRead(listener))));
    server.once("error", reject);
    server.listen(port, hostname, () => resolvePromise({ server, address: server.address() as AddressInfo }));
  });
}

/**
 * What holds for every request, whatever serves it. `nosniff` on every answer is the server's
 * response class (nosniff-response.ts). RFC 9112 §3.2: a server MUST answer 400 to a request
 * with more than one Host header; node keeps the first, and the Host check (http-guard.ts)
 * would judge a request by one of its two names.
 */
function applyHttpBaseline(listener: RequestListener): RequestListener {
  return (req, res) => {
    if (!hasRepeatedHost(req.rawHeaders)) return listener(req, res);
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end("Bad Request: more than one Host header.\n");
  };
}

const inFlight = Symbol("wo.responseInFlight");
const waiting = Symbol("wo.waitingRequests");
type QueuedSocket = Socket & {
  [inFlight]?: ServerResponse;
  [waiting]?: { req: IncomingMessage; res: ServerResponse }[];
};

/**
 * Pipelined requests (several sent on one connection before any answer) are handled one after
 * the other, each once the previous one has answered. node emits them all at once and only
 * orders the answers, so a GET pipelined after a POST would read before the POST committed.
 * A request that finds the connection idle (every non-pipelined one) starts at once, with no
 * listener added.
 */
function onePerConnection(listener: RequestListener): RequestListener {
  const start = (socket: QueuedSocket, req: IncomingMessage, res: ServerResponse) => {
    socket[inFlight] = res;
    listener(req, res);
  };
  const startNext = (socket: QueuedSocket) => {
    const queue = socket[waiting];
    const next = queue?.shift();
    if (!queue || !next) return;
    if (queue.length === 0) socket[waiting] = undefined;
    start(socket, next.req, next.res);
    if (socket[waiting]) next.res.once("close", () => startNext(socket));
  };
  return (req, res) => {
    const socket = req.socket as QueuedSocket;
    const busy = socket[inFlight];
    if (busy === undefined || busy.writableEnded) return start(socket, req, res);
    const queue = socket[waiting];
    if (queue) queue.push({ req, res });
    else {
      socket[waiting] = [{ req, res }];
      busy.once("close", () => startNext(socket));
    }
  };
}

/** Sends `100 Continue` when the listener first reads the body, unless it has answered already. */
function continueOnFirstRead(listener: RequestListener): RequestListener {
  return (req, res) => {
    const stream = req as IncomingMessage & { _read(size: number): void };
    const read = stream._read;
    stream._read = function (size: number) {
      stream._read = read;
      if (!res.headersSent) res.writeContinue();
      read.call(this, size);
    };
    listener(req, res);
  };
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

/** Why the store is not answering (/ready), or undefined: a server database is asked, SQLite read. */
async function storeProblem(store: Store): Promise<string | undefined> {
  if (store.problem) return store.problem();
  try {
    await store.read(async () => undefined);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
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

/**
 * The banner's policies line (spec/policies.md, "At startup"): which types declare policy lines
 * and whether they narrow anything. Without an identity source every local caller is the owner,
 * whom policies do not bind.
 */
export function policiesInForce(types: readonly Pick<CatalogType, "name" | "policies">[], configured: boolean): string {
  const names = types.filter(hasPolicies).map((t) => t.name);
  if (names.length === 0) return "none declared: every caller that may call at all may do everything";
  const on = `${names.length === 1 ? "type" : "types"} ${names.join(", ")}`;
  if (!configured)
    return `declared on ${on}, not in force: no identity source is configured, so every local caller is the owner, whom policies do not narrow`;
  return `in force on ${on}; anonymous callers get only 'anyone' grants, the owner bypasses them`;
}

function startupBanner(
  app: { name: string; version: string },
  url: string,
  database: string,
  endpoints: { method: string; path: string; op: string }[],
  tools: string[],
  identity: string,
  policies: string,
  admin: string | undefined,
): string {
  const lines = [
    `wo: ${app.name} ${app.version} serving at ${url}`,
    `  database  ${database}`,
    `  identity  ${identity}`,
    `  policies  ${policies}`,
    `  mcp       ${url}/mcp (${tools.length} tools)`,
    `  explorer  ${url}/ (API docs: ${url}/docs)`,
    ...(admin ? [`  admin     ${admin} (/metrics, /live, /ready)`] : []),
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
