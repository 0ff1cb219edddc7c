// The instance's Prometheus metrics (spec/operations.md, "Metrics"), in a prom-client registry
// of its own (never the library's global one: two instances in one process must not count into
// each other). Counters and histograms are fed by the request path; gauges read the instance's
// parts when /metrics is scraped, so they cost nothing between scrapes.
//
// Every label value comes from a bounded set: route templates (never the raw path with its
// ids), operation and tool names of the build (an unknown name a client sends is "unknown"),
// MCP method names the server serves, OperationError kinds, HTTP methods and statuses.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The instance's parts the gauges read at scrape time. */
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

export interface Metrics {
  /** Prometheus text exposition of every metric. */
  text(): Promise<string>;
  readonly contentType: string;
  /** One HTTP request answered: its method, route template ("unmatched" when none), status. */
  httpRequest(method: string | undefined, route: string, status: number, seconds: number): void;
  /** One MCP request (JSON-RPC method; the tool of tools/call) and how it ended. */
  mcpRequest(method: string, tool: string | undefined, outcome: McpOutcome, seconds: number): void;
  /** One operation call: "ok", the OperationError kind that ended it, or "internal". */
  operation(name: string, outcome: string, seconds: number): void;
  /** One store write, from submission to durable commit, and the rows it changed (undefined: rolled back). */
  storeWrite(seconds: number, rows: number | undefined): void;
  /**
   * A call refused by a rate limit (`kind`: reads, writes, calls): the rate limiter calls this
   * for every refusal it answers (REST 429, the MCP "Rate limited" tool error).
   */
  rateLimited(kind: string): void;
}

export type McpOutcome = "ok" | "tool_error" | "rpc_error";

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const rowBuckets = [0, 1, 2, 5, 10, 50, 100, 1000, 10000];
const httpMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const httpTotal = new Counter({
    name: "wo_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const httpSeconds = new Histogram({
    name: "wo_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer, by method and route template.",
    labelNames: ["method", "route"] as const,
    buckets: latencyBuckets,
    registers,
  });
  const mcpTotal = new Counter({
    name: "wo_mcp_requests_total",
    help: "MCP requests answered, by JSON-RPC method, tool (tools/call) and outcome.",
    labelNames: ["method", "tool", "outcome"] as const,
    registers,
  });
  const mcpSeconds = new Histogram({
    name: "wo_mcp_request_duration_seconds",
    help: "Time an MCP method took, by JSON-RPC method and tool (tools/call).",
    labelNames: ["method", "tool"] as const,
    buckets: latencyBuckets,
    registers,
  });
  const operationTotal = new Counter({
    name: "wo_operations_total",
    help: "Operation calls (REST and MCP alike), by operation and outcome: ok or the error kind.",
    labelNames: ["operation", "outcome"] as const,
    registers,
  });
  const operationSeconds = new Histogram({
    name: "wo_operation_duration_seconds",
    help: "Time an operation call took (validation, policy, the wait for a slot, the body, the commit).",
    labelNames: ["operation"] as const,
    buckets: latencyBuckets,
    registers,
  });
  const writeSeconds = new Histogram({
    name: "wo_store_write_duration_seconds",
    help: "Time a store write took from submission to durable commit (or rollback).",
    buckets: latencyBuckets,
    registers,
  });
  const writeRows = new Histogram({
    name: "wo_store_write_rows",
    help: "Rows a committed store write inserted, updated or deleted.",
    buckets: rowBuckets,
    registers,
  });
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

  // prom-client hashes the label values on every observation; the children are kept per label
  // combination instead (bounded, as the labels are), so a request costs two map lookups.
  const httpChildren = new Map<string, { total: Counter.Internal; seconds: Histogram.Internal<string> }>();
  const mcpChildren = new Map<string, { total: Counter.Internal; seconds: Histogram.Internal<string> }>();
  const operationChildren = new Map<string, { total: Counter.Internal; seconds: Histogram.Internal<string> }>();

  return {
    text: () => registry.metrics(),
    contentType: registry.contentType,
    httpRequest(method, route, status, seconds) {
      const m = method !== undefined && httpMethods.has(method) ? method : "other";
      const key = `${m} ${status} ${route}`;
      let child = httpChildren.get(key);
      if (!child) {
        child = { total: httpTotal.labels(m, route, String(status)), seconds: httpSeconds.labels(m, route) };
        httpChildren.set(key, child);
      }
      child.total.inc();
      child.seconds.observe(seconds);
    },
    mcpRequest(method, tool, outcome, seconds) {
      const t = tool === undefined ? "" : sources.isTool(tool) ? tool : "unknown";
      const key = `${method} ${t} ${outcome}`;
      let child = mcpChildren.get(key);
      if (!child) {
        child = { total: mcpTotal.labels(method, t, outcome), seconds: mcpSeconds.labels(method, t) };
        mcpChildren.set(key, child);
      }
      child.total.inc();
      child.seconds.observe(seconds);
    },
    operation(name, outcome, seconds) {
      const key = `${name} ${outcome}`;
      let child = operationChildren.get(key);
      if (!child) {
        child = { total: operationTotal.labels(name, outcome), seconds: operationSeconds.labels(name) };
        operationChildren.set(key, child);
      }
      child.total.inc();
      child.seconds.observe(seconds);
    },
    storeWrite(seconds, rows) {
      writeSeconds.observe(seconds);
      if (rows !== undefined) writeRows.observe(rows);
    },
    rateLimited(kind) {
      rateLimitedTotal.inc({ kind });
    },
  };
}
