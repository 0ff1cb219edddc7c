// Where telemetry meets the request path: the HTTP edge (one observation per request), the
// operations (a span per call in a sampled trace), the store (one per transaction) and MCP (a
// span per method call in a sampled trace). The metrics of an operation and of an MCP call are
// counted where they run (runtime/operations/bind.ts, runtime/mcp/calls.ts), without a wrapper.
// Each helper is applied only when the instance has telemetry: without it the edge, the
// operations and the store are exactly what they are without this module.

// The clock by import: the global `performance` is a getter, called on each use (per request).
import { performance } from "node:perf_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallContext, Operation } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import type { Store, StoreTx } from "../../model/store.js";
import { withTrace } from "../operations/call-context.js";
import { withWrites } from "../operations/tx-wrapper.js";
import type { HttpRoute } from "./metrics.js";
import type { SpanHandle } from "./tracing.js";
import type { Telemetry } from "./telemetry.js";

const routeKey = Symbol("wo.route");
const traceKey = Symbol("wo.trace");
const startedKey = Symbol("wo.started");
const spanKey = Symbol("wo.span");
type RoutedRequest = IncomingMessage & { [routeKey]?: HttpRoute; [traceKey]?: unknown };
type ObservedResponse = ServerResponse & { [startedKey]: number; [spanKey]?: SpanHandle };

/** The trace of a request's server span, when it is traced: the spans of its calls join it. */
export function traceOf(req: IncomingMessage): unknown {
  return (req as RoutedRequest)[traceKey];
}

/**
 * What a request answered by `route` is counted and named under: the metrics' figures of that
 * template (one object per template, made once, so a request only stores it), or the bare name
 * when only traces are on.
 */
export function routeTag(t: Telemetry, route: string): HttpRoute {
  return t.metrics?.route(route) ?? { route };
}

/** Records which route template answered a request (the REST routes, /mcp, /_wo/, /healthz). */
export function stampRoute(req: IncomingMessage, route: HttpRoute): void {
  (req as RoutedRequest)[routeKey] = route;
}

/**
 * The edge's observer: called at each request's arrival, it starts the request's server span
 * (when tracing and sampled), and when the answer is done (or the connection closed; a stream:
 * when it ends) the span ends and the request is counted under its route template — "other"
 * when no route took it (the explorer and /docs, a 404, a refusal at the edge). Per request: a
 * clock reading, a property and one listener, a function made once here (its `this` is the
 * response, which names its request); with traces only, a request not sampled gets none.
 */
export function requestObserver(t: Telemetry): (req: IncomingMessage, res: ServerResponse) => void {
  const { metrics, tracing } = t;
  const other = routeTag(t, "other");
  function finished(this: ServerResponse): void {
    const res = this as ObservedResponse;
    const req = res.req as RoutedRequest;
    const route = req[routeKey] ?? other;
    const status = res.statusCode;
    metrics?.httpRequest(route, req.method, status, res[startedKey]);
    const span = res[spanKey];
    if (span) {
      span.updateName(`${req.method ?? "GET"} ${route.route}`);
      span.setAttribute("http.route", route.route);
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
      span.end();
    }
  }
  if (!tracing)
    return (_req, res) => {
      (res as ObservedResponse)[startedKey] = performance.now();
      res.on("close", finished);
    };
  return (req, res) => {
    const traced = tracing.serveRequest(req);
    // Every request gets the same properties in the same order, traced or not: a sampled one
    // with other properties than the rest would give node's request and response objects two
    // shapes, and its HTTP code (and the pipeline's) then runs slower for every request.
    (req as RoutedRequest)[traceKey] = traced?.trace;
    (res as ObservedResponse)[spanKey] = traced?.span;
    (res as ObservedResponse)[startedKey] = performance.now();
    // Traces only, and this request is not sampled: nothing to end.
    if (traced || metrics) res.on("close", finished);
  };
}

/** How a call ended, as the metrics label it: ok, the OperationError kind, or internal. */
export function outcomeOf(err: unknown): string {
  return err instanceof OperationError ? err.kind : "internal";
}

/**
 * `operation` run inside a span of its own when its call is in a sampled trace (call.trace);
 * any other call goes straight to it. Only when tracing: the metrics count each call in the
 * operation pipeline itself (runtime/operations/bind.ts), with no wrapper.
 */
