// The MCP endpoint on node:http directly: `wo run` hands every request for /mcp here instead of
// to hono. A tool call is a small POST whose cost is mostly per-request overhead, so it skips
// the fetch-API Request/Response objects @hono/node-server builds for the rest of the app. The
// protocol lives in index.ts; this module only moves bytes between the socket and
// McpRequest/McpReply.

import type { IncomingMessage, ServerResponse } from "node:http";
import { traceOf } from "../telemetry/observe.js";
import type { Principal } from "../../model/principal.js";
import { Readable, pipeline } from "node:stream";
import { discardUnread, readBody } from "../body-bytes.js";
import type { HeaderView } from "./era.js";
import type { McpHandler, McpReply, McpRequest } from "./index.js";
import { ErrorCode, errorBody, type Message } from "./json-rpc.js";
import { logWhenFinished, type RequestLogger } from "../request-log.js";
import { streamCallerOf } from "../stream-budget.js";

// handle() answers its own failures; this is for a failure of handle() itself.
const INTERNAL_ERROR: McpReply = {
  status: 500,
  headers: { "content-type": "application/json" },
  body: errorBody(null, ErrorCode.InternalError, "Internal error"),
};

/**
 * Answers one request for /mcp. Never throws: a failure becomes a 500 or a closed socket.
 * `log` (absent with `--quiet`) gets the request when its answer is written. `principal`: who
 * is calling, as the edge resolved it.
 */
export function serveMcpNode(
  handler: McpHandler,
  incoming: IncomingMessage,
  res: ServerResponse,
  log?: RequestLogger,
  principal?: Principal,
): void {
  const request = new NodeMcpRequest(incoming, res, principal);
  if (log) logWhenFinished(log, incoming, res, request);
  const done = (reply: McpReply) => {
    try {
      writeReply(res, reply);
    } catch {
      // A reply node:http refuses to write (a header it rejects): drop this connection, never
      // the process (an exception here would be an unhandled rejection).
      res.destroy();
      return;
    }
    // Refused before its body arrived (413, 415, 403): let the client finish sending. A body
    // received whole but left unread is node:http's to discard.
    if (!incoming.complete) discardUnread(incoming);
  };
  handler.handle(request).then(done, () => done(INTERNAL_ERROR));
}

/**
 * The request as the handler reads it. A class rather than an object of closures: one small
 * allocation per request on the path every tool call takes. It is its own header view.
 */
class NodeMcpRequest implements McpRequest, HeaderView {
  #controller: AbortController | undefined;
  message: Message | undefined = undefined;
  constructor(
    private readonly incoming: IncomingMessage,
    private readonly res: ServerResponse,
    readonly principal: Principal | undefined,
  ) {}

  get method(): string {
    return this.incoming.method ?? "GET";
  }

  get headers(): HeaderView {
    return this;
  }

  get(name: string): string | null {
    const value = this.incoming.headers[name];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }

  body(max: number): Promise<Uint8Array | "too_large"> {
    return readBody(this.incoming, undefined, max, "check-phase");
  }

  get caller(): string {
    return streamCallerOf(this.incoming.socket, this.principal);
  }

  get trace(): unknown {
    return traceOf(this.incoming);
  }

  get connection(): object {
    return this.incoming.socket;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const ac = new AbortController();
      this.#controller = ac;
      const res = this.res;
      // The client went away before the whole answer was written.
      res.once("close", () => {
        if (!res.writableFinished) ac.abort();
      });
    }
    return this.#controller.signal;
  }
}

function writeReply(res: ServerResponse, reply: McpReply): void {
  const { status, headers, body } = reply;
  if (res.headersSent || res.destroyed) {
    // The client left before its answer: a stream nobody will read must still end, or its
    // session would keep the GET stream (409 to the next GET, never idle, never swept).
    if (body instanceof ReadableStream) body.cancel().catch(() => {});
    return;
  }
  if (body instanceof ReadableStream) {
    res.writeHead(status, headers);
    // SSE: flush the headers now so the client sees the stream open; pipeline cancels the
    // stream's source (releasing its session slot) when the client disconnects.
    res.flushHeaders();
    pipeline(Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>), res, () => {});
    return;
  }
  // One write with an exact Content-Length, never chunked framing. The headers go to node as
  // a flat [name, value, …] list, which it walks by index: handed an object (a per-reply copy
  // with content-length added), node enumerates it with for-in, which is slow on every reply.
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  list.push("content-length", body === null ? "0" : String(Buffer.byteLength(body)));
  res.writeHead(status, list);
  res.end(body ?? undefined);
}
