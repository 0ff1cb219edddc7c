// The MCP endpoint: Streamable HTTP on one path (/mcp), serving the 2025 revisions
// (2025-11-25, 2025-06-18, 2025-03-26; sessions optional) and the stateless 2026-07-28
// revision side by side. This module owns the HTTP side — statuses, headers, content types,
// body limits, sessions and SSE framing — and leaves message classification to era.ts, method
// semantics to methods.ts and who may connect to ../http-guard.ts. spec/mcp.md is the contract.
//
// The handler speaks in McpRequest/McpReply, not in a server's types: `wo run` serves it on
// node:http directly (node.ts: no Request/Response objects on the hot path), and fetch() adapts
// it to the fetch API for hono (createMcpRoutes, a sub-app for `app.route("/mcp", routes)`).

import { Hono } from "hono";
import type { IncomingMessage } from "node:http";
import type { WoConfig } from "../../model/app.js";
import { declaresMoreThan, decodeUtf8, readBodyBytes } from "../body-bytes.js";
import { mediaTypeOf } from "../media-type.js";
import type { AppContract, Operation } from "../../model/build-contract.js";
import { allowedOriginsOf, createHttpGuard, type HttpGuard } from "../http-guard.js";
import { StoreUnavailableError, type Store } from "../../model/store.js";
import { classify, LEGACY_VERSIONS, type HeaderView, type Rejection } from "./era.js";
import { ErrorCode, RpcError, errorBody, notificationBody, parseMessage, readableId, resultBody, type JsonRpcId, type Message } from "./json-rpc.js";
import { createMethods, type Handler, type MethodContext, type MethodTable } from "./methods.js";
import { createSseStream, sseFrame } from "../sse.js";
import { createListChangeFeed, type ListKind } from "./list-changes.js";
import { createRowSubscriptions, type RowSink } from "./row-subscriptions.js";
import { createSessionTable, type Session } from "./sessions.js";

export interface McpOptions {
  /** Items per page of tools/list, resources/list, resources/templates/list. Default 100. */
  pageSize?: number;
  /** Keep-alive comment interval on GET streams. Default 15 s. */
  keepAliveMs?: number;
  /** Unread frames a GET stream may queue before it is closed. Default 256. */
  maxQueuedFrames?: number;
  /** 2025-era sessions in use (a request since initialize) kept at most. Default 10,000. */
  maxSessions?: number;
  /** 2025-era sessions not used since initialize kept at most (oldest evicted). Default 1,000. */
  maxUnusedSessions?: number;
  /** A session idle this long may be swept. Default 1 h. */
  sessionIdleMs?: number;
  /** Server-side log line sink; never receives request bodies. Default: stderr. */
  log?: (line: string) => void;
  /**
   * `wo run --watch`: builds replace each other while serving (setBuild), so the capabilities
   * declare listChanged, list results carry `ttlMs: 0`, and list-change notifications go out
   * (list-changes.ts). Default false.
   */
  listChanged?: boolean;
  /** Row URIs one session or one `subscriptions/listen` stream may subscribe to. Default 1,000. */
  maxRowSubscriptions?: number;
}

/** What the endpoint serves from one build; setBuild() replaces it while sessions and streams stay. */
export interface McpBuild {
  /** app.json: tools, resources and instructions come from its operations table and model. */
  catalog: AppContract;
  operations: Record<string, Operation>;
  store: Store;
  serverInfo: { name: string; version: string };
}

export interface McpDeps extends McpBuild {
  config: WoConfig;
  /** The app's Host/Origin policy (createApp shares its own); default: one from `config` and `listenHost`. */
  guard?: HttpGuard;
  /** The host the server listens on; loopback turns on the Host check (DNS rebinding). */
  listenHost?: string;
  options?: McpOptions;
}

/** What the endpoint reads of an HTTP request, whichever server carries it. */
export interface McpRequest {
  readonly method: string;
  /** Request headers by lower-case name. */
  readonly headers: HeaderView;
  /** The body's bytes, or "too_large" as soon as more than `max` have arrived. */
  body(max: number): Promise<Uint8Array | "too_large">;
  /** Aborted when the client goes away before the answer. Read it lazily: making it costs. */
  readonly signal: AbortSignal;
  /** The JSON-RPC message, once parsed: what the request log names (runtime/request-log.ts). */
  message?: Message | undefined;
}

