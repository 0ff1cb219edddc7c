// The endpoint's state, shared by the modules that serve its verbs: the build serving now
// (replaced by setBuild, read once per request so a call finishes on the build it started on),
// and what outlives builds — sessions, row subscriptions, the list-change feed, the limits.

import type { McpBuild, McpDeps } from "./index.js";
import type { JsonRpcId } from "./json-rpc.js";
import { createListChangeFeed, type ListChangeFeed } from "./list-changes.js";
import { createMethods, type MethodTable } from "./methods.js";
import { createRowSubscriptions, type RowSubscriptions } from "./row-subscriptions.js";
import { mintSharedId, verifySharedId } from "./session-ids.js";
import { createSessionTable, SessionsFullError, type Session, type SessionTable } from "./sessions.js";
import { StreamBudget } from "../stream-budget.js";
import type { Telemetry } from "../telemetry/telemetry.js";

/** The per-build part of the endpoint: its methods and what 2026-07-28 adds to their results. */
export interface BoundBuild {
  readonly methods: MethodTable;
  serverInfoMeta: { "io.modelcontextprotocol/serverInfo": { name: string; version: string } };
  /** What 2026-07-28 adds to every result, by kind, as JSON members written once per build. */
  tail: string;
  listTail: string;
  /** tools/list's tail when it differs between callers: the same hints, private to the caller. */
  privateListTail: string;
  rowTail: string;
}

export interface Endpoint {
  current: BoundBuild;
  readonly log: (line: string) => void;
  /** `wo run --watch`: builds replace each other while serving. */
  readonly listChanged: boolean;
  /** wo.toml `[mcp] sessions`: 2025-era clients get sessions and GET streams. */
  readonly sessionsOn: boolean;
  /** Stops the endpoint's own timers (the shared directory's sweep). */
  close(): void;
  readonly sessions: SessionTable;
  /**
   * The session `id` names, or undefined. With a shared session directory (several instances
   * on one PostgreSQL database, Store.mcpSessions) the directory decides: a session another
   * instance made is adopted here, and one ended on any instance ends here too. `isRequest`: a
   * request or a GET stream, which gives a session not used yet its row (a notification does
   * not); SessionsFullError when the table has no room for it.
   */
  findSession(id: string, isRequest: boolean): Session | undefined | Promise<Session | undefined>;
  /** A new session (initialize): with a shared directory, an id any instance recognises and no row yet. */
  newSession(protocolVersion: string): Session | Promise<Session>;
  /** Ends a session here and in the shared directory; false when neither knew it. */
  endSession(id: string): boolean | Promise<boolean>;
  readonly rows: RowSubscriptions;
  readonly lists: ListChangeFeed;
  /**
   * Sessionless 2025 mode: calls in flight by connection, then by id, so notifications/cancelled
   * reaches only calls made on its own connection: ids are the client's own, and another
   * client's cancel must not stop them (spec/mcp.md, "Cancellation").
   */
  readonly sessionlessPending: Map<object, Map<JsonRpcId, AbortController>>;
  /** Every long-lived stream's budget: GET and listen streams count with REST live streams. */
  readonly streams: StreamBudget;
  /** Counts and traces each method call; absent: nothing is observed. */
  readonly telemetry: Telemetry | undefined;
  readonly maxBody: number;
  readonly keepAliveMs: number;
  readonly maxQueuedFrames: number;
  readonly maxRowSubscriptions: number;
  bind(build: McpBuild): BoundBuild;
}

/**
 * Cache hints (2026-07-28): lists change only when the build changes, which means a restart,
 * except under `wo run --watch`, where any saved edit can change them: no caching then.
 */
const LIST_CACHE = { ttlMs: 60_000, cacheScope: "public" } as const;
const WATCHED_LIST_CACHE = { ttlMs: 0, cacheScope: "public" } as const;
const ROW_CACHE = { ttlMs: 0, cacheScope: "private" } as const;
/** A list filtered by the caller's policies may be kept by that caller only. */
const PRIVATE_LIST_CACHE = { ttlMs: 60_000, cacheScope: "private" } as const;
const WATCHED_PRIVATE_LIST_CACHE = { ttlMs: 0, cacheScope: "private" } as const;
const cachedMethods = new Set(["tools/list", "resources/list", "resources/templates/list", "server/discover"]);

/** The members 2026-07-28 appends to a result: resultType, the cache hints of lists and reads, serverInfo. */
export function modernTailFor(b: BoundBuild, method: string, params: Record<string, unknown> | undefined): string {
  if (method === "tools/list" && b.methods.toolsVary) return b.privateListTail;
  if (cachedMethods.has(method)) return b.listTail;
  if (method !== "resources/read") return b.tail;
  return typeof params?.uri === "string" && params.uri.startsWith("wo://schema/") ? b.listTail : b.rowTail;
}

/**
 * Test hooks, not settings (wo.toml has no key for them): a whole number of at least `least` from
 * the environment variable `name` of a `wo run`, else undefined. They let a test against the real
 * server see in seconds what takes thousands of requests or an hour (spec/mcp.md):
 * - `WO_MCP_MAX_SESSIONS=<n>` caps both session pools ("Session limits");
 * - `WO_MCP_SESSION_IDLE_MS=<ms>` is how long a session may sit unused before it may be ended.
 */
function testHookFromEnv(name: string, least: number): number | undefined {
  const raw = process.env[name];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= least ? n : undefined;
}

