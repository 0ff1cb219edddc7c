// A POSTed request of the 2026-07-28 revision: stateless, no sessions; every result carries
// the members that revision adds (endpoint.ts, modernTailFor). subscriptions/listen is listen.ts.

import { ModernContext, runCall } from "./calls.js";
import { modernTailFor, type Endpoint } from "./endpoint.js";
import { answer, emptyReply, jsonReply, responseMode, type McpReply, type McpRequest } from "./http.js";
import { ErrorCode, RpcError, errorBody, resultBody, rpcErrorBody, type Message } from "./json-rpc.js";
import { listen } from "./listen.js";

export async function serveModern(ep: Endpoint, msg: Message, req: McpRequest): Promise<McpReply> {
  // Notifications and responses: accepted and dropped. On HTTP a 2026 client cancels by
  // closing the request, which aborts `req.signal` below.
  if (msg.kind !== "request") return emptyReply(202);
  const mode = responseMode(req.headers.get("accept") ?? null) ?? "json";
  const b = ep.current;
  if (msg.method === "subscriptions/listen") return await listen(ep, msg, b, req.caller, req.principal);
  const handler = b.methods.modern.get(msg.method);
  if (!handler) {
    // Removed (initialize, ping, logging/setLevel, resources/subscribe, tasks/*) or unknown.
    return jsonReply(404, errorBody(msg.id, ErrorCode.MethodNotFound, `Method not found: ${msg.method}`));
  }
  // `req.signal` only when a handler asks for it: a write that can still be stopped.
  const out = await runCall(handler, msg, new ModernContext(req), ep.log);
  if (out instanceof RpcError) return answer(mode, rpcErrorBody(msg.id, out));
  return answer(mode, resultBody(msg.id, out, modernTailFor(b, msg.method, msg.params)));
}