/** An answer: a complete body (string or none) or a server-sent-events stream. */
export interface McpReply {
  status: number;
  /** Shared constant objects: an adapter copies before it changes them. */
  headers: Readonly<Record<string, string>>;
  body: string | null | ReadableStream<Uint8Array>;
}

export interface McpHandler {
  handle(req: McpRequest): Promise<McpReply>;
  /** handle() for a fetch-API server (hono); `incoming` lets the body be read without a web stream. */
  fetch(req: Request, incoming?: IncomingMessage): Promise<Response>;
  /**
   * Serves `next` from now on: requests already dispatched finish on the build they started
   * on; sessions, GET streams and listen streams stay. Notifies list changes (with
   * `listChanged`) and returns which lists changed.
   */
  setBuild(next: McpBuild): ListKind[];
  /** Ends every session and stream (server shutdown). */
  close(): void;
  readonly sessionCount: number;
}

/**
 * Cache hints (2026-07-28): lists change only when the build changes, which means a restart,
 * except under `wo run --watch`, where any saved edit can change them: no caching then.
 */
const LIST_CACHE = { ttlMs: 60_000, cacheScope: "public" } as const;
const WATCHED_LIST_CACHE = { ttlMs: 0, cacheScope: "public" } as const;
const ROW_CACHE = { ttlMs: 0, cacheScope: "private" } as const;
const cachedMethods = new Set(["tools/list", "resources/list", "resources/templates/list", "server/discover"]);

const JSON_HEADERS = { "content-type": "application/json" } as const;
const NO_HEADERS = {} as const;
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" } as const;
const ALLOW = "GET, POST, DELETE";

function jsonReply(status: number, body: string, extra?: Record<string, string>): McpReply {
  return { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, body };
}

function emptyReply(status: number): McpReply {
  return { status, headers: NO_HEADERS, body: null };
}

function rejection(r: Rejection, id: JsonRpcId | null, extra?: Record<string, string>): McpReply {
  return jsonReply(r.status, errorBody(id, r.code, r.message, r.data), extra);
}

function transportError(status: number, message: string, id: JsonRpcId | null = null, extra?: Record<string, string>): McpReply {
  return jsonReply(status, errorBody(id, status === 404 ? ErrorCode.SessionNotFound : ErrorCode.ServerError, message), extra);
}

/** Accept negotiation for a POSTed request: JSON when allowed (cheapest), else SSE, else 406. */
function responseMode(accept: string | null): "json" | "sse" | undefined {
  if (accept === null || accept === "") return "json";
  const a = accept.toLowerCase();
  if (a.includes("application/json") || a.includes("*/*") || a.includes("application/*")) return "json";
  if (a.includes("text/event-stream")) return "sse";
  return undefined;
}

// Calls' contexts and requests are classes with getters on the prototype, never object literals
// with `get signal() {…}`: V8 allocated such literals as long-lived, and each one then kept its
// request (sockets, buffers, parsed body) alive through young-generation collections. Under
// tool-call load that promoted ~2 MB per scavenge and made every scavenge several times slower
// (measured with --trace-gc; see bench/mcp).

