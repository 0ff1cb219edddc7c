// The instance's Prometheus metrics (spec/operations.md, "Metrics"), in a prom-client registry
// of its own (never the library's global one: two instances in one process must not count into
// each other). Gauges read the instance's parts when /metrics is scraped, so they cost nothing
// between scrapes.
//
// The per-request figures (HTTP, MCP, operations, store writes) are plain numbers: counts and
// fixed bucket arrays in series objects the request path holds already (a route template's, an
// operation's), so a request costs a few additions — no prom-client call, no label hashing, no
// lookup by a built string, no closure or promise. They become metrics only when scraped: each
// is a collector in the registry whose get() turns the series into prom-client's values.
//
// Every label value comes from a bounded set: route templates (never the raw path with its
// ids), operation and tool names of the build (an unknown name a client sends is "unknown"),
// MCP method names the server serves, OperationError kinds, HTTP methods and statuses.

// The clock by import: the global `performance` is a getter, called on each use (per request).
import { performance } from "node:perf_hooks";
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from "prom-client";

export interface MetricSources {
  /** Calls running and waiting for a slot (runtime/operations/limit.ts). */
  concurrency(): { running: number; queued: number };
  /** Long-lived streams open: REST live streams, MCP GET and listen streams (runtime/stream-budget.ts). */
  streams(): number;
  /** 2025-era MCP sessions kept by this instance. */
  mcpSessions(): number;
  /** The store's pool (PostgreSQL); undefined for a store without one. */
  pool(): { total: number; idle: number; waiting: number } | undefined;
  /** Whether `name` is a tool of the build serving now (any other name is labelled "unknown"). */
  isTool(name: string): boolean;
}

/** The figures of one route template: what the edge stamps on a request (observe.ts). */
export interface HttpRoute {
  /** The template: `/api/posts/:id`, `/mcp`, `/healthz`, `/_wo`, or `other`. */
  readonly route: string;
}

/** The figures of one operation: the operation pipeline holds it (runtime/operations/bind.ts). */
export interface OperationFigures {
  /** One call ended: "ok", the OperationError kind that ended it, or "internal"; `started`: performance.now() at its start. */
  record(outcome: string, started: number): void;
}

export interface Metrics {
  /** Prometheus text exposition of every metric. */
  text(): Promise<string>;
  readonly contentType: string;
  /** The figures of a route template (the same object for the same template, across reloads). */
  route(template: string): HttpRoute;
  /** One HTTP request answered: its route (`route()`), method, status; `started`: performance.now() at its arrival. */
  httpRequest(route: HttpRoute, method: string | undefined, status: number, started: number): void;
  /** One MCP request (JSON-RPC method; the tool of tools/call) and how it ended. */
  mcpRequest(method: string, tool: string | undefined, outcome: McpOutcome, started: number): void;
  /** The figures of an operation (the same object for the same name, across reloads). */
  operation(name: string): OperationFigures;
  /** One store write, from submission to durable commit, and the rows it changed (undefined: rolled back). */
  storeWrite(started: number, rows: number | undefined): void;
  /**
   * A call refused by a rate limit (`kind`: reads, writes, calls): the rate limiter calls this
   * for every refusal it answers (REST 429, the MCP "Rate limited" tool error).
   */
  rateLimited(kind: string): void;
}

export type McpOutcome = "ok" | "tool_error" | "rpc_error";

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const rowBuckets = [0, 1, 2, 5, 10, 50, 100, 1000, 10000];
const httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"];

/** Index of an HTTP method in httpMethods: a method not listed is "other". */
function methodIndex(method: string | undefined): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "PATCH":
      return 4;
    case "DELETE":
      return 5;
    case "OPTIONS":
      return 6;
    default:
      return 7;
  }
}

/** A histogram in plain numbers: the count per bucket (not cumulative; above the last: count only), sum, count. */
class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
  }
}

/** Counts by a key from a small set (statuses, outcomes): a linear search is cheaper than hashing. */
class Tally<K> {
  readonly keys: K[] = [];
  readonly counts: number[] = [];
  add(key: K): void {
    const i = this.keys.indexOf(key);
    if (i >= 0) this.counts[i]!++;
    else {
      this.keys.push(key);
      this.counts.push(1);
    }
  }
}

/** One method of one route: its latency and its answers by status. */
interface MethodFigures {
  readonly seconds: Buckets;
  readonly statuses: Tally<number>;
}