export function createEndpoint(deps: McpDeps): Endpoint {
  const opts = deps.options ?? {};
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const listChanged = opts.listChanged ?? false;
  const bind = (b: McpBuild): BoundBuild => {
    // Made on the first MCP request (or swap), not at start: a 1,000-type app's tool and event
    // tables are a tenth of a second that a server nobody asks over MCP would spend for nothing.
    let methods: MethodTable | undefined;
    const serverInfoMeta = { "io.modelcontextprotocol/serverInfo": b.serverInfo };
    const members = (cache?: { ttlMs: number; cacheScope: string }) =>
      JSON.stringify({ resultType: "complete", ...cache, _meta: serverInfoMeta }).slice(1, -1);
    return {
      get methods() {
        methods ??= createMethods({
          catalog: b.catalog,
          operations: b.operations,
          store: b.store,
          serverInfo: b.serverInfo,
          ...(b.admit ? { admit: b.admit } : {}),
          pageSize: opts.pageSize ?? 100,
          log,
          listChanged,
          sessions: deps.config.mcp.sessions,
        });
        return methods;
      },
      serverInfoMeta,
      tail: members(),
      listTail: members(listChanged ? WATCHED_LIST_CACHE : LIST_CACHE),
      privateListTail: members(listChanged ? WATCHED_PRIVATE_LIST_CACHE : PRIVATE_LIST_CACHE),
      rowTail: members(ROW_CACHE),
    };
  };
  const idleMs = opts.sessionIdleMs ?? testHookFromEnv("WO_MCP_SESSION_IDLE_MS", 100) ?? 3_600_000;
  const sessionCap = testHookFromEnv("WO_MCP_MAX_SESSIONS", 1);
  const maxSessions = opts.maxSessions ?? sessionCap ?? deps.config.mcp.maxSessions ?? 10_000;
  // How long a session may go without its first request: long enough for any client (the SDKs
  // send theirs at once), short so that ids nobody uses stop counting soon.
  const unusedMs = Math.min(idleMs, 5 * 60_000);
  const sessions = createSessionTable({
    maxSessions,
    maxUnusedSessions: opts.maxUnusedSessions ?? sessionCap ?? 1_000,
    idleMs,
  });
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const streams = opts.streams ?? new StreamBudget();
  const maxQueuedFrames = opts.maxQueuedFrames ?? 256;
  const directory = deps.store.mcpSessions;
  const endpoint: Endpoint = {
    current: bind(deps),
    log,
    listChanged,
    sessionsOn: deps.config.mcp.sessions,
    sessions,
    // Without a directory these stay synchronous: no promise on the single-instance path.
    findSession: directory
      ? async (id, isRequest) => {
          const recorded = await directory.lookup(id, idleMs);
          if (recorded === null) {
            sessions.end(id);
            return undefined;
          }
          if (recorded !== undefined) return sessions.get(id) ?? sessions.adopt(id, recorded);
          // No row: minted by an instance of this database and not used yet, or gone.
          const minted = verifySharedId(await directory.sharedKey(), id, unusedMs);
          if (minted === undefined) {
            sessions.end(id);
            return undefined;
          }
          if (isRequest && !(await directory.record(id, minted, maxSessions, idleMs)))
            throw new SessionsFullError(maxSessions);
          return sessions.get(id) ?? sessions.adopt(id, minted);
        }
      : (id) => sessions.get(id),
    newSession: directory
      ? async (protocolVersion) =>
          sessions.create(protocolVersion, mintSharedId(await directory.sharedKey(), protocolVersion))
      : (protocolVersion) => sessions.create(protocolVersion),
    endSession: directory
      ? async (id) => {
          const endedHere = sessions.end(id);
          const isMinted = verifySharedId(await directory.sharedKey(), id, unusedMs) !== undefined;
          const endedEverywhere = await directory.end(id, isMinted);
          return endedHere || endedEverywhere;
        }
      : (id) => sessions.end(id),
    // Row subscriptions outlive builds like sessions do; a changed row is named by the build serving.
    rows: createRowSubscriptions(
      deps.store,
      (table, id) => endpoint.current.methods.rowUri(table, id),
      (change) => endpoint.current.methods.events.urisOf(change),
    ),
    lists: createListChangeFeed({
      enabled: listChanged,
      keepAliveMs,
      maxQueuedFrames,
      maxListeners: opts.maxSessions ?? sessionCap ?? 10_000,
      legacyStreams: () => sessions.streams(),
    }),
    sessionlessPending: new Map(),
    streams,
    telemetry: opts.telemetry,
    maxBody: deps.config.maxBodyBytes,
    keepAliveMs,
    maxQueuedFrames,
    maxRowSubscriptions: opts.maxRowSubscriptions ?? 1000,
    bind,
    close: () => clearInterval(sweep),
  };
  // Sessions a client abandons without DELETE would stay in a shared directory for good: every
  // quarter of the idle time each instance marks the sessions it serves as used and ends those
  // nobody used for the idle time, on every instance (spec/mcp.md, "Sessions across instances").
  const idleText = idleMs >= 60_000 ? `${Math.round(idleMs / 60_000)} min` : `${idleMs / 1000} s`;
  const sweep =
    directory &&
    setInterval(() => {
      directory.forgetIdle(idleMs, sessions.busyIds(), unusedMs).then(
        (ended) => {
          if (ended > 0) log(`mcp: ended ${ended} session${ended === 1 ? "" : "s"} idle for ${idleText}`);
        },
        (err) => log(`mcp: could not end idle sessions: ${(err as Error).message}`),
      );
    }, idleMs / 4).unref();
  return endpoint;
}
