// Where telemetry meets the request path: the HTTP edge (one observation per request), the
// operations (one per call), the store (one per transaction) and MCP (one per method call).
// Each helper is applied only when the instance has telemetry: without it the edge, the
// operations and the store are exactly what they are without this module.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallContext, Operation } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import type { Store, StoreTx } from "../../model/store.js";
import { withWrites } from "../operations/tx-wrapper.js";
import type { Telemetry } from "./telemetry.js";

const routeKey = Symbol("wo.route");
const traceKey = Symbol("wo.trace");
type RoutedRequest = IncomingMessage & { [routeKey]?: string; [traceKey]?: unknown };

/** The trace of a request's server span, when it is traced: the spans of its calls join it. */
export function traceOf(req: IncomingMessage): unknown {
  return (req as RoutedRequest)[traceKey];
}

/** Records which route template answered a request (the REST routes' middleware, /mcp, /_wo/). */
export function stampRoute(req: IncomingMessage, route: string): void {
  (req as RoutedRequest)[routeKey] = route;
}

/**
 * Serves one request under telemetry: `handle` runs inside the request's server span (when
 * tracing and sampled), and when the answer is done (or the connection closed) the span ends
 * and the request is counted under its route template — "other" when no REST route took it
 * (the explorer and /docs, a 404, a refusal at the edge).
 */
export function observeRequest(t: Telemetry, req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const started = performance.now();
  const { metrics, tracing } = t;
  const traced = tracing?.serveRequest(req);
  const span = traced?.span;
  if (traced) (req as RoutedRequest)[traceKey] = traced.trace;
  res.once("close", () => {
    const route = (req as RoutedRequest)[routeKey] ?? "other";
    const status = res.statusCode;
    metrics?.httpRequest(req.method, route, status, (performance.now() - started) / 1000);
    if (span) {
      span.updateName(`${req.method ?? "GET"} ${route}`);
      span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
      span.end();
    }
  });
  handle();
}

/** How a call ended, as the metrics label it: ok, the OperationError kind, or internal. */
export function outcomeOf(err: unknown): string {
  return err instanceof OperationError ? err.kind : "internal";
}

/** `operation` counted and timed, and run inside a span of its own (when tracing). */
export function observedOperation(t: Telemetry, name: string, operation: Operation): Operation {
  const { metrics, tracing } = t;
  // A call outside a sampled trace (call.trace absent) goes straight to the operation.
  const traced: Operation = tracing
    ? (input, call) =>
        call.trace === undefined
          ? operation(input, call)
          : tracing.inSpan(
              `operation ${name}`,
              "internal",
              { "wo.operation": name, "wo.surface": call.surface ?? "internal" },
              call.trace,
              (span, trace) =>
                operation(input, trace === undefined ? call : { ...call, trace }).catch((err: unknown) => {
                  span.setAttribute("error.type", outcomeOf(err));
                  throw err;
                }),
            )
    : operation;
  if (!metrics) return traced;
  // One `then` per call, no async frame: this wraps every REST and MCP call.
  return (input, call) => {
    const started = performance.now();
    return traced(input, call).then(
      (value) => {
        metrics.operation(name, "ok", (performance.now() - started) / 1000);
        return value;
      },
      (err: unknown) => {
        metrics.operation(name, outcomeOf(err), (performance.now() - started) / 1000);
        throw err;
      },
    );
  };
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
          metrics?.storeWrite((performance.now() - started) / 1000, rows);
          return value;
        },
        (err: unknown) => {
          metrics?.storeWrite((performance.now() - started) / 1000, undefined);
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
 * One MCP method call counted and timed, in a span named as the MCP semantic conventions say
 * (`tools/call post_create`, attributes mcp.method.name, gen_ai.tool.name, mcp.session.id).
 * `run` resolves to the result object, or to the RpcError to answer (`isRpcError`).
 */
export async function observeMcpCall(
  t: Telemetry,
  info: McpCallInfo,
  isRpcError: (out: object) => boolean,
  run: (trace: unknown) => Promise<object>,
): Promise<object> {
  const { metrics, tracing } = t;
  const started = performance.now();
  const outcomeOf = (out: object) =>
    isRpcError(out) ? "rpc_error" : (out as { isError?: unknown }).isError === true ? "tool_error" : "ok";
  const out =
    tracing && info.parent !== undefined
      ? await tracing.inSpan(
          info.tool !== undefined ? `${info.method} ${info.tool}` : info.method,
          "internal",
          {
            "mcp.method.name": info.method,
            "jsonrpc.request.id": String(info.requestId),
            ...(info.tool !== undefined
              ? { "gen_ai.tool.name": info.tool, "gen_ai.operation.name": "execute_tool" }
              : {}),
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
        )
      : await run(undefined);
  metrics?.mcpRequest(info.method, info.tool, outcomeOf(out), (performance.now() - started) / 1000);
  return out;
}
