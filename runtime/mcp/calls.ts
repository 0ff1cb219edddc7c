// Running one method handler for one JSON-RPC request: the call's context (its era and the
// signal that stops it) and the rule that anything but an RpcError thrown is a -32603.

// The clock by import: the global `performance` is a getter, called on each use (per request).
import { performance } from "node:perf_hooks";
import type { Principal } from "../../model/principal.js";
import type { McpRequest } from "./http.js";
import { ErrorCode, RpcError, type JsonRpcId, type Message } from "./json-rpc.js";
import type { Handler, MethodContext } from "./methods.js";
import type { McpOutcome } from "../telemetry/metrics.js";
import { tracedMcpCall } from "../telemetry/observe.js";
import type { Metrics, Telemetry } from "../telemetry/telemetry.js";

export type RequestMessage = Extract<Message, { kind: "request" }>;

/** Who a call is observed as, when the endpoint has telemetry. */
export interface CallObservation {
  telemetry: Telemetry;
  sessionId?: string | undefined;
  protocolVersion?: string | undefined;
  /** The trace of the HTTP request the call came in (McpRequest.trace). */
  parent?: unknown;
}

/**
 * Runs a handler: its result (an object), or the RpcError to answer; anything else thrown is a
 * -32603. Under telemetry the call is counted (in callHandler: no wrapper), and when its request
 * is in a sampled trace it runs in a span of its own.
 */
export function runCall(
  handler: Handler,
  msg: RequestMessage,
  ctx: MethodContext,
  log: (line: string) => void,
  observed?: CallObservation,
): Promise<object> {
  if (!observed) return callHandler(handler, msg, ctx, log, undefined);
  const { metrics, tracing } = observed.telemetry;
  const name = msg.method === "tools/call" ? msg.params?.name : undefined;
  // A name no tool has is still the client's text: bounded before it reaches a span.
  const tool = typeof name === "string" ? name.slice(0, 128) : undefined;
  const counted = metrics && { metrics, tool };
  if (!tracing || observed.parent === undefined) return callHandler(handler, msg, ctx, log, counted);
  return tracedMcpCall(
    tracing,
    {
      method: msg.method,
      tool,
      sessionId: observed.sessionId,
      protocolVersion: observed.protocolVersion,
      requestId: msg.id,
      parent: observed.parent,
    },
    outcomeOf,
    (trace) => {
      if (trace !== undefined) ctx.trace = trace;
      return callHandler(handler, msg, ctx, log, counted);
    },
  );
}

/** How an MCP call ended, as the metrics label it. */
function outcomeOf(out: object): McpOutcome {
  return out instanceof RpcError ? "rpc_error" : (out as { isError?: unknown }).isError === true ? "tool_error" : "ok";
}

async function callHandler(
  handler: Handler,
  msg: RequestMessage,
  ctx: MethodContext,
  log: (line: string) => void,
  counted: { metrics: Metrics; tool: string | undefined } | undefined,
): Promise<object> {
  const started = counted ? performance.now() : 0;
  let out: object;
  try {
    out = (await handler(msg.params ?? {}, ctx)) as object;
  } catch (err) {
    if (err instanceof RpcError) out = err;
    else {
      log(`mcp: ${msg.method} failed: ${err instanceof Error ? err.message : String(err)}`);
      out = new RpcError(ErrorCode.InternalError, "Internal error");
    }
  }
  counted?.metrics.mcpRequest(msg.method, counted.tool, outcomeOf(out), started);
  return out;
}

// Contexts are classes with getters on the prototype, never object literals with
// `get signal() {…}`: V8 allocates such literals as long-lived, and each would keep its request
// (socket, buffers, parsed body) alive through young-generation collections, making every
// scavenge slower under tool-call load.

/** 2026-07-28: the call is stopped by the client closing the request; the signal is made on first read. */
export class ModernContext implements MethodContext {
  readonly era = "modern";
  trace: unknown = undefined;
  constructor(private readonly req: McpRequest) {}
  get signal(): AbortSignal {
    return this.req.signal;
  }
  get principal(): Principal | undefined {
    return this.req.principal;
  }
  get caller(): string {
    return this.req.caller;
  }
}

/**
 * 2025 era: notifications/cancelled and a client disconnect both abort the call before it
 * commits. The controller is made when the handler first reads `signal`, which a call that can
 * write does before its first await, so a cancel can never arrive before it is registered.
 */
export class LegacyContext implements MethodContext {
  readonly era = "legacy";
  trace: unknown = undefined;
  private controller: AbortController | undefined;
  private readonly onAbort = () => this.controller?.abort();
  constructor(
    private readonly req: McpRequest,
    private readonly pending: Map<JsonRpcId, AbortController>,
    private readonly id: JsonRpcId,
  ) {}
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      this.req.signal.addEventListener("abort", this.onAbort, { once: true });
      this.pending.set(this.id, this.controller);
    }
    return this.controller.signal;
  }
  get principal(): Principal | undefined {
    return this.req.principal;
  }
  get caller(): string {
    return this.req.caller;
  }
  /** After the call: forget it, so a late cancel finds nothing. */
  settle(): void {
    if (!this.controller) return;
    if (this.pending.get(this.id) === this.controller) this.pending.delete(this.id);
    this.req.signal.removeEventListener("abort", this.onAbort);
  }
}
