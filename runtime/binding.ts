// One build bound to a running instance (runtime/instance.ts): its operations bound to the
// instance's store and concurrency budget, its REST routes and explorer pages as one hono app,
// and what the MCP endpoint serves of it. A binding owns no resources — no stream, no timer, no
// connection — so a `wo run --watch` swap replaces it by dropping the reference, and nothing of
// an old binding needs closing. Who may send a request, and as whom, is decided before a
// request reaches these routes (runtime/edge.ts).

import { Hono } from "hono";
import type { WoConfig } from "../model/app.js";
import type { Operation } from "../model/build-contract.js";
import type { Store } from "../model/store.js";
import { createExplorerRoutes } from "./explorer/routes.js";
import { addCorsHeaders } from "./http-guard.js";
import type { LoadedBuild } from "./load-build.js";
import type { McpBuild } from "./mcp/index.js";
import { nodeBindings, requestPrincipal } from "./node-bindings.js";
import { bindOperations } from "./operations/bind.js";
import type { ConcurrencyLimiter } from "./operations/limit.js";
import type { OperationPolicy } from "./operations/policy.js";
import type { RateLimiter } from "./operations/rate-limit.js";
import { createOperationRuntime } from "./operations/runtime.js";
import type { LiveStreams } from "./rest/live.js";
import { problemResponse } from "./rest/problem.js";
import { createRestRoutes, restEndpoints } from "./rest/routes.js";
import { createAuditRoutes } from "./rest/audit-route.js";

/** The instance's per-process parts a binding uses (and never closes). */
export interface BindingDeps {
  store: Store;
  config: WoConfig;
  limiter: ConcurrencyLimiter;
  policy: OperationPolicy;
  /** The callers' rate limits, shared by every build served (absent: none is set). */
  rate?: RateLimiter | undefined;
  live: LiveStreams;
  log: (line: string) => void;
}

export interface Binding {
  build: LoadedBuild;
  /** The bound operation handlers, keyed by tool name: what REST, MCP, `wo exec` and `wo test` call. */
  operations: Record<string, Operation>;
  /** REST, the explorer, `/docs`, `/openapi.json`, `/healthz`: every route but /mcp and /_wo/. */
  routes: Hono;
  /** What the MCP endpoint serves of this build (McpHandler.setBuild). */
  mcpBuild: McpBuild;
}

export function bindBuild(build: LoadedBuild, deps: BindingDeps): Binding {
  const { store, config, log } = deps;
  const rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log });
  const operations = bindOperations({
    app: build.catalog,
    rt,
    generated: build.operations,
    limiter: deps.limiter,
    policy: deps.policy,
    rate: deps.rate,
    log,
  });
  const routes = new Hono({ strict: false });
  // The edge admitted the request's Origin; a page from it may read the answer. Synchronous
  // when there is no Origin: this runs on every REST request, and an async middleware costs a
  // promise per request.
  routes.use("*", (c, next) => {
    const incoming = nodeBindings(c).incoming;
    // node's own header object when there is one: asking the fetch-API request for a header
    // makes @hono/node-server build a whole Headers object for every request.
    const origin = incoming ? incoming.headers.origin : c.req.header("origin");
    if (!origin || c.req.path === "/healthz") return next();
    return next().then(() => addCorsHeaders(c.res.headers, origin));
  });
  // A server database (PostgreSQL) can be gone while this process runs: a load balancer
  // should then send requests elsewhere. The why stays out of the answer (anyone may ask;
  // spec/security.md): the operation log says it.
  routes.get("/healthz", async (c) => {
    const problem = await store.problem?.();
    return problem === undefined ? c.text("ok") : c.text("database unavailable", 503);
  });
  routes.route("/", createExplorerRoutes({ build, info: runtimeInfo(build) }));
  // The audit trail, for the owner only: the principal is the one the edge resolved.
  routes.route("/", createAuditRoutes({ store, principalOf: requestPrincipal }));
  routes.route(
    "/",
    createRestRoutes({
      catalog: build.catalog,
      operations,
      maxBodyBytes: config.maxBodyBytes,
      live: deps.live,
      log,
      validate: (name, input) => rt.validate(name, input),
    }),
  );
  routes.notFound((c) =>
    problemResponse(
      c,
      "route_not_found",
      `No route for ${c.req.method} ${new URL(c.req.url).pathname}; GET / lists the endpoints.`,
    ),
  );
  routes.onError((err, c) => {
    log(`${c.req.method} ${new URL(c.req.url).pathname}: unexpected ${err.name}: ${err.message}`);
    return problemResponse(
      c,
      "internal",
      "The server failed to complete the request. Try again, and report it if it persists.",
    );
  });
  return {
    build,
    operations,
    routes,
    mcpBuild: {
      catalog: build.catalog,
      operations,
      store,
      serverInfo: { name: build.catalog.app.name, version: build.catalog.app.version },
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
