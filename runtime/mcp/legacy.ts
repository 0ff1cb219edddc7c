// A POSTed message of the 2025 revisions (2025-11-25, 2025-06-18, 2025-03-26): the
// MCP-Protocol-Version check, the session (when sessions are on), notifications/cancelled,
// initialize creating the session, and every other method run on the build serving.

import { LegacyContext, runCall } from "./calls.js";
import type { Endpoint } from "./endpoint.js";
import { LEGACY_VERSIONS } from "./era.js";
import { answer, emptyReply, transportError, responseMode, type McpReply, type McpRequest } from "./http.js";
import {
  ErrorCode,
  RpcError,
  errorBody,
  readableId,
  resultBody,
  rpcErrorBody,
  type JsonRpcId,
  type Message,
} from "./json-rpc.js";
import { subscription } from "./legacy-subscriptions.js";
import type { Session } from "./sessions.js";

export async function serveLegacy(ep: Endpoint, msg: Message, version: string, req: McpRequest): Promise<McpReply> {
  const h = req.headers;
  const isInitialize = msg.kind === "request" && msg.method === "initialize";
  // T6: after initialize an unsupported MCP-Protocol-Version is refused.
  if (!isInitialize && !(LEGACY_VERSIONS as readonly string[]).includes(version)) {
    return transportError(
      400,
      `Bad Request: unsupported MCP-Protocol-Version '${version}' (supported: ${LEGACY_VERSIONS.join(", ")})`,
      readableId(msg),
    );
  }
  let session: Session | undefined;
  if (ep.sessionsOn && !isInitialize) {
    const sid = h.get("mcp-session-id");
    if (!sid)
      return transportError(400, "Bad Request: Mcp-Session-Id header is required (initialize first)", readableId(msg));
    session = await ep.findSession(sid, msg.kind === "request");
    if (!session)
      return transportError(
        404,
        "Session not found: it ended or never existed; initialize a new session",
        readableId(msg),
      );
  }
  if (msg.kind === "notification") {
    if (msg.method === "notifications/cancelled") {
      const rid = msg.params?.requestId;
      const calls = session
        ? session.pending
        : req.connection !== undefined
          ? ep.sessionlessPending.get(req.connection)
          : undefined;
      if (typeof rid === "string" || typeof rid === "number") calls?.get(rid)?.abort();
    }
    return emptyReply(202);
  }
  if (msg.kind === "response") return emptyReply(202);

  const mode = responseMode(h.get("accept") ?? null);
  if (!mode)
    return transportError(406, "Not Acceptable: Accept must allow application/json or text/event-stream", msg.id);
  if (msg.method === "resources/subscribe" || msg.method === "resources/unsubscribe") {
    const out = await subscription(ep, msg, session, req.principal);
    return answer(mode, out instanceof RpcError ? rpcErrorBody(msg.id, out) : resultBody(msg.id, out));
  }
  const handler = ep.current.methods.legacy.get(msg.method);
  if (!handler) return answer(mode, errorBody(msg.id, ErrorCode.MethodNotFound, `Method not found: ${msg.method}`));

  if (isInitialize) {
    const observed = ep.telemetry && { telemetry: ep.telemetry, protocolVersion: version, parent: req.trace };
    const out = await runCall(
      handler,
      msg,
      { era: "legacy", signal: req.signal, caller: req.caller },
      ep.log,
      observed,
    );
    if (out instanceof RpcError) return answer(mode, rpcErrorBody(msg.id, out));
    const result = out as { protocolVersion: string };
    if (!ep.sessionsOn) return answer(mode, resultBody(msg.id, result));
    const created = await ep.newSession(result.protocolVersion);
    return answer(mode, resultBody(msg.id, result), { "mcp-session-id": created.id });
  }

  const pending = session ? session.pending : sessionlessCallsOf(ep, req.connection);
  const ctx = new LegacyContext(req, pending, msg.id);
  const observed = ep.telemetry && {
    telemetry: ep.telemetry,
    sessionId: session?.id,
    protocolVersion: version,
    parent: req.trace,
  };
  try {
    const out = await runCall(handler, msg, ctx, ep.log, observed);
    if (out instanceof RpcError) return answer(mode, rpcErrorBody(msg.id, out));
    return answer(mode, resultBody(msg.id, out));
  } finally {
    ctx.settle();
    if (!session && req.connection !== undefined && pending.size === 0) ep.sessionlessPending.delete(req.connection);
  }
}

/**
 * Sessionless: the calls in flight on this connection (a cancel names an id only its client
 * knows the meaning of). Without a known connection, an empty table of its own: a cancel then
 * reaches nothing, and the call still stops when its client disconnects.
 */
function sessionlessCallsOf(ep: Endpoint, connection: object | undefined): Map<JsonRpcId, AbortController> {
  if (connection === undefined) return new Map();
  let calls = ep.sessionlessPending.get(connection);
  if (!calls) ep.sessionlessPending.set(connection, (calls = new Map()));
  return calls;
}
