// GET and DELETE /mcp: a 2025-era session's server-to-client stream, and ending a session.
// Without sessions neither exists (405, POST only).

import type { Endpoint } from "./endpoint.js";
import {
  acceptsEventStream,
  emptyReply,
  sseReply,
  streamRefusal,
  transportError,
  type McpReply,
  type McpRequest,
} from "./http.js";
import { createSseStream } from "../sse.js";
import { isRefusal } from "../stream-budget.js";

/** GET: opens the session's one stream (409 while one is open); it carries row updates and list changes. */
export async function openSessionStream(ep: Endpoint, req: McpRequest): Promise<McpReply> {
  const h = req.headers;
  if (!ep.sessionsOn)
    return transportError(405, "Method Not Allowed: this server has no server-to-client stream; POST requests", null, {
      allow: "POST",
    });
  if (!acceptsEventStream(h.get("accept") ?? null))
    return transportError(406, "Not Acceptable: GET /mcp needs Accept: text/event-stream");
  const sid = h.get("mcp-session-id");
  if (!sid) return transportError(400, "Bad Request: Mcp-Session-Id header is required");
  const session = await ep.findSession(sid, true);
  if (!session) return transportError(404, "Session not found: it ended or never existed; initialize a new session");
  if (session.getStream && !session.getStream.closed) {
    return transportError(409, "Conflict: this session already has an open GET stream");
  }
  const slot = ep.streams.admit(req.caller);
  if (isRefusal(slot)) return streamRefusal(slot);
  const stream = createSseStream({
    keepAliveMs: ep.keepAliveMs,
    maxQueuedFrames: ep.maxQueuedFrames,
    slot,
    onClose: () => {
      if (session.getStream === stream) session.getStream = undefined;
    },
  });
  session.getStream = stream;
  // A first comment flushes the headers so the client sees the stream open at once.
  stream.send(": stream open\n\n");
  return sseReply(stream.response);
}

/** DELETE: ends the session, its stream and its subscriptions. */
export async function endSession(ep: Endpoint, req: McpRequest): Promise<McpReply> {
  if (!ep.sessionsOn)
    return transportError(405, "Method Not Allowed: this server has no sessions to end", null, { allow: "POST" });
  const sid = req.headers.get("mcp-session-id");
  if (!sid) return transportError(400, "Bad Request: Mcp-Session-Id header is required");
  if (!(await ep.endSession(sid))) return transportError(404, "Session not found: it ended or never existed");
  return emptyReply(200);
}
