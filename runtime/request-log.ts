// The request log of `wo run`: one line per HTTP request on stderr — method, path, for MCP the
// JSON-RPC method and tool name, status, duration, and who called: the name of the principal the
// edge resolved (spec/rest.md, "Request log"). One function serves every route (edge.ts) and MCP
// (mcp/node.ts).
//
// Never logged: bodies, headers (tokens), query-string values (a query shows only its
// parameter names: `/api/posts?status&limit`). A JSON-RPC method or tool name is the client's
// text, so it is logged only when it looks like a name. With logging off (`--quiet`) there is
// no logger at all and the request path does no work for it.

import type { IncomingMessage, ServerResponse } from "node:http";
import { stampedPrincipal } from "./identity/request-principal.js";
import type { Message } from "./mcp/json-rpc.js";

export type RequestLogFormat = "off" | "text" | "json";

/**
 * Logs one request; `started` is a performance.now() reading, `cut` says the connection closed
 * before the whole answer was written (a client that went away, an SSE stream it ended).
 * `principal`: the caller's name; undefined when none was resolved (a refused credential,
 * /healthz, the explorer's static files).
 */
export type RequestLogger = (
  method: string | undefined,
  url: string | undefined,
  status: number,
  started: number,
  message: Message | undefined,
  cut: boolean,
  principal?: string,
) => void;

export function createRequestLogger(
  format: RequestLogFormat,
  writeText: (text: string) => void = (text) => process.stderr.write(text),
): RequestLogger | undefined {
  if (format === "off") return undefined;
  const write = batched(writeText);
  return (method, url, status, started, message, cut, caller) => {
    // A JWT's subject is the issuer's text: anything but a plain name is quoted, escapes and all.
    const principal = caller === undefined || isName(caller) ? caller : JSON.stringify(caller.slice(0, 128));
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const path = loggablePath(url ?? "");
    const call = message && message.kind !== "response" ? message : undefined;
    const rpc = call && isName(call.method) ? call.method : undefined;
    const toolName = rpc === "tools/call" ? call!.params?.name : undefined;
    const tool = typeof toolName === "string" && isName(toolName) ? toolName : undefined;
    if (format === "json") {
      const entry = {
        time: new Date().toISOString(),
        method,
        path,
        ...(rpc ? { rpc } : {}),
        ...(tool ? { tool } : {}),
        status,
        ms,
        ...(principal !== undefined ? { principal } : {}),
        ...(cut ? { cut: true } : {}),
      };
      write(`${JSON.stringify(entry)}\n`);
    } else {
      write(
        `wo: ${method} ${path}${rpc ? ` ${rpc}` : ""}${tool ? ` ${tool}` : ""} ${status} ${ms} ms${principal !== undefined ? ` by ${principal}` : ""}${cut ? " (connection closed before the answer was complete)" : ""}\n`,
      );
    }
  };
}

/**
 * Lines written together once the current burst of I/O is handled (and at exit): stderr on a
 * pipe or file is written synchronously, and a blocking write per request would take a large
 * share of a busy server's time.
 */
function batched(write: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    write(text);
  };
  process.once("exit", flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

/**
 * Logs `req` once its connection is done with it: the answer written, its stream ended, or the
 * client gone. `call` is the MCP request, read at the end: the JSON-RPC message is known only
 * after the body is parsed.
 */
export function logWhenFinished(
  log: RequestLogger,
  req: IncomingMessage,
  res: ServerResponse,
  call?: { readonly message?: Message | undefined },
): void {
  const started = performance.now();
  res.once("close", () =>
    log(
      req.method,
      req.url,
      res.statusCode,
      started,
      call?.message,
      !res.writableFinished,
      stampedPrincipal(req)?.name,
    ),
  );
}

/** The path with only the names of its query parameters: their values may be secrets. */
export function loggablePath(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const names = url
    .slice(q + 1)
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const eq = p.indexOf("=");
      return eq < 0 ? p : p.slice(0, eq);
    });
  return names.length > 0 ? `${url.slice(0, q)}?${names.join("&")}` : url.slice(0, q);
}

/** JSON-RPC methods and tool names as wo and MCP spell them; anything else is not echoed. */
function isName(text: string): boolean {
  return text.length <= 128 && /^[A-Za-z0-9_./-]+$/.test(text);
}