class RouteFigures implements HttpRoute {
  readonly methods: (MethodFigures | undefined)[] = new Array(httpMethods.length).fill(undefined);
  constructor(readonly route: string) {}
}

class OperationTally implements OperationFigures {
  readonly seconds = new Buckets(latencyBuckets);
  readonly outcomes = new Tally<string>();
  constructor(readonly name: string) {}
  record(outcome: string, started: number): void {
    this.seconds.observe((performance.now() - started) / 1000);
    this.outcomes.add(outcome);
  }
}

/** One MCP method, or one tool of tools/call: its latency and its answers by outcome. */
interface McpFigures {
  readonly method: string;
  readonly tool: string;
  readonly seconds: Buckets;
  readonly outcomes: Tally<McpOutcome>;
}

type Labels = Record<string, string | number>;
interface Value {
  value: number;
  labels: Labels;
  metricName?: string;
}

/** prom-client's values of one histogram series (what its own histograms give at scrape). */
function histogramValues(out: Value[], name: string, labels: Labels, h: Buckets): void {
  let cumulative = 0;
  for (let i = 0; i < h.bounds.length; i++) {
    cumulative += h.counts[i]!;
    out.push({ value: cumulative, labels: { le: h.bounds[i]!, ...labels }, metricName: `${name}_bucket` });
  }
  out.push({ value: h.count, labels: { le: "+Inf", ...labels }, metricName: `${name}_bucket` });
  out.push({ value: h.sum, labels, metricName: `${name}_sum` });
  out.push({ value: h.count, labels, metricName: `${name}_count` });
}