export function tracedOperation(t: Telemetry, name: string, operation: Operation): Operation {
  const { tracing } = t;
  if (!tracing) return operation;
  return (input, call) =>
    call.trace === undefined
      ? operation(input, call)
      : tracing.inSpan(
          `operation ${name}`,
          "internal",
          { "wo.operation": name, "wo.surface": call.surface ?? "internal" },
          call.trace,
          (span, trace) =>
            operation(input, trace === undefined ? call : withTrace(call, trace)).catch((err: unknown) => {
              span.setAttribute("error.type", outcomeOf(err));
              throw err;
            }),
        );
}

/**
 * The store as the operations use it, with each write timed (submission to durable commit) and
 * its changed rows counted, and each write transaction in a span of its own (when tracing: its
 * options are the call's CallContext, which carries the trace; a read is handed none, so its
 * time shows in the operation's span). Only the members the operation runtime uses
 * (runtime/operations/runtime.ts).
 */
export function observedStore(t: Telemetry, store: Store, system: "sqlite" | "postgresql"): Store {
  const { metrics, tracing } = t;
  const dbAttributes = { "db.system.name": system };
  const write: Store["write"] = (fn, options) => {
    const started = performance.now();
    let rows = 0;
    const counted = metrics ? (tx: StoreTx) => fn(countingTx(tx, () => rows++)) : fn;
    const run = () =>
      store.write(counted, options).then(
        (value) => {
          metrics?.storeWrite(started, rows);
          return value;
        },
        (err: unknown) => {
          metrics?.storeWrite(started, undefined);
          throw err;
        },
      );
    const parent = (options as CallContext | undefined)?.trace;
    return tracing && parent !== undefined ? tracing.inSpan("store.write", "client", dbAttributes, parent, run) : run();
  };
  return {
    read: (fn, options) => store.read(fn, options),
    write,
    onCommit: (listener) => store.onCommit(listener),
    changesAfter: (table, after, limit) => store.changesAfter(table, after, limit),
    readAudit: (query) => store.readAudit(query),
    close: () => store.close(),
  };
}

/** `tx` calling `changed` for every row it inserts, updates or deletes. */
function countingTx(tx: StoreTx, changed: () => void): StoreTx {
  const counted = <T>(result: Promise<T>) =>
    result.then((value) => {
      if (value) changed();
      return value;
    });
  return withWrites(tx, {
    insert: (table, values) => counted(tx.insert(table, values)),
    update: (table, id, patch) => counted(tx.update(table, id, patch)),
    delete: (table, id) => counted(tx.delete(table, id)),
  });
}

/** What an MCP method call reports (runtime/mcp/calls.ts). */
export interface McpCallInfo {
  method: string;
  /** tools/call: the tool's name as the client sent it. */
  tool: string | undefined;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  requestId: string | number;
  /** The trace of the HTTP request the call came in. */
  parent: unknown;
}

/**
 * One MCP method call in a span named as the MCP semantic conventions say (`tools/call
 * post_create`, attributes mcp.method.name, gen_ai.tool.name, mcp.session.id), for a call in a
 * sampled trace (`info.parent`). `run` resolves to the result object, or to the RpcError to
 * answer; `outcomeOf` says how it ended. The metrics count the call in `run` (runtime/mcp/calls.ts).
 */
export function tracedMcpCall(
  tracing: NonNullable<Telemetry["tracing"]>,
  info: McpCallInfo,
  outcomeOf: (out: object) => string,
  run: (trace: unknown) => Promise<object>,
): Promise<object> {
  return tracing.inSpan(
    info.tool !== undefined ? `${info.method} ${info.tool}` : info.method,
    "internal",
    {
      "mcp.method.name": info.method,
      "jsonrpc.request.id": String(info.requestId),
      ...(info.tool !== undefined ? { "gen_ai.tool.name": info.tool, "gen_ai.operation.name": "execute_tool" } : {}),
      ...(info.sessionId !== undefined ? { "mcp.session.id": info.sessionId } : {}),
      ...(info.protocolVersion !== undefined ? { "mcp.protocol.version": info.protocolVersion } : {}),
    },
    info.parent,
    async (span, trace) => {
      const result = await run(trace);
      const outcome = outcomeOf(result);
      if (outcome !== "ok") {
        span.setAttribute("error.type", outcome);
        span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
      }
      return result;
    },
  );
}
