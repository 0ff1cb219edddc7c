// The endpoint's HTTP vocabulary, whichever server carries it: the request it reads
// (McpRequest), the answer it gives (McpReply), and the replies every verb shares — JSON-RPC
// errors as transport failures, Accept negotiation, SSE framing of one answer, CORS.

import type { Principal } from "../../model/principal.js";
import type { HeaderView, Rejection } from "./era.js";
import { ErrorCode, errorBody, type JsonRpcId, type Message } from "./json-rpc.js";
import { sseFrame } from "../sse.js";
import type { StreamRefusal } from "../stream-budget.js";

/** What the endpoint reads of an HTTP request. */
export interface McpRequest {
  readonly method: string;
  /** Request headers by lower-case name. */
  readonly headers: HeaderView;
  /** The body's bytes, or "too_large" as soon as more than `max` have arrived (../body-bytes.ts). */
  body(max: number): Promise<Uint8Array | "too_large">;
  /** Aborted when the client goes away before the answer. Read it lazily: making it costs. */
  readonly signal: AbortSignal;
  /** The JSON-RPC message, once parsed: what the request log names (runtime/request-log.ts). */
  message?: Message | undefined;
  /** Whom a stream opened by this request counts against (../stream-budget.ts, streamCallerOf). */
  readonly caller: string;
  /**
   * The connection the request came on (its socket), when known: sessionless cancellation only
   * reaches calls of the same connection (legacy.ts).
   */
  readonly connection?: object | undefined;
  /** Who is calling, as the edge resolved it (runtime/edge.ts); absent: the owner. */
  readonly principal?: Principal | undefined;
  /** The request's trace, when it is traced (../telemetry/observe.ts, traceOf). */
  readonly trace?: unknown;
}

/** An answer: a complete body (string or none) or a server-sent-events stream. */
export interface McpReply {
  status: number;
  /** Shared constant objects: an adapter copies before it changes them. */
  headers: Readonly<Record<string, string>>;
  body: string | null | ReadableStream<Uint8Array>;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;
const NO_HEADERS = {} as const;
export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

export function jsonReply(status: number, body: string, extra?: Record<string, string>): McpReply {
  return { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, body };
}

export function emptyReply(status: number): McpReply {
  return { status, headers: NO_HEADERS, body: null };
}

export function sseReply(body: string | ReadableStream<Uint8Array>): McpReply {
  return { status: 200, headers: SSE_HEADERS, body };
}

export function rejection(r: Rejection, id: JsonRpcId | null, extra?: Record<string, string>): McpReply {
  return jsonReply(r.status, errorBody(id, r.code, r.message, r.data), extra);
}

/** A refusal of the HTTP request itself; a 404 is a lost session (-32001), all else -32000. */
export function transportError(
  status: number,
  message: string,
  id: JsonRpcId | null = null,
  extra?: Record<string, string>,
): McpReply {
  return jsonReply(
    status,
    errorBody(id, status === 404 ? ErrorCode.SessionNotFound : ErrorCode.ServerError, message),
    extra,
  );
}

/** No room for one more stream (../stream-budget.ts): 503 with Retry-After, as REST live streams get. */
export function streamRefusal(r: StreamRefusal, id: JsonRpcId | null = null): McpReply {
  return transportError(503, `Service Unavailable: ${r.detail}`, id, { "retry-after": String(r.retryAfterSeconds) });
}

/** Accept negotiation for a POSTed request: JSON when allowed (cheapest), else SSE, else 406. */
export function responseMode(accept: string | null): "json" | "sse" | undefined {
  if (accept === null || accept === "") return "json";
  const a = accept.toLowerCase();
  if (a.includes("application/json") || a.includes("*/*") || a.includes("application/*")) return "json";
  if (a.includes("text/event-stream")) return "sse";
  return undefined;
}

export function acceptsEventStream(accept: string | null): boolean {
  const a = (accept ?? "").toLowerCase();
  return a.includes("text/event-stream") || a.includes("*/*");
}

/** A 200 answer to a POSTed request, as JSON or as one SSE event, as Accept chose. */
export function answer(mode: "json" | "sse", body: string, extra?: Record<string, string>): McpReply {
  if (mode === "json") return jsonReply(200, body, extra);
  return { status: 200, headers: extra ? { ...SSE_HEADERS, ...extra } : SSE_HEADERS, body: sseFrame(body) };
}

/** Browser clients (an allowed Origin) need CORS to read the session header and answers. */
export function withCors(reply: McpReply, origin: string): McpReply {
  const headers: Record<string, string> = { ...reply.headers };
  headers["access-control-allow-origin"] = origin;
  headers["access-control-expose-headers"] = "mcp-session-id, mcp-protocol-version";
  headers.vary = headers.vary ? `${headers.vary}, origin` : "origin";
  return { ...reply, headers };
}
