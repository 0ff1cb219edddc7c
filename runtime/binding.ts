// One build bound to a running instance (runtime/instance.ts): its operations bound to the
// instance's store and concurrency budget, its REST routes and explorer pages as one hono app,
// and what the MCP endpoint serves of it. A binding owns no resources — no stream, no timer, no
// connection — so a `wo run --watch` swap replaces it by dropping the reference, and nothing of
// an old binding needs closing. Who may send a request, and as whom, is decided before a
// request reaches these routes (runtime/edge.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import { Hono } from "hono";
import { enqueuedJobs, type WoConfig } from "../model/app.js";
import type { Operation } from "../model/build-contract.js";
import type { RowChange, Store } from "../model/store.js";
import { createExplorerRoutes } from "./explorer/routes.js";
import { addCorsHeaders } from "./http-guard.js";
import type { LoadedBuild } from "./load-build.js";
import type { McpBuild } from "./mcp/index.js";
import { nodeBindings, requestPrincipal } from "./node-bindings.js";
import { admission, bindOperations } from "./operations/bind.js";
import type { ConcurrencyLimiter } from "./operations/limit.js";
import type { OperationPolicy } from "./operations/policy.js";
import type { RateLimiter } from "./operations/rate-limit.js";
import { createOperationRuntime } from "./operations/runtime.js";
import type { LiveStreams } from "./rest/live.js";
import { problemResponse, unexpectedAnswer } from "./rest/problem.js";
import { createRestRoutes, restEndpoints } from "./rest/routes.js";
import { createAuditRoutes } from "./rest/audit-route.js";
import { createJobRoutes } from "./rest/jobs-route.js";
import { runnableJobs } from "./jobs/runner.js";
import { observedStore, routeTag, stampRoute, traceOf } from "./telemetry/observe.js";
import type { Telemetry } from "./telemetry/telemetry.js";

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
  /** The instance's telemetry (runtime/telemetry/telemetry.ts); absent: nothing is observed. */
  telemetry?: Telemetry;
}

export interface Binding {
  build: LoadedBuild;
  /** The bound operation handlers, keyed by tool name: what REST, MCP, `wo exec` and `wo test` call. */
  operations: Record<string, Operation>;
  /** REST, the explorer, `/docs`, `/openapi.json`, `/healthz`: every route but /mcp and /_wo/. */
  routes: Hono;
  /**
   * Answers a plain GET by id on node's objects, as `routes` would (rest/routes.ts); false:
   * the request is left to `routes`.
   */
  answerGet(incoming: IncomingMessage, outgoing: ServerResponse): boolean;
  /** What the MCP endpoint serves of this build (McpHandler.setBuild). */
  mcpBuild: McpBuild;
  /**
   * Whether an anonymous caller may reach `path` (`mcp`: /mcp): only when some policy line
   * grants `anyone` something, and then only /mcp and the operations' REST routes, where the
   * policies decide (runtime/operations/policy.ts). Everything else stays 401 (spec/security.md).
   */
  admitsAnonymous(path: string, mcp: boolean): boolean;
  /** Before serving: fill `@materialized` columns, refuse rows that break a boolean `@check` (runtime/operations/row-exprs.ts). */
  settle(): Promise<void>;
  /** A committed change as live streams send it: with its row's computed fields (row-exprs.ts `present`). */
  presentChange(change: RowChange): RowChange;
}

export function bindBuild(build: LoadedBuild, deps: BindingDeps): Binding {
  const { store, config, log, telemetry } = deps;
  // Under telemetry the operations see the store timed and traced; /healthz and the rest, as it is.
  const operationStore = telemetry ? observedStore(telemetry, store, store.poolUse ? "postgresql" : "sqlite") : store;
  const rt = createOperationRuntime({
    catalog: build.catalog,
    store: operationStore,
    validators: build.validators,
    log,
  });
  // Work that is no operation (event reads, the job workers' routes) spends the same budgets.
  const admit = admission(deps.limiter, deps.rate);
  const operations = bindOperations({
    app: build.catalog,
    rt,
    generated: build.operations,
    limiter: deps.limiter,
    policy: deps.policy,
    rate: deps.rate,
    log,
    ...(telemetry ? { telemetry } : {}),
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
  routes.route("/", createExplorerRoutes({ build, info: () => runtimeInfo(build) }));
  // The audit trail, for the owner only: the principal is the one the edge resolved.
  routes.route("/", createAuditRoutes({ store, principalOf: requestPrincipal }));
  // The jobs no fn runs, for external workers: the owner and [jobs] worker_roles (jobs-route.ts).
  if (store.jobs && enqueuedJobs(build.catalog).length > 0)
    routes.route(
      "/",
      createJobRoutes({
        jobs: store.jobs,
        store,
        settings: config.jobs,
        runnable: () => runnableJobs(operations),
        admit,
        maxBodyBytes: config.maxBodyBytes,
        principalOf: requestPrincipal,
        log,
      }),
    );
  const rest = createRestRoutes({
    catalog: build.catalog,
    operations,
    maxBodyBytes: config.maxBodyBytes,
    live: deps.live,
    store,
    log,
    validate: (name, input) => rt.validate(name, input),
    // Under telemetry the edge counts a request under the route template that took it
    // (`/api/posts/:id`, never the path with its ids): each route stamps its template's
    // figures, found once here, on the request.
    ...(telemetry
      ? {
          onRoute: (path: string) => {
            const tag = routeTag(telemetry, path);
            return (incoming: IncomingMessage) => stampRoute(incoming, tag);
          },
        }
      : {}),
    // Only traces hand anything down to the operations.
    ...(telemetry?.tracing
      ? { traceOf: (incoming: IncomingMessage | undefined) => incoming && traceOf(incoming) }
      : {}),
  });
  routes.route("/", rest.app);
  routes.notFound((c) =>
    problemResponse(
      c,
      "route_not_found",
      `No route for ${c.req.method} ${new URL(c.req.url).pathname}; GET / lists the endpoints.`,
    ),
  );
  routes.onError((err, c) => {
    const answer = unexpectedAnswer(log, c.req.method, new URL(c.req.url).pathname, err);
    return c.body(answer.body, answer.status, answer.headers);
  });
  return {
    build,
    operations,
    routes,
    answerGet: rest.answerGet,
    settle: rt.settleRowExprs,
    presentChange: rt.presentChange,
    admitsAnonymous: anonymousRoutes(build),
    mcpBuild: {
      catalog: build.catalog,
      operations,
      store,
      serverInfo: { name: build.catalog.app.name, version: build.catalog.app.version },
      admit,
    },
  };
}

function anonymousRoutes(build: LoadedBuild): Binding["admitsAnonymous"] {
  const { catalog } = build;
  const grantsAnyone = catalog.types.some((t) => t.policies?.some((g) => g.grantee.kind === "anyone"));
  if (!grantsAnyone) return () => false;
  const pattern = (path: string) => path.split("/").map(segment).join("/");
  // The operations' routes, and live streams (`GET …/live`) too: the route refuses anonymous
  // where no line grants it a read (runtime/rest/routes.ts), and filters each change by the
  // caller's read policy. One expression for all of them, built once: asked per anonymous request.
  const paths = new Set([
    ...catalog.operations.flatMap((o) => o.routes.map((r) => pattern(r.path))),
    ...catalog.runtimeRoutes.map((r) => pattern(r.path)),
  ]);
  const routed = new RegExp(`^(?:${[...paths].join("|")})$`);
  return (path, mcp) => mcp || routed.test(path);
}

/** One route segment as a pattern: `:id` matches any one segment, the rest literally. */
function segment(s: string): string {
  return s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
