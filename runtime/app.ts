// createApp: one hono app serving a loaded build over a store — `/api` (REST, the paths of
// `service rest` blocks), `/mcp`, `GET /` (runtime info, or the web explorer for a browser),
// `/docs`, `/openapi.json` and `GET /healthz`. Owns the wiring:
// the operation handlers are bound to the store once here and both adapters call the same
// ones. Leaves listening, locking and shutdown to server.ts. Under `wo run --watch` a new
// build gets a new app that carries over the old one's process-lived parts (AppParts: the
// MCP endpoint with its sessions and streams, the concurrency budget); app-host.ts swaps them.

import { nodeBindings } from "./node-bindings.js";
import { Hono } from "hono";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WoConfig } from "../model/app.js";
import type { Operation } from "../model/build-contract.js";
import type { LoadedBuild } from "./load-build.js";
import { createExplorerRoutes, isTokenFree } from "./explorer/routes.js";
import { addCorsHeaders, allowedOriginsOf, createHttpGuard, isPreflight } from "./http-guard.js";
import { createMcpHandler, type McpBuild, type McpHandler } from "./mcp/index.js";
import { mcpRoutesFor, serveMcpFetch } from "./mcp/fetch.js";
import { serveMcpNode } from "./mcp/node.js";
import { bindOperations } from "./operations/bind.js";
import { createConcurrencyLimit, type ConcurrencyLimiter } from "./operations/limit.js";
import { admitEverything, type OperationPolicy } from "./operations/policy.js";
import { createOperationRuntime } from "./operations/runtime.js";
import { serveManagement, type ManagementOptions } from "./ops/management.js";
import { bearerAuth, tokenCheck, UNAUTHORIZED_DETAIL, UNAUTHORIZED_HEADERS } from "./rest/auth.js";
import { logWhenFinished, type RequestLogger } from "./request-log.js";
import { problem, problemResponse } from "./rest/problem.js";
import { createLiveStreams } from "./rest/live.js";
import { createRestRoutes, restEndpoints } from "./rest/routes.js";
import { createAuditRoutes } from "./rest/audit-route.js";
import type { Store } from "../model/store.js";

export interface AppOptions {
  build: LoadedBuild;
  store: Store;
  /** Defaults to the build's catalog config (wo.toml). */
  config?: WoConfig;
  /** The bearer token itself (server.ts reads it from `config.tokenEnv`); none → open. */
  token?: string;
  log?: (line: string) => void;
  /** The host the server listens on: loopback turns on the Host check (undefined counts as loopback). */
  listenHost?: string;
  /** A background instance's management endpoint (runtime/ops/management.ts); none → no /_wo/. */
  management?: Omit<ManagementOptions, "guard">;
  /** `wo run --watch`: builds replace each other, so MCP declares listChanged (runtime/mcp/list-changes.ts). */
  watching?: boolean;
  /** The app this one replaces (app-host.ts): its AppParts carry over, so sessions, streams and the budget survive. */
  replacing?: App;
  /** Who may run which operation (runtime/operations/policy.ts); default: everyone, everything. */
  policy?: OperationPolicy;
}

/** What outlives a build: created by the first app, carried over by each app that replaces it. */
export interface AppParts {
  mcp: McpHandler;
  limit: ConcurrencyLimiter;
  /** Aborted at shutdown: queued calls (of any build) are refused. */
  shutdown: AbortController;
}

export interface App {
  /** Everything, /mcp included, as a fetch-API app. */
  hono: Hono;
  /**
   * /mcp straight on node:http, bypassing the fetch-API adaptation: what `wo run` uses for
   * requests to /mcp (same handler, same bearer-token rule as `hono`). `log`: the request log.
   */
  serveMcp(incoming: IncomingMessage, res: ServerResponse, log?: RequestLogger): void;
  /** The bound operation handlers, keyed by tool name: what REST and MCP both call. */
  operations: Record<string, Operation>;
  /** What MCP serves of this app's build; app-host.ts hands it to `parts.mcp.setBuild` when this app takes over. */
  mcpBuild: McpBuild;
  parts: AppParts;
  /** /_wo/… (status, stop) on node:http, when the app was given `management`. */
  serveManagement?: (incoming: IncomingMessage, res: ServerResponse) => void;
  /**
   * Shutdown: calls still waiting for a slot (and any new one) are refused as busy — none of
   * them has started, so nothing is lost — and MCP sessions and streams end, so a shutdown does
   * not wait on them. Running calls finish.
   */
  close(): void;
}