/** A metric of `registry` whose values are computed from the plain-number series when scraped. */
function collected(
  registry: Registry,
  name: string,
  help: string,
  type: "counter" | "histogram",
  values: () => Value[],
): void {
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: "sum",
    get: async () => ({ name, help, type, values: values(), aggregator: "sum" }),
  } as unknown as Metric);
}

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  // The series, kept for the instance's life (labels are bounded, so they are too).
  const routes = new Map<string, RouteFigures>();
  const operations = new Map<string, OperationTally>();
  const mcpMethods = new Map<string, McpFigures>();
  const mcpTools = new Map<string, McpFigures>();
  const writeSeconds = new Buckets(latencyBuckets);
  const writeRows = new Buckets(rowBuckets);

  collected(
    registry,
    "wo_http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    "counter",
    () => {
      const out: Value[] = [];
      for (const r of routes.values())
        r.methods.forEach((m, i) => {
          if (!m) return;
          m.statuses.keys.forEach((status, k) =>
            out.push({ value: m.statuses.counts[k]!, labels: { method: httpMethods[i]!, route: r.route, status } }),
          );
        });
      return out;
    },
  );
  collected(
    registry,
    "wo_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method and route template.",
    "histogram",
    () => {
      const out: Value[] = [];
      for (const r of routes.values())
        r.methods.forEach((m, i) => {
          if (m)
            histogramValues(
              out,
              "wo_http_request_duration_seconds",
              { method: httpMethods[i]!, route: r.route },
              m.seconds,
            );
        });
      return out;
    },
  );
  const mcpSeries = () => [...mcpMethods.values(), ...mcpTools.values()];
  collected(
    registry,
    "wo_mcp_requests_total",
    "MCP requests answered, by JSON-RPC method, tool (tools/call) and outcome.",
    "counter",
    () =>
      mcpSeries().flatMap((f) =>
        f.outcomes.keys.map((outcome, k) => ({
          value: f.outcomes.counts[k]!,
          labels: { method: f.method, tool: f.tool, outcome },
        })),
      ),
  );
  collected(
    registry,
    "wo_mcp_request_duration_seconds",
    "Time an MCP method took, by JSON-RPC method and tool (tools/call).",
    "histogram",
    () => {
      const out: Value[] = [];
      for (const f of mcpSeries())
        histogramValues(out, "wo_mcp_request_duration_seconds", { method: f.method, tool: f.tool }, f.seconds);
      return out;
    },
  );
  collected(
    registry,
    "wo_operations_total",
    "Operation calls (REST and MCP alike), by operation and outcome: ok or the error kind.",
    "counter",
    () =>
      [...operations.values()].flatMap((o) =>
        o.outcomes.keys.map((outcome, k) => ({
          value: o.outcomes.counts[k]!,
          labels: { operation: o.name, outcome },
        })),
      ),
  );
  collected(
    registry,
    "wo_operation_duration_seconds",
    "Time an operation call took (validation, policy, the wait for a slot, the body, the commit).",
    "histogram",
    () => {
      const out: Value[] = [];
      for (const o of operations.values())
        if (o.seconds.count > 0)
          histogramValues(out, "wo_operation_duration_seconds", { operation: o.name }, o.seconds);
      return out;
    },
  );
  collected(
    registry,
    "wo_store_write_duration_seconds",
    "Time a store write took from submission to durable commit (or rollback).",
    "histogram",
    () => {
      const out: Value[] = [];
      histogramValues(out, "wo_store_write_duration_seconds", {}, writeSeconds);
      return out;
    },
  );
  collected(
    registry,
    "wo_store_write_rows",
    "Rows a committed store write inserted, updated or deleted.",
    "histogram",
    () => {
      const out: Value[] = [];
      histogramValues(out, "wo_store_write_rows", {}, writeRows);
      return out;
    },
  );
  const rateLimitedTotal = new Counter({
    name: "wo_rate_limited_total",
    help: "Calls refused by a rate limit, by kind (reads, writes, calls).",
    labelNames: ["kind"] as const,
    registers,
  });
  new Gauge({
    name: "wo_operations_running",
    help: "Operation calls holding a concurrency slot now.",
    registers,
    collect() {
      this.set(sources.concurrency().running);
    },
  });
  new Gauge({
    name: "wo_operations_queued",
    help: "Operation calls waiting for a concurrency slot now.",
    registers,
    collect() {
      this.set(sources.concurrency().queued);
    },
  });
  new Gauge({
    name: "wo_streams_open",
    help: "Long-lived streams open now: REST live streams, MCP GET and subscriptions/listen streams.",
    registers,
    collect() {
      this.set(sources.streams());
    },
  });
  new Gauge({
    name: "wo_mcp_sessions",
    help: "2025-era MCP sessions this instance keeps now.",
    registers,
    collect() {
      this.set(sources.mcpSessions());
    },
  });
  // Only a store with a pool (PostgreSQL) has these: SQLite would show a pool that is not there.
  if (sources.pool() !== undefined) {
    new Gauge({
      name: "wo_store_pool_connections",
      help: "The store's pooled connections (PostgreSQL), by state: total or idle.",
      labelNames: ["state"] as const,
      registers,
      collect() {
        const use = sources.pool();
        if (!use) return;
        this.set({ state: "total" }, use.total);
        this.set({ state: "idle" }, use.idle);
      },
    });
    new Gauge({
      name: "wo_store_pool_waiting",
      help: "Callers waiting for a pooled connection (PostgreSQL).",
      registers,
      collect() {
        const use = sources.pool();
        if (use) this.set(use.waiting);
      },
    });
  }

  const mcpFigures = (method: string, tool: string | undefined): McpFigures => {
    // tools/call (the only method with a tool) is counted per tool, a name no tool has as
    // "unknown"; every other method by itself.
    const t = tool === undefined ? "" : sources.isTool(tool) ? tool : "unknown";
    const series = tool === undefined ? mcpMethods : mcpTools;
    const key = tool === undefined ? method : t;
    let f = series.get(key);
    if (!f) {
      f = { method, tool: t, seconds: new Buckets(latencyBuckets), outcomes: new Tally() };
      series.set(key, f);
    }
    return f;
  };

  return {
    text: () => registry.metrics(),
    contentType: registry.contentType,
    route(template) {
      let r = routes.get(template);
      if (!r) {
        r = new RouteFigures(template);
        routes.set(template, r);
      }
      return r;
    },
    httpRequest(route, method, status, started) {
      const i = methodIndex(method);
      const methods = (route as RouteFigures).methods;
      let m = methods[i];
      if (!m) {
        m = { seconds: new Buckets(latencyBuckets), statuses: new Tally() };
        methods[i] = m;
      }
      m.seconds.observe((performance.now() - started) / 1000);
      m.statuses.add(status);
    },
    mcpRequest(method, tool, outcome, started) {
      const f = mcpFigures(method, tool);
      f.seconds.observe((performance.now() - started) / 1000);
      f.outcomes.add(outcome);
    },
    operation(name) {
      let o = operations.get(name);
      if (!o) {
        o = new OperationTally(name);
        operations.set(name, o);
      }
      return o;
    },
    storeWrite(started, rows) {
      writeSeconds.observe((performance.now() - started) / 1000);
      if (rows !== undefined) writeRows.observe(rows);
    },
    rateLimited(kind) {
      rateLimitedTotal.inc({ kind });
    },
  };
}
