// REST under the paths of `service rest` blocks: request → the operation's input object → the
// SAME bound operation MCP calls → response. Owns routing (404/405 with Allow, the methods a
// CORS preflight may use), path ids, statuses per op (spec/rest.md) and the problem-details
// framing of failures. The routes are the build's (app.json: the operations table and the
// routes the runtime answers itself); nothing here derives a route or a name. Validation,
// defaults, transactions and error wording belong to the operation layer; who may send
// requests at all, to the app's HttpGuard.

import { anonymousRefusal } from "../identity/identity.js";
import { anonymousReadsNothing, readFilter } from "../operations/read-policy.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeBindings, requestPrincipal } from "../node-bindings.js";
import { stampedChallenge, stampedPrincipal } from "../identity/request-principal.js";
import { Hono, type Context } from "hono";
import { emittedEvents, eventsRoute, type CatalogType } from "../../model/app.js";
import type { Store } from "../../model/store.js";
import { eventsStream } from "./events-route.js";
import type { AppContract, Operation, OperationKind } from "../../model/build-contract.js";
import { ownerPrincipal, type Principal } from "../../model/principal.js";
import { OperationError, RateLimitedError } from "../../model/errors.js";
import { isPreflight, restPreflightHeaders } from "../http-guard.js";
import { listVocabulary, liveFiltersValidator, type ListVocabulary } from "../../model/list-filters.js";
import { listConditions } from "../operations/list-page.js";
import { IdInput } from "../operations/id-input.js";
import { surfaceCall } from "../operations/call-context.js";
import { readJsonObject, type RestFailure } from "./body.js";
import type { LiveStreams } from "./live.js";
import { isRefusal, streamCallerOf } from "../stream-budget.js";
import { createdAnswer, jsonAnswer, jsonHeaders, writeAnswer } from "./json-answer.js";
import { plainGetPath } from "./plain-get.js";
import { problemAnswer, problemResponse, unexpectedAnswer } from "./problem.js";
import { PathTable } from "./path-table.js";
import { listInput } from "./query.js";

export interface RestDeps {
  /** app.json: the routes are its operations table's, and the ones the runtime answers itself. */
  catalog: AppContract;
  operations: Record<string, Operation>;
  maxBodyBytes: number;
  /** Serves `GET P/live` where a type exposes `subscribe`, and `GET /api/_events`. */
  live: LiveStreams;
  /** What an event stream reads to test a read policy through refs (../app-events.ts). */
  store: Pick<Store, "read">;
  /** One line per unexpected failure; never request bodies. */
  log: (line: string) => void;
  /** The operation layer's input check (rt.validate): a live stream's filters go through it. */
  validate: (name: string, input: unknown) => unknown;
  /**
   * Asked once per route template (`/api/posts/:id`): what each request the route takes is
   * stamped with (telemetry's label).
   */
  onRoute?: (path: string) => (incoming: IncomingMessage) => void;
  /** The request's trace, when it is traced: the operation's spans join it. */
  traceOf?: (incoming: IncomingMessage | undefined) => unknown;
}

/** One REST endpoint, as `GET /` and `wo run`'s route table show it. */
export interface Endpoint {
  method: string;
  path: string;
  /** Tool name of the operation, or `subscribe` (the live stream). */
  op: string;
}

type Kind = OperationKind | "live";
interface Route extends Endpoint {
  kind: Kind;
  type: CatalogType;
  /** The service path the route hangs off (Location of a created row). */
  base: string;
  /** For link/unlink: the path parameter (and input property) naming the target row. */
  targetParam?: string;
}