/** 2026-07-28: the call is stopped by the client closing the request; the signal is made on first read. */
class ModernContext implements MethodContext {
  readonly era = "modern";
  constructor(private readonly req: McpRequest) {}
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

/**
 * 2025 era: notifications/cancelled and a client disconnect both abort the call before it
 * commits. The controller is made when the handler first reads `signal`, which a call that can
 * write does before its first await, so a cancel can never arrive before it is registered.
 */
class LegacyContext implements MethodContext {
  readonly era = "legacy";
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
  /** After the call: forget it, so a late cancel finds nothing. */
  settle(): void {
    if (!this.controller) return;
    if (this.pending.get(this.id) === this.controller) this.pending.delete(this.id);
    this.req.signal.removeEventListener("abort", this.onAbort);
  }
}

/** A fetch-API request as the handler reads it. */
class FetchMcpRequest implements McpRequest {
  message: Message | undefined = undefined;
  constructor(
    private readonly req: Request,
    private readonly incoming: IncomingMessage | undefined,
  ) {}
  get method(): string {
    return this.req.method;
  }
  get headers(): HeaderView {
    return this.req.headers;
  }
  body(max: number): Promise<Uint8Array | "too_large"> {
    return readBodyBytes(this.req, max, this.incoming);
  }
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

function acceptsEventStream(accept: string | null): boolean {
  const a = (accept ?? "").toLowerCase();
  return a.includes("text/event-stream") || a.includes("*/*");
}

/**
 * `WO_MCP_MAX_SESSIONS=<n>` sets both session pools' caps for a `wo run`: a test hook, so a
 * flood test against the real server fills them with a few hundred requests instead of eleven
 * thousand (spec/mcp.md, "Session limits"). Not a setting: wo.toml has no key for it.
 */
function sessionCapFromEnv(): number | undefined {
  const raw = process.env.WO_MCP_MAX_SESSIONS;
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The per-build part of the endpoint: its methods and what 2026-07-28 adds to their results. */
interface BoundBuild {
  methods: MethodTable;
  serverInfoMeta: { "io.modelcontextprotocol/serverInfo": { name: string; version: string } };
  /** What 2026-07-28 adds to every result, by kind, as JSON members written once. */
  tail: string;
  listTail: string;
  rowTail: string;
}

export function createMcpHandler(deps: McpDeps): McpHandler {
  const opts = deps.options ?? {};
  const log = opts.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const listChanged = opts.listChanged ?? false;
  const bind = (b: McpBuild): BoundBuild => {
    const methods = createMethods({ catalog: b.catalog, operations: b.operations, store: b.store, serverInfo: b.serverInfo, pageSize: opts.pageSize ?? 100, log, listChanged, sessions: deps.config.mcp.sessions });
    const serverInfoMeta = { "io.modelcontextprotocol/serverInfo": b.serverInfo };
    const modernTail = (cache?: { ttlMs: number; cacheScope: string }) =>
      `"resultType":"complete",${cache ? `"ttlMs":${cache.ttlMs},"cacheScope":"${cache.cacheScope}",` : ""}"_meta":${JSON.stringify(serverInfoMeta)}`;
    return { methods, serverInfoMeta, tail: modernTail(), listTail: modernTail(listChanged ? WATCHED_LIST_CACHE : LIST_CACHE), rowTail: modernTail(ROW_CACHE) };
  };
  // Read once per request (`const b = current`): a call finishes on the build it started on.
  let current = bind(deps);
  // Row subscriptions outlive builds like sessions do; a changed row is named by the build serving.
  const rows = createRowSubscriptions(deps.store, (table, id) => current.methods.rowUri(table, id));
  const maxRowSubscriptions = opts.maxRowSubscriptions ?? 1000;
  const guard = deps.guard ?? createHttpGuard({ allowedOrigins: allowedOriginsOf(deps.config), ...(deps.listenHost !== undefined ? { listenHost: deps.listenHost } : {}) });
  const sessionsOn = deps.config.mcp.sessions;
  const sessions = createSessionTable({
    maxSessions: opts.maxSessions ?? sessionCapFromEnv() ?? 10_000,
    maxUnusedSessions: opts.maxUnusedSessions ?? sessionCapFromEnv() ?? 1_000,
    idleMs: opts.sessionIdleMs ?? 3_600_000,
  });
  const maxBody = deps.config.maxBodyBytes;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const maxQueuedFrames = opts.maxQueuedFrames ?? 256;
  const lists = createListChangeFeed({
    enabled: listChanged,
    keepAliveMs,
    maxQueuedFrames,
    maxListeners: opts.maxSessions ?? sessionCapFromEnv() ?? 10_000,
    legacyStreams: () => sessions.streams(),
  });
  /** Sessionless 2025 mode: calls in flight by id, so notifications/cancelled still works. */
  const sessionlessPending = new Map<JsonRpcId, AbortController>();
  const directory = deps.store.mcpSessions;

  /**
   * The session `id` names, or undefined. With a shared directory (several instances on one
   * database) the directory decides: a session another instance made is adopted here, and one
   * ended on any instance ends here too. One indexed lookup per request.
   */
  async function findSession(id: string): Promise<Session | undefined> {
    if (!directory) return sessions.get(id);
    const protocolVersion = await directory.lookup(id);
    if (protocolVersion === undefined) {
      sessions.end(id);
      return undefined;
    }
    return sessions.get(id) ?? sessions.adopt(id, protocolVersion);
  }

  /** Runs a handler: its result (an object), or the RpcError to answer; anything else thrown is a -32603. */
  async function run(handler: Handler, msg: Extract<Message, { kind: "request" }>, ctx: MethodContext): Promise<object> {
    try {
      return (await handler(msg.params ?? {}, ctx)) as object;
    } catch (err) {
      if (err instanceof RpcError) return err;
      log(`mcp: ${msg.method} failed: ${err instanceof Error ? err.message : String(err)}`);
      return new RpcError(ErrorCode.InternalError, "Internal error");
    }
  }

  function failure(id: JsonRpcId, err: RpcError): string {
    return errorBody(id, err.code, err.message, err.data);
  }

  /** The members 2026-07-28 appends to a result: resultType, the cache hints of lists and reads, serverInfo. */
  function modernTailFor(b: BoundBuild, method: string, params: Record<string, unknown> | undefined): string {
    if (cachedMethods.has(method)) return b.listTail;
    if (method !== "resources/read") return b.tail;
    return typeof params?.uri === "string" && params.uri.startsWith("wo://schema/") ? b.listTail : b.rowTail;
  }

  function answer(mode: "json" | "sse", body: string, extra?: Record<string, string>): McpReply {
    if (mode === "json") return jsonReply(200, body, extra);
    return { status: 200, headers: extra ? { ...SSE_HEADERS, ...extra } : SSE_HEADERS, body: sseFrame(body) };
  }

  // --- 2026-07-28 --------------------------------------------------------------------

  async function serveModern(msg: Message, req: McpRequest): Promise<McpReply> {
    // Notifications and responses: accepted and dropped. On HTTP a 2026 client cancels by
    // closing the request, which aborts `req.signal` below.
    if (msg.kind !== "request") return emptyReply(202);
    const mode = responseMode(req.headers.get("accept") ?? null) ?? "json";
    const b = current;
    if (msg.method === "subscriptions/listen") return await listen(msg, b);
    const handler = b.methods.modern.get(msg.method);
    if (!handler) {
      // Removed (initialize, ping, logging/setLevel, resources/subscribe, tasks/*) or unknown.
      return jsonReply(404, errorBody(msg.id, ErrorCode.MethodNotFound, `Method not found: ${msg.method}`));
    }
    // `req.signal` only when a handler asks for it: a write that can still be stopped.
    const out = await run(handler, msg, new ModernContext(req));
    if (out instanceof RpcError) return answer(mode, failure(msg.id, out));
    return answer(mode, resultBody(msg.id, out, modernTailFor(b, msg.method, msg.params)));
  }

  /**
   * subscriptions/listen: the stream opens with the acknowledgement of what is honoured:
   * `resourceSubscriptions` naming rows the client could read (spec/live.md), and under --watch
   * `toolsListChanged`/`resourcesListChanged` where asked for. It stays open for their
   * notifications (row-subscriptions.ts, list-changes.ts) until the client closes it or the
   * server stops (the graceful end). With nothing honoured: the acknowledgement and the
   * graceful end, then the stream closes.
   */
  async function listen(msg: Extract<Message, { kind: "request" }>, b: BoundBuild): Promise<McpReply> {
    const filter = msg.params?.notifications;
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
      return jsonReply(200, errorBody(msg.id, ErrorCode.InvalidParams, "Invalid params: subscriptions/listen needs params.notifications"));
    }
    const asked = (filter as Record<string, unknown>).resourceSubscriptions;
    if (asked !== undefined && !(Array.isArray(asked) && asked.every((u) => typeof u === "string"))) {
      return jsonReply(200, errorBody(msg.id, ErrorCode.InvalidParams, "Invalid params: notifications.resourceSubscriptions must be an array of resource URIs (strings)"));
    }
    const uris = [...new Set((asked ?? []) as string[])];
    if (uris.length > maxRowSubscriptions) {
      return jsonReply(200, errorBody(msg.id, ErrorCode.InvalidParams, `Invalid params: at most ${maxRowSubscriptions} resourceSubscriptions per stream`));
    }
    const honoured: string[] = [];
    for (const uri of uris) {
      try {
        honoured.push(await b.methods.readableRow(uri, "modern"));
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        // Not a row this client may read (or none at all): not honoured, as the spec allows.
      }
    }
    const subMeta = { "io.modelcontextprotocol/subscriptionId": msg.id };
    const listKinds = lists.honoured(filter as Record<string, unknown>);
    const honouredFilter = honoured.length > 0 ? { ...listKinds, resourceSubscriptions: honoured } : listKinds;
    const ack = sseFrame(notificationBody("notifications/subscriptions/acknowledged", { notifications: honouredFilter, _meta: subMeta }));
    const done = sseFrame(resultBody(msg.id, { resultType: "complete", _meta: { ...subMeta, ...b.serverInfoMeta } }));
    if (Object.keys(honouredFilter).length === 0) return { status: 200, headers: SSE_HEADERS, body: ack + done };
    const sink: RowSink = (uri) => stream?.send(sseFrame(notificationBody("notifications/resources/updated", { uri, _meta: subMeta })));
    const stream = lists.open(msg.id, listKinds, done, () => {
      for (const uri of honoured) rows.remove(uri, sink);
    });
    if (!stream) return jsonReply(200, errorBody(msg.id, ErrorCode.ServerError, "Too many open subscriptions/listen streams; close one and retry"));
    stream.send(ack);
    for (const uri of honoured) rows.add(uri, sink);
    return { status: 200, headers: SSE_HEADERS, body: stream.response };
  }

  /**
   * resources/subscribe and resources/unsubscribe (2025 era): the session's GET stream carries
   * `notifications/resources/updated` for each subscribed row after each commit that changes it.
   * Subscribing needs what reading needs; unsubscribing from a URI not subscribed is fine.
   */
  async function subscription(msg: Extract<Message, { kind: "request" }>, session: Session | undefined): Promise<object | RpcError> {
    if (session === undefined) {
      return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${msg.method} (this server runs without MCP sessions, so it has no stream to notify on; use subscriptions/listen of 2026-07-28)`);
    }
    const uri = msg.params?.uri;
    const subscribed = (session.rowSubscriptions ??= new Map());
    if (msg.method === "resources/unsubscribe") {
      if (typeof uri !== "string") return new RpcError(ErrorCode.InvalidParams, "Invalid params: resources/unsubscribe needs params.uri (a string)");
      const sink = subscribed.get(uri);
      if (sink) rows.remove(uri, sink);
      subscribed.delete(uri);
      return {};
    }
    let readable: string;
    try {
      readable = await current.methods.readableRow(uri, "legacy");
    } catch (err) {
      if (err instanceof RpcError) return err;
      throw err;
    }
    if (subscribed.has(readable)) return {};
    if (subscribed.size >= maxRowSubscriptions) {
      return new RpcError(ErrorCode.InvalidParams, `Invalid params: this session already subscribes to ${maxRowSubscriptions} resources; unsubscribe from some first`);
    }
    const sink: RowSink = (changed) => session.getStream?.send(sseFrame(notificationBody("notifications/resources/updated", { uri: changed })));
    subscribed.set(readable, sink);
    rows.add(readable, sink);
    // Ending the session (DELETE, eviction, shutdown) ends its subscriptions.
    session.onEnd ??= () => {
      for (const [u, s] of session.rowSubscriptions ?? []) rows.remove(u, s);
      session.rowSubscriptions?.clear();
    };
    return {};
  }

  // --- 2025 era ----------------------------------------------------------------------

  async function serveLegacy(msg: Message, version: string, req: McpRequest): Promise<McpReply> {
    const h = req.headers;
    const isInitialize = msg.kind === "request" && msg.method === "initialize";
    // T6: after initialize an unsupported MCP-Protocol-Version is refused.
    if (!isInitialize && !(LEGACY_VERSIONS as readonly string[]).includes(version)) {
      return transportError(400, `Bad Request: unsupported MCP-Protocol-Version '${version}' (supported: ${LEGACY_VERSIONS.join(", ")})`, readableId(msg));
    }
    let session: Session | undefined;
    if (sessionsOn && !isInitialize) {
      const sid = h.get("mcp-session-id");
      if (!sid) return transportError(400, "Bad Request: Mcp-Session-Id header is required (initialize first)", readableId(msg));
      session = await findSession(sid);
      if (!session) return transportError(404, "Session not found: it ended or never existed; initialize a new session", readableId(msg));
    }
    const pending = session ? session.pending : sessionlessPending;
    if (msg.kind === "notification") {
      if (msg.method === "notifications/cancelled") {
        const rid = msg.params?.requestId;
        if (typeof rid === "string" || typeof rid === "number") pending.get(rid)?.abort();
      }
      return emptyReply(202);
    }
    if (msg.kind === "response") return emptyReply(202);

    const mode = responseMode(h.get("accept") ?? null);
    if (!mode) return transportError(406, "Not Acceptable: Accept must allow application/json or text/event-stream", msg.id);
    if (msg.method === "resources/subscribe" || msg.method === "resources/unsubscribe") {
      const out = await subscription(msg, session);
      return answer(mode, out instanceof RpcError ? failure(msg.id, out) : resultBody(msg.id, out));
    }
    const handler = current.methods.legacy.get(msg.method);
    if (!handler) return answer(mode, errorBody(msg.id, ErrorCode.MethodNotFound, `Method not found: ${msg.method}`));

    if (isInitialize) {
      const out = await run(handler, msg, { era: "legacy", signal: req.signal });
      if (out instanceof RpcError) return answer(mode, failure(msg.id, out));
      const result = out as { protocolVersion: string };
      if (!sessionsOn) return answer(mode, resultBody(msg.id, result));
      const created = sessions.create(result.protocolVersion);
      await directory?.record(created.id, created.protocolVersion);
      return answer(mode, resultBody(msg.id, result), { "mcp-session-id": created.id });
    }

    const ctx = new LegacyContext(req, pending, msg.id);
    try {
      const out = await run(handler, msg, ctx);
      if (out instanceof RpcError) return answer(mode, failure(msg.id, out));
      return answer(mode, resultBody(msg.id, out));
    } finally {
      ctx.settle();
    }
  }

  // --- HTTP verbs --------------------------------------------------------------------

  async function post(req: McpRequest): Promise<McpReply> {
    const h = req.headers;
    const ct = h.get("content-type");
    if (ct === null || ct === undefined || mediaTypeOf(ct) !== "application/json") {
      return transportError(415, "Unsupported Media Type: Content-Type must be application/json");
    }
    const bytes = declaresMoreThan(h.get("content-length"), maxBody) ? "too_large" : await req.body(maxBody);
    if (bytes === "too_large") return transportError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
    const text = decodeUtf8(bytes);
    if (text === undefined) return jsonReply(400, errorBody(null, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8"));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return jsonReply(400, errorBody(null, ErrorCode.ParseError, "Parse error: the body is not valid JSON"));
    }
    if (Array.isArray(parsed)) {
      return jsonReply(400, errorBody(null, ErrorCode.InvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per POST"));
    }
    let msg: Message;
    try {
      msg = parseMessage(parsed);
    } catch (err) {
      const e = err as RpcError;
      return jsonReply(400, errorBody(readableId(parsed), e.code, e.message));
    }
    req.message = msg;
    const cls = classify(msg, h);
    if (cls.era === "rejected") return rejection(cls.rejection, readableId(parsed));
    // `return await`, not `return`: an async function returning a promise pays two more ticks.
    return cls.era === "modern" ? await serveModern(msg, req) : await serveLegacy(msg, cls.version, req);
  }

  async function get(req: McpRequest): Promise<McpReply> {
    const h = req.headers;
    if (!sessionsOn) return transportError(405, "Method Not Allowed: this server has no server-to-client stream; POST requests", null, { allow: "POST" });
    if (!acceptsEventStream(h.get("accept") ?? null)) return transportError(406, "Not Acceptable: GET /mcp needs Accept: text/event-stream");
    const sid = h.get("mcp-session-id");
    if (!sid) return transportError(400, "Bad Request: Mcp-Session-Id header is required");
    const session = await findSession(sid);
    if (!session) return transportError(404, "Session not found: it ended or never existed; initialize a new session");
    if (session.getStream && !session.getStream.closed) {
      return transportError(409, "Conflict: this session already has an open GET stream");
    }
    const stream = createSseStream({
      keepAliveMs,
      maxQueuedFrames,
      onClose: () => {
        if (session.getStream === stream) session.getStream = undefined;
      },
    });
    session.getStream = stream;
    // A first comment flushes the headers so the client sees the stream open at once.
    stream.send(": stream open\n\n");
    return { status: 200, headers: SSE_HEADERS, body: stream.response };
  }

  async function del(req: McpRequest): Promise<McpReply> {
    if (!sessionsOn) return transportError(405, "Method Not Allowed: this server has no sessions to end", null, { allow: "POST" });
    const sid = req.headers.get("mcp-session-id");
    if (!sid) return transportError(400, "Bad Request: Mcp-Session-Id header is required");
    const endedHere = sessions.end(sid);
    const endedEverywhere = directory ? await directory.end(sid) : false;
    if (!endedHere && !endedEverywhere) return transportError(404, "Session not found: it ended or never existed");
    return emptyReply(200);
  }

  /** Browser clients (an allowed Origin) need CORS to read the session header and answers. */
  function withCors(reply: McpReply, origin: string): McpReply {
    const headers: Record<string, string> = { ...reply.headers };
    headers["access-control-allow-origin"] = origin;
    headers["access-control-expose-headers"] = "mcp-session-id, mcp-protocol-version";
    headers.vary = headers.vary ? `${headers.vary}, origin` : "origin";
    return { ...reply, headers };
  }

  function dispatch(req: McpRequest): McpReply | Promise<McpReply> {
    switch (req.method) {
      case "POST":
        return post(req);
      case "GET":
        return get(req);
      case "DELETE":
        return del(req);
      case "OPTIONS":
        // CORS preflight from an allowed Origin (the check above already ran).
        return {
          status: 204,
          headers: {
            "access-control-allow-methods": sessionsOn ? ALLOW : "POST",
            "access-control-allow-headers": "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
            "access-control-max-age": "600",
          },
          body: null,
        };
      default:
        return transportError(405, `Method Not Allowed: ${req.method}`, null, { allow: sessionsOn ? ALLOW : "POST" });
    }
  }

  async function handle(req: McpRequest): Promise<McpReply> {
    // T8: Origin (and Host on loopback) before anything else, for every verb.
    const origin = req.headers.get("origin");
    const denied = guard.refusal(origin, req.headers.get("host"));
    if (denied !== undefined) return transportError(403, `Forbidden: ${denied}`);
    try {
      const reply = await dispatch(req);
      return origin ? withCors(reply, origin) : reply;
    } catch (err) {
      // The shared session directory (PostgreSQL) is out of reach: as any call then, 503.
      if (err instanceof StoreUnavailableError) return transportError(503, "Service Unavailable: the database cannot be reached right now; retry shortly", null, { "retry-after": "1" });
      log(`mcp: request failed: ${err instanceof Error ? err.message : String(err)}`);
      return jsonReply(500, errorBody(null, ErrorCode.InternalError, "Internal error"));
    }
  }

  return {
    handle,
    async fetch(req, incoming) {
      const reply = await handle(new FetchMcpRequest(req, incoming));
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    },
    setBuild(next) {
      const before = current.methods;
      current = bind(next);
      if (!listChanged) return [];
      const [was, now] = [before.listings(), current.methods.listings()];
      const changed = (["tools", "resources"] as const).filter((k) => was[k] !== now[k]);
      lists.notify(changed);
      return changed;
    },
    close() {
      lists.close();
      rows.close();
      sessions.closeAll();
      for (const ac of sessionlessPending.values()) ac.abort();
    },
    get sessionCount() {
      return sessions.size;
    },
  };
}

export type McpRoutes = Hono & { mcp: McpHandler };

/** A hono sub-app answering POST/GET/DELETE (and 405 otherwise) at "/"; mount at /mcp. */
export function createMcpRoutes(deps: McpDeps): McpRoutes {
  return mcpRoutesFor(createMcpHandler(deps));
}

/** The same sub-app around an existing handler: a new build's app keeps the sessions of the old one (runtime/app-host.ts). */
export function mcpRoutesFor(handler: McpHandler): McpRoutes {
  const app = new Hono<{ Bindings: { incoming?: IncomingMessage } }>();
  app.all("/", (c) => handler.fetch(c.req.raw, c.env?.incoming));
  return Object.assign(app, { mcp: handler }) as unknown as McpRoutes;
}
