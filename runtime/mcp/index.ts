// The MCP endpoint: Streamable HTTP on one path (/mcp), serving the 2025 revisions
// (2025-11-25, 2025-06-18, 2025-03-26; sessions optional) and the stateless 2026-07-28
// revision side by side. spec/mcp.md is the contract. createMcpHandler composes the parts:
// who may connect (../http-guard.ts), the verbs (post.ts; session-verbs.ts for GET and
// DELETE), the eras (era.ts classifies; modern.ts, listen.ts, legacy.ts serve), the method
// semantics (methods.ts), and the state they share (endpoint.ts).
//
// The handler speaks in McpRequest/McpReply (http.ts), not in a server's types: `wo run`
// serves it on node:http (node.ts), and fetch.ts adapts it for in-process hono users.

import type { WoConfig } from "../../model/app.js";
import type { StreamBudget } from "../stream-budget.js";
import type { AppContract, Operation } from "../../model/build-contract.js";
import { StoreUnavailableError, type Store } from "../../model/store.js";
import { allowedOriginsOf, createHttpGuard, type HttpGuard } from "../http-guard.js";
import { createEndpoint, type Endpoint } from "./endpoint.js";
import { jsonReply, transportError, withCors, type McpReply, type McpRequest } from "./http.js";
import { ErrorCode, errorBody } from "./json-rpc.js";
import type { ListKind } from "./list-changes.js";
import { post } from "./post.js";
import { SessionsFullError } from "./sessions.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import type { Admission } from "../operations/bind.js";
import { endSession, openSessionStream } from "./session-verbs.js";

export type { McpReply, McpRequest } from "./http.js";

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
  /** The process's stream budget, shared with REST live streams (../stream-budget.ts). Default: one of its own. */
  streams?: StreamBudget;
  /** The instance's telemetry: each method call is counted and traced (../telemetry/observe.ts). */
  telemetry?: Telemetry;
}

/** What the endpoint serves from one build; setBuild() replaces it while sessions and streams stay. */
export interface McpBuild {
  /** app.json: tools, resources and instructions come from its operations table and model. */
  catalog: AppContract;
  operations: Record<string, Operation>;
  store: Store;
  serverInfo: { name: string; version: string };
  /** Admits the reads that are no operation (`wo://events`) as an operation's read; absent: admitted at once. */
  admit?: Admission;
}

export interface McpDeps extends McpBuild {
  config: WoConfig;
  /** The instance's Host/Origin policy (runtime/instance.ts shares its own); default: one from `config` and `listenHost`. */
  guard?: HttpGuard;
  /** The host the server listens on; loopback turns on the Host check (DNS rebinding). */
  listenHost?: string;
  options?: McpOptions;
}

export interface McpHandler {
  /** Answers one request; never throws (a failure is a 500). */
  handle(req: McpRequest): Promise<McpReply>;
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

const ALLOW = "GET, POST, DELETE";
const PREFLIGHT_HEADERS =
  "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id";

function dispatch(ep: Endpoint, req: McpRequest): McpReply | Promise<McpReply> {
  switch (req.method) {
    case "POST":
      return post(ep, req);
    case "GET":
      return openSessionStream(ep, req);
    case "DELETE":
      return endSession(ep, req);
    case "OPTIONS":
      // CORS preflight from an allowed Origin (the guard already ran).
      return {
        status: 204,
        headers: {
          "access-control-allow-methods": ep.sessionsOn ? ALLOW : "POST",
          "access-control-allow-headers": PREFLIGHT_HEADERS,
          "access-control-max-age": "600",
        },
        body: null,
      };
    default:
      return transportError(405, `Method Not Allowed: ${req.method}`, null, { allow: ep.sessionsOn ? ALLOW : "POST" });
  }
}

export function createMcpHandler(deps: McpDeps): McpHandler {
  const ep = createEndpoint(deps);
  const guard =
    deps.guard ??
    createHttpGuard({
      allowedOrigins: allowedOriginsOf(deps.config),
      ...(deps.listenHost !== undefined ? { listenHost: deps.listenHost } : {}),
    });
  return {
    async handle(req) {
      // T8: Origin (and Host on loopback) before anything else, for every verb.
      const origin = req.headers.get("origin");
      const denied = guard.refusal(origin, req.headers.get("host"));
      if (denied !== undefined) return transportError(403, `Forbidden: ${denied}`);
      try {
        const reply = await dispatch(ep, req);
        return origin ? withCors(reply, origin) : reply;
      } catch (err) {
        if (err instanceof SessionsFullError)
          return transportError(
            503,
            `Service Unavailable: ${err.message}; retry once some have ended or expired`,
            null,
            { "retry-after": "60" },
          );
        // The shared session directory (PostgreSQL) is out of reach: as any call then, 503.
        if (err instanceof StoreUnavailableError)
          return transportError(
            503,
            "Service Unavailable: the database cannot be reached right now; retry shortly",
            null,
            { "retry-after": "1" },
          );
        ep.log(`mcp: request failed: ${err instanceof Error ? err.message : String(err)}`);
        return jsonReply(500, errorBody(null, ErrorCode.InternalError, "Internal error"));
      }
    },
    setBuild(next) {
      const before = ep.current.methods;
      ep.current = ep.bind(next);
      if (!ep.listChanged) return [];
      const [was, now] = [before.listings(), ep.current.methods.listings()];
      const changed = (["tools", "resources"] as const).filter((k) => was[k] !== now[k]);
      ep.lists.notify(changed);
      return changed;
    },
    close() {
      ep.close();
      ep.lists.close();
      ep.rows.close();
      ep.sessions.closeAll();
      for (const calls of ep.sessionlessPending.values()) for (const ac of calls.values()) ac.abort();
    },
    get sessionCount() {
      return ep.sessions.size;
    },
  };
}