export function createApp(options: AppOptions): App {
  const { build, store } = options;
  const config = options.config ?? build.catalog.config;
  const log = options.log ?? ((line: string) => process.stderr.write(`wo: ${line}\n`));
  const rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log });
  const shutdown = options.replacing?.parts.shutdown ?? new AbortController();
  const limit = options.replacing?.parts.limit ?? createConcurrencyLimit(config.concurrency, shutdown.signal);
  const operations = bindOperations({
    app: build.catalog,
    rt,
    generated: build.operations,
    limiter: limit,
    policy: options.policy ?? admitEverything,
    log,
  });

  // One Host/Origin policy for every route but /healthz, /mcp included (spec/security.md).
  const guard = createHttpGuard({
    allowedOrigins: allowedOriginsOf(config),
    ...(options.listenHost !== undefined ? { listenHost: options.listenHost } : {}),
  });
  const mcpBuild: McpBuild = {
    catalog: build.catalog,
    operations,
    store,
    serverInfo: { name: build.catalog.app.name, version: build.catalog.app.version },
  };
  const mcpHandler =
    options.replacing?.parts.mcp ??
    createMcpHandler({ ...mcpBuild, config, guard, options: { log, listChanged: options.watching ?? false } });
  const mcp = mcpRoutesFor(mcpHandler);

  const app = new Hono({ strict: false });
  // Host and Origin first: before the token, before any body is read.
  // Synchronous unless there is an Origin to answer with CORS headers: this runs on every REST
  // request, and an async middleware costs a promise per request.
  app.use("*", (c, next) => {
    const incoming = nodeBindings(c).incoming;
    // node's own header object when there is one: asking the fetch-API request for a header
    // makes @hono/node-server build a whole Headers object for every request.
    const origin = incoming ? incoming.headers.origin : c.req.header("origin");
    // A request made in process (no socket) has no Host header: its URL names the host.
    const refused = guard.refusal(
      origin,
      incoming ? incoming.headers.host : (c.req.header("host") ?? new URL(c.req.url).host),
    );
    if (refused === undefined && !origin) return next();
    const path = c.req.path;
    if (path === "/healthz") return next();
    const isMcp = path === "/mcp" || path === "/mcp/";
    if (refused !== undefined) {
      // /mcp words refusals as JSON-RPC errors: its handler refuses the same request itself.
      if (isMcp) return serveMcpFetch(mcpHandler, c.req.raw, incoming);
      return Promise.resolve(problemResponse(c, "forbidden", `${refused}.`));
    }
    // /mcp adds its own CORS headers.
    if (isMcp) return next();
    return next().then(() => addCorsHeaders(c.res.headers, origin!));
  });
  if (options.token) {
    // Everything but /healthz and the explorer's pages and static files, which hold no data:
    // REST paths are whatever `service rest` says, not necessarily under /api. A preflight
    // carries no token; the guard has admitted its origin, and its answer is only the methods
    // and headers a page may use.
    const auth = bearerAuth(options.token);
    app.use("*", async (c, next) => {
      const path = c.req.path;
      if (
        path === "/healthz" ||
        isTokenFree(path) ||
        isPreflight(c.req.method, c.req.header("origin"), c.req.header("access-control-request-method"))
      )
        return next();
      return auth(c, next);
    });
  }

  // A server database (PostgreSQL) can be gone while this process runs: a load balancer
  // should then send requests elsewhere. The why stays out of the answer (anyone may ask;
  // spec/security.md): the operation log says it.
  app.get("/healthz", async (c) => {
    const problem = await store.problem?.();
    return problem === undefined ? c.text("ok") : c.text("database unavailable", 503);
  });
  app.route("/", createExplorerRoutes({ build, info: runtimeInfo(build) }));

  app.route("/mcp", mcp);
  app.route("/", createAuditRoutes({ store }));

  const live = createLiveStreams(store, log);
  app.route(
    "/",
    createRestRoutes({ catalog: build.catalog, operations, maxBodyBytes: config.maxBodyBytes, live, log }),
  );

  app.notFound((c) =>
    problemResponse(
      c,
      "route_not_found",
      `No route for ${c.req.method} ${new URL(c.req.url).pathname}; GET / lists the endpoints.`,
    ),
  );
  app.onError((err, c) => {
    log(`${c.req.method} ${new URL(c.req.url).pathname}: unexpected ${err.name}: ${err.message}`);
    return problemResponse(
      c,
      "internal",
      "The server failed to complete the request. Try again, and report it if it persists.",
    );
  });
  const allowed = options.token ? tokenCheck(options.token) : undefined;
  const unauthorized = JSON.stringify(problem("unauthorized", UNAUTHORIZED_DETAIL));
  const serveMcp = (incoming: IncomingMessage, res: ServerResponse, log?: RequestLogger) => {
    // Host/Origin before the token: a refused request (403) and an admitted preflight (204) are
    // the handler's to answer, with or without a token.
    const h = incoming.headers;
    if (
      allowed &&
      guard.refusal(h.origin, h.host) === undefined &&
      !isPreflight(incoming.method, h.origin, h["access-control-request-method"]) &&
      !allowed(h.authorization)
    ) {
      if (log) logWhenFinished(log, incoming, res);
      res.writeHead(401, {
        "content-type": "application/problem+json",
        ...UNAUTHORIZED_HEADERS,
        "content-length": Buffer.byteLength(unauthorized),
      });
      res.end(unauthorized);
      return;
    }
    serveMcpNode(mcpHandler, incoming, res, log);
  };
  // The management endpoint: its own key (never the bearer token), the same Host/Origin guard.
  const management = options.management && {
    ...options.management,
    guard: (origin: string | undefined, host: string | undefined) => guard.refusal(origin, host),
  };
  return {
    hono: app,
    serveMcp,
    operations,
    mcpBuild,
    parts: { mcp: mcpHandler, limit, shutdown },
    ...(management
      ? {
          serveManagement: (incoming: IncomingMessage, res: ServerResponse) =>
            serveManagement(management, incoming, res),
        }
      : {}),
    close: () => {
      shutdown.abort();
      mcpHandler.close();
      live.closeAll();
    },
  };
}

function runtimeInfo(build: LoadedBuild) {
  const { app } = build.catalog;
  return {
    app: app.name,
    version: app.version,
    ...(app.description ? { description: app.description } : {}),
    types: build.catalog.types.map((t) => t.name),
    endpoints: restEndpoints(build.catalog),
    mcp: { path: "/mcp", tools: build.catalog.operations.filter((o) => o.mcp).length },
  };
}