/** Every route of the app, ordered by path, then method (the manifest's order). */
function routesOf(app: AppContract): Route[] {
  const typeNamed = new Map(app.types.map((t) => [t.name, t]));
  const routes: Route[] = [];
  for (const entry of app.operations) {
    for (const r of entry.routes) {
      const route: Route = {
        method: r.method,
        path: r.path,
        op: entry.name,
        kind: entry.kind,
        type: typeNamed.get(entry.type)!,
        base: r.base,
      };
      if (entry.relation?.targetParam !== undefined) route.targetParam = entry.relation.targetParam;
      routes.push(route);
    }
  }
  for (const r of app.runtimeRoutes) {
    routes.push({
      method: r.method,
      path: r.path,
      op: r.op,
      kind: "live",
      type: typeNamed.get(r.type)!,
      base: r.base,
    });
  }
  return routes.sort((a, b) => compare(a.path, b.path) || compare(a.method, b.method));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function restEndpoints(app: AppContract): Endpoint[] {
  const endpoints = routesOf(app).map(({ method, path, op }) => ({ method, path, op }));
  return emittedEvents(app).length > 0 ? [{ method: "GET", path: eventsRoute, op: "events" }, ...endpoints] : endpoints;
}

/** The routes of one path, by method, as the path's handler answers them. */
interface PathRoutes {
  list: Route[];
  /** The Allow header of a 405 and of a preflight's answer. */
  allow: string;
  stamp: ((incoming: IncomingMessage) => void) | undefined;
  /** The path's GET by id, which the edge may answer itself (answerGet). */
  byId: Route | undefined;
}

/** A binding's REST: hono's routes, and the plain GETs by id answered on node's objects. */
export interface RestRoutes {
  app: Hono;
  /**
   * Answers `incoming` when it is a plain GET by id (plain-get.ts) of a route here, as hono's
   * routes would, and says so; false: nothing was done, and the request goes to hono. Everything
   * before the routes (guard, identity, the request log, telemetry) has run at the edge.
   */
  answerGet(incoming: IncomingMessage, outgoing: ServerResponse): boolean;
}

/** Stamps the request hono's context stands for, under `wo run` (in process there is none). */
function stampOf(c: Context, stamp: ((incoming: IncomingMessage) => void) | undefined): void {
  const incoming = stamp && nodeBindings(c).incoming;
  if (incoming) stamp!(incoming);
}

export function createRestRoutes(deps: RestDeps): RestRoutes {
  // strict: false — `/api/posts/` is `/api/posts`, as in the reference runtime.
  const app = new Hono({ strict: false });
  const byPath = new Map<string, Route[]>();
  for (const route of routesOf(deps.catalog)) {
    const list = byPath.get(route.path) ?? [];
    if (!list.some((r) => r.method === route.method)) list.push(route);
    byPath.set(route.path, list);
  }
  // One table of every path, matched by one route of hono's: `P/live` and `P/me` win over
  // `P/:id` as literals do (path-table.ts).
  const paths = new PathTable<PathRoutes>();
  for (const [path, list] of byPath) {
    const allow = [...new Set(list.map((r) => r.method))].sort().join(", ");
    const byId = list.find((r) => r.method === "GET" && r.kind === "get");
    paths.add(path, { list, allow, stamp: deps.onRoute?.(path), byId });
  }
  // What each type's list query may name, computed on its first list request, then kept.
  const vocabularies = new Map<string, ListVocabulary>();
  const vocabularyOf = (type: CatalogType): ListVocabulary => {
    let vocabulary = vocabularies.get(type.name);
    if (vocabulary === undefined) vocabularies.set(type.name, (vocabulary = listVocabulary(type)));
    return vocabulary;
  };
  // The app-wide stream of application events, where some trigger emits one (events-route.ts).
  if (emittedEvents(deps.catalog).length > 0) {
    const stamp = deps.onRoute?.(eventsRoute);
    app.all(eventsRoute, (c) => {
      stampOf(c, stamp);
      return eventsStream(c, deps);
    });
  }
  app.all("*", (c, next) => {
    const found = paths.match(c.req.path);
    // No REST path: hono's not-found answer (binding.ts).
    if (found === undefined) return next();
    const { list, allow, stamp } = found.value;
    stampOf(c, stamp);
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    const route = list.find((r) => r.method === method);
    if (!route) {
      // Only an admitted origin's preflight gets here (the app's HttpGuard refused the rest).
      if (isPreflight(c.req.method, c.req.header("origin"), c.req.header("access-control-request-method"))) {
        return c.body(null, 204, restPreflightHeaders(allow));
      }
      return problemResponse(c, "method_not_allowed", `${c.req.method} is not allowed here; allowed: ${allow}.`, [], {
        allow,
      });
    }
    return handle(c, route, found.params, deps, vocabularyOf);
  });
  // Only GETs by id: hono's earlier routes (the explorer's, the audit trail's, the jobs', the
  // events stream) are literal paths that end in no id, so none of them would have taken one.
  const answerGet = (incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const path = plainGetPath(incoming);
    const found = path === undefined ? undefined : paths.match(path);
    const route = found?.value.byId;
    const id = route && idOf(found!.params.id);
    // An id that is none is worded by handle, through hono.
    if (id === undefined) return false;
    found!.value.stamp?.(incoming);
    getById(route!, id, incoming, outgoing, deps).catch((err: unknown) => {
      const answer = unexpectedAnswer(deps.log, "GET", path!, err);
      if (!outgoing.headersSent) writeAnswer(outgoing, answer.status, answer.headers, answer.body);
    });
    return true;
  };
  return { app, answerGet };
}

/** A GET by id answered on node's objects (answerGet): what handle does for it, written whole. */
async function getById(
  route: Route,
  id: number,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  deps: RestDeps,
): Promise<void> {
  const principal = stampedPrincipal(incoming) ?? ownerPrincipal;
  let result: unknown;
  try {
    result = await callOperation(route, IdInput.of(id) ?? { id }, principal, incoming, undefined, deps);
  } catch (err) {
    const f = failureOf(route, err, deps);
    const answer = problemAnswer(f.kind, f.detail, f.errors, f.headers, f.truncated, stampedChallenge(incoming));
    return writeAnswer(outgoing, answer.status, answer.headers, answer.body);
  }
  writeAnswer(outgoing, 200, jsonHeaders, JSON.stringify(result ?? null));
}

const idText = /^[1-9][0-9]{0,15}$/;

/** A path parameter as a row id, or undefined when it is none. */
function idOf(raw: string | undefined): number | undefined {
  return raw !== undefined && idText.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
}

/**
 * Whether a query's percent-escapes decode as UTF-8. URLSearchParams would turn `%FF` into
 * U+FFFD and filter on that; a `%` not followed by two hex digits is a literal `%` there too.
 */
function isUtf8Query(search: string): boolean {
  try {
    decodeURIComponent(search.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
    return true;
  } catch {
    return false;
  }
}

async function handle(
  c: Context,
  route: Route,
  params: Record<string, string>,
  deps: RestDeps,
  vocabularyOf: (type: CatalogType) => ListVocabulary,
): Promise<Response> {
  let id: number | undefined;
  if (route.path.includes("/:id")) {
    id = idOf(params.id);
    if (id === undefined) {
      const raw = params.id ?? "";
      const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
      return problemResponse(
        c,
        "invalid_input",
        `'${shown}' is not a valid ${route.type.name} id; ids are positive integers.`,
        [{ path: "/id", message: "must be a positive integer" }],
      );
    }
  }
  let targetId: number | undefined;
  if (route.targetParam !== undefined) {
    targetId = idOf(params[route.targetParam]);
    if (targetId === undefined) {
      const raw = params[route.targetParam] ?? "";
      const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
      return problemResponse(
        c,
        "invalid_input",
        `'${shown}' is not a valid ${route.targetParam} id; ids are positive integers.`,
        [{ path: `/${route.targetParam}`, message: "must be a positive integer" }],
      );
    }
  }

  let input: Record<string, unknown> | IdInput;
  switch (route.kind) {
    case "live":
      return live(c, route, deps, vocabularyOf(route.type));
    case "list":
    case "relation": {
      const url = new URL(c.req.url);
      if (!isUtf8Query(url.search)) {
        return problemResponse(
          c,
          "invalid_input",
          "The query string is not valid UTF-8 once percent-decoded; encode filter values as UTF-8.",
        );
      }
      // A relation pages like a list (limit, cursor) but has no filters.
      const vocab =
        route.kind === "list"
          ? vocabularyOf(route.type)
          : { type: route.type, filters: new Map(), equalities: [], isSearched: false };
      const q = listInput(vocab, url.searchParams);
      if (!q.ok) return failure(c, q.failure);
      input = route.kind === "list" ? q.input : { ...q.input, id };
      break;
    }
    case "unlink":
      input = { id, [route.targetParam!]: targetId };
      break;
    case "link": {
      const incoming = nodeBindings(c).incoming;
      const body = await readJsonObject(c.req.raw, deps.maxBodyBytes, incoming);
      if (!body.ok) return failure(c, body.failure);
      // The path names both rows; the body holds only the link's own fields.
      input = { ...body.value, id, [route.targetParam!]: targetId };
      break;
    }
    case "get":
    case "delete":
      // The id the path proved: the operation does not check it again (operations/id-input.ts).
      input = IdInput.of(id!) ?? { id };
      break;
    case "me":
      // The caller's own row: the operation reads who is calling from the call.
      input = {};
      break;
    case "create":
    case "update":
    case "method": {
      const incoming = nodeBindings(c).incoming;
      const body = await readJsonObject(c.req.raw, deps.maxBodyBytes, incoming);
      if (!body.ok) return failure(c, body.failure);
      // The path names the row; an `id` in the body never redirects the call elsewhere.
      input = route.kind === "create" ? body.value : { ...body.value, id };
      break;
    }
    default: {
      const never: never = route.kind;
      throw new Error(`unhandled route kind ${String(never)}`);
    }
  }

  // Reads have nothing to roll back; creating the request's AbortSignal costs a few percent
  // of a GET, so only calls that may write get one.
  const reading = route.kind === "get" || route.kind === "list" || route.kind === "relation" || route.kind === "me";
  const principal = requestPrincipal(c) ?? ownerPrincipal;
  const signal = reading ? undefined : c.req.raw.signal;
  let result: unknown;
  try {
    result = await callOperation(route, input, principal, nodeBindings(c).incoming, signal, deps);
  } catch (err) {
    return failure(c, failureOf(route, err, deps));
  }

  switch (route.kind) {
    case "create": {
      const createdId = (result as { id?: unknown })?.id;
      return createdAnswer(c, result, `${route.base}/${String(createdId)}`);
    }
    case "delete":
    case "unlink":
      return c.body(null, 204);
    case "link": {
      const { created, link } = result as { created: boolean; link: unknown };
      return c.json(link, created ? 201 : 200);
    }
    default:
      return jsonAnswer(c, result ?? null);
  }
}

/** A build without the route's handler: what callOperation throws, answered as 501. */
class NoHandler extends Error {}

/**
 * The route's operation called as `principal` (the owner when the edge resolved nobody); its
 * error, thrown or rejected, is answered as failureOf says.
 */
function callOperation(
  route: Route,
  input: Record<string, unknown> | IdInput,
  principal: Principal,
  incoming: IncomingMessage | undefined,
  signal: AbortSignal | undefined,
  deps: RestDeps,
): Promise<unknown> {
  const operation = deps.operations[route.op];
  if (!operation) throw new NoHandler(route.op);
  // Whom the caller's rate limit counts: an anonymous caller by its address; a named principal
  // the limiter knows by name (so its reads keep their shared context), the owner is not limited.
  const caller = principal.via === "anonymous" ? streamCallerOf(incoming?.socket, principal) : undefined;
  return operation(input, surfaceCall("rest", principal, signal, caller, deps.traceOf?.(incoming)));
}

/** The failure that answers a call's error; an internal or unexpected one is logged. */
function failureOf(route: Route, err: unknown, deps: RestDeps): RestFailure {
  if (err instanceof NoHandler)
    return { kind: "not_implemented", detail: `The build has no handler for '${route.op}'; run \`wo build\`.` };
  if (err instanceof OperationError) {
    if (err.kind === "internal") deps.log(`${route.method} ${route.path}: ${err.message}`);
    const headers: Record<string, string> =
      err instanceof RateLimitedError
        ? { "retry-after": String(err.retryAfterSeconds) }
        : err.kind === "busy" || err.kind === "unavailable"
          ? { "retry-after": "1" }
          : {};
    return { kind: err.kind, detail: err.message, errors: err.details, headers, truncated: err.truncated };
  }
  deps.log(
    `${route.method} ${route.path}: unexpected ${(err as Error)?.name ?? "error"}: ${(err as Error)?.message ?? String(err)}`,
  );
  return {
    kind: "internal",
    detail: "The server failed to complete the request; nothing was changed. Try again, and report it if it persists.",
  };
}

/** Live streams take a list's filters, but not its paging, sorting or counting. */
const notForLive = ["limit", "cursor", "sort", "count"];
/** A change log position: what a live event's `id:` holds. */
const seqText = /^(?:0|[1-9][0-9]{0,15})$/;

/** `GET P/live`: the filters as on list, then the stream (rest/live.ts). */
function live(c: Context, route: Route, deps: RestDeps, vocab: ListVocabulary): Response {
  const url = new URL(c.req.url);
  if (!isUtf8Query(url.search)) {
    return problemResponse(
      c,
      "invalid_input",
      "The query string is not valid UTF-8 once percent-decoded; encode filter values as UTF-8.",
    );
  }
  const refused = notForLive.find((name) => url.searchParams.has(name));
  if (refused !== undefined) {
    return problemResponse(
      c,
      "invalid_input",
      `'${refused}' does not apply to a live stream: it sends every change as it commits. Filters (field=value, field[op]=value) do.`,
      [{ path: `/${refused}`, message: "is not a parameter of live streams" }],
    );
  }
  const q = listInput(vocab, url.searchParams);
  if (!q.ok) return failure(c, q.failure);
  let where;
  try {
    // What the query text alone cannot rule out (integer range, date formats, `in` sizes, union
    // variants) is checked against the list's own filter schemas, as a list's input is.
    deps.validate(liveFiltersValidator(route.type.snake), q.input);
    where = listConditions(vocab, q.input);
  } catch (err) {
    if (err instanceof OperationError) return problemResponse(c, err.kind, err.message, err.details);
    throw err;
  }
  const lastEventId = resumePosition(c);
  if (lastEventId instanceof Response) return lastEventId;
  // HEAD: the answer a GET would start with, and no stream left open behind it.
  if (c.req.method === "HEAD") return new Response(null, { status: 200, headers: streamHeaders });
  // Under `wo run` the stream writes its events straight to node's response (../sse.ts).
  const { incoming, outgoing } = nodeBindings(c);
  // The caller's read policy, evaluated on each change for this stream alone (rest/live.ts). An
  // anonymous caller no line lets read the type is refused as before policies.
  const principal = requestPrincipal(c);
  const filter = readFilter(route.type, principal, deps.catalog);
  if (anonymousReadsNothing(route.type, principal, filter))
    return problemResponse(c, "unauthorized", anonymousRefusal.reason);
  const body = deps.live.open(
    route.type,
    { where, catalog: deps.catalog, ...(filter ? { filter } : {}) },
    lastEventId,
    outgoing,
    streamCallerOf(incoming?.socket, requestPrincipal(c)),
  );
  // Past the stream budget (spec/security.md, "Streams and sessions"): no stream, come back later.
  if (isRefusal(body))
    return problemResponse(c, "busy", body.detail, [], { "retry-after": String(body.retryAfterSeconds) });
  return new Response(body, { status: 200, headers: streamHeaders });
}

/** The headers of every SSE answer: no cache or proxy may hold its events back. */
export const streamHeaders = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** The request's Last-Event-ID as a change log position, or the 400 for one that is not. */
export function resumePosition(c: Context): number | undefined | Response {
  const lastEventId = c.req.header("last-event-id");
  if (lastEventId === undefined) return undefined;
  if (!seqText.test(lastEventId.trim()))
    return problemResponse(
      c,
      "invalid_input",
      `Last-Event-ID must be the id of an event this stream sent (a non-negative integer), not '${lastEventId.slice(0, 40)}'.`,
      [{ path: "/Last-Event-ID", message: "must be a non-negative integer" }],
    );
  return Number(lastEventId.trim());
}

function failure(c: Context, f: RestFailure): Response {
  // No `Connection: close` on a 413: closing a socket with unread bytes resets it, and a client
  // still sending its body would lose the answer. @hono/node-server drains the rest of the body
  // after the response (bounded in bytes and time) and then closes if the client goes on.
  return problemResponse(c, f.kind, f.detail, f.errors ?? [], f.headers ?? {}, f.truncated ?? 0);
}
