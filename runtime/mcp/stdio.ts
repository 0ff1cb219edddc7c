// MCP over stdio, the transport desktop agents use for servers they launch themselves: one
// JSON-RPC message per line on stdin, each answer and notification one line on stdout.
//
// Not a second implementation of MCP: each line becomes the POST a local Streamable HTTP client
// would send the endpoint (index.ts), with the headers that client would set (a 2026-07-28
// message's version, method and name from its own `_meta`; a 2025-era session's id once
// initialize gave one), and whatever the endpoint answers — a JSON body, or the events of an
// SSE stream — goes out line by line. A 2025-era session's server-initiated notifications
// (list changes, resource updates) come from the session's GET stream, opened after
// `notifications/initialized`, as over HTTP. So the eras, sessions, validation, budgets and
// the principal's rights are exactly the endpoint's; only the bytes travel differently.
// Nothing but protocol messages is ever written to stdout.

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Principal } from "../../model/principal.js";
import { nameParam, type HeaderView } from "./era.js";
import type { McpHandler, McpReply, McpRequest } from "./index.js";

const claimKey = "io.modelcontextprotocol/protocolVersion";

export interface StdioOptions {
  input: Readable;
  output: Writable;
  /** Who is calling: the owner, or the principal of the token the server was started with. */
  principal: Principal;
  /** Diagnostics; never stdout. */
  log: (line: string) => void;
}

export interface StdioSession {
  /** Resolves when stdin has ended and every answer has been written (the session then ended). */
  readonly done: Promise<void>;
}

export function serveMcpStdio(handler: McpHandler, options: StdioOptions): StdioSession {
  const { output, principal } = options;
  const session: { id?: string; version?: string; stream?: AbortController } = {};
  const inFlight = new Set<Promise<void>>();
  const write = (json: string) => {
    if (json.trim() !== "") output.write(`${json.trim()}\n`);
  };

  const request = (method: string, headers: Record<string, string>, body: string | null): McpRequest => {
    const controller = new AbortController();
    const view: HeaderView = { get: (name) => headers[name] ?? null };
    return {
      method,
      headers: view,
      body: async (max) => {
        const bytes = new TextEncoder().encode(body ?? "");
        return bytes.length > max ? "too_large" : bytes;
      },
      signal: controller.signal,
      principal,
      // One client on one pipe: its streams count against one caller, and a cancel from it
      // reaches its own calls (the connection, for the sessionless era).
      caller: "stdio",
      connection: session,
    };
  };

  /** The headers a local HTTP client would send with `line` (its message, when it parses). */
  const headersFor = (message: unknown): Record<string, string> => {
    const headers: Record<string, string> = {
      host: "localhost",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const m =
      typeof message === "object" && message !== null && !Array.isArray(message)
        ? (message as Record<string, unknown>)
        : undefined;
    const params = m?.params as Record<string, unknown> | undefined;
    const claim = (params?._meta as Record<string, unknown> | undefined)?.[claimKey];
    if (typeof claim === "string") {
      // A 2026-07-28 message carries its version in `_meta`; HTTP repeats it in headers.
      headers["mcp-protocol-version"] = claim;
      if (typeof m?.method === "string") {
        headers["mcp-method"] = m.method;
        const param = nameParam(m.method);
        const value = param ? params?.[param] : undefined;
        // As the header carries it: as is when plain ASCII, else base64 (era.ts decodeHeaderValue).
        if (typeof value === "string")
          headers["mcp-name"] =
            /^[\x20-\x7e]*$/.test(value) && value.trim() === value
              ? value
              : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
      }
      return headers;
    }
    if (session.id) headers["mcp-session-id"] = session.id;
    if (session.version) headers["mcp-protocol-version"] = session.version;
    return headers;
  };

  const handleLine = async (line: string) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined; // the endpoint answers the parse error itself
    }
    const reply = await handler.handle(request("POST", headersFor(message), line));
    if (isInitialize(message) && reply.status === 200) {
      session.id = reply.headers["mcp-session-id"];
      // The version the answer settles on is the one later requests name, as over HTTP.
      await forward(reply, (json) => {
        try {
          const v = (JSON.parse(json) as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
          if (typeof v === "string") session.version = v;
        } catch {
          // not an answer we can read a version from: later requests name none
        }
      });
      return;
    }
    await forward(reply);
    if (isInitialized(message) && session.id && !session.stream) openNotifications();
  };

  /** Writes what a reply carries: its JSON body, or each event of its SSE stream as it arrives. */
  const forward = async (reply: McpReply, seen?: (json: string) => void) => {
    const body = reply.body;
    if (body === null) return;
    if (typeof body === "string") {
      if (reply.headers["content-type"]?.startsWith("text/event-stream")) for (const d of sseData(body)) emit(d);
      else emit(body);
      return;
    }
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const end = buffered.lastIndexOf("\n\n");
      if (end < 0) continue;
      for (const d of sseData(buffered.slice(0, end + 2))) emit(d);
      buffered = buffered.slice(end + 2);
    }
    function emit(json: string) {
      seen?.(json);
      write(json);
    }
  };

  /** The session's GET stream: the server's own notifications to this client. */
  const openNotifications = () => {
    session.stream = new AbortController();
    const headers: Record<string, string> = {
      host: "localhost",
      accept: "text/event-stream",
      "mcp-session-id": session.id!,
      ...(session.version ? { "mcp-protocol-version": session.version } : {}),
    };
    const stream = handler.handle(request("GET", headers, null)).then(
      (reply) => (reply.status === 200 ? forward(reply) : undefined),
      (err: unknown) => options.log(`mcp stdio: notifications stream failed: ${(err as Error).message}`),
    );
    void stream;
  };

  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  // What follows an initialize waits for its answer, which names the session the rest belong to.
  let initializing: Promise<void> = Promise.resolve();
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    // Answered as they complete, like concurrent HTTP requests: JSON-RPC ids pair them up.
    const run = () => handleLine(line);
    const p = initializing
      .then(run)
      .catch((err: unknown) => options.log(`mcp stdio: a message failed: ${(err as Error).message}`));
    if (/"method"\s*:\s*"initialize"/.test(line)) initializing = p;
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  });
  const done = new Promise<void>((resolve) => {
    lines.once("close", async () => {
      await Promise.allSettled([...inFlight]);
      // The client went away: end its session, as an HTTP client's DELETE would.
      if (session.id) await handler.handle(request("DELETE", headersFor(undefined), null)).catch(() => undefined);
      resolve();
    });
  });
  return { done };
}

function isInitialize(message: unknown): boolean {
  return (message as { method?: unknown } | undefined)?.method === "initialize";
}

function isInitialized(message: unknown): boolean {
  return (message as { method?: unknown } | undefined)?.method === "notifications/initialized";
}

/** The `data:` payloads of complete SSE events (multi-line data joined by newlines). */
function sseData(text: string): string[] {
  const out: string[] = [];
  for (const event of text.split(/\n\n/)) {
    const data = event
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""));
    if (data.length > 0) out.push(data.join("\n"));
  }
  return out;
}
