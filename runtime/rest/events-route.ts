// `GET /api/_events` (spec/rest.md, "Application events"; spec/live.md): the app-wide
// server-sent-events stream of the events the program's triggers emit, with an optional
// `?name=` filter (repeatable), resumable with Last-Event-ID like a type's `P/live`. It runs on
// the same machinery as those streams (./live.ts: caps, budget, replay, reset), and the same
// edge (Host/Origin, identity) admits it; a caller hears only of events whose emitting row it
// may read (../app-events.ts).

import type { Context } from "hono";
import { emittedEvents } from "../../model/app.js";
import { isOwner } from "../../model/principal.js";
import type { Row } from "../../model/store.js";
import { anonymousRefusal } from "../identity/identity.js";
import { anonymousReadsNothing, readFilter } from "../operations/read-policy.js";
import { eventAudience } from "../app-events.js";
import { nodeBindings, requestPrincipal } from "../node-bindings.js";
import { isRefusal, streamCallerOf } from "../stream-budget.js";
import { problemResponse } from "./problem.js";
import { resumePosition, streamHeaders, type RestDeps } from "./routes.js";

/** What a build emits, found once per build (asked on every stream open). */
const emittersOf = new WeakMap<RestDeps["catalog"], { known: string[]; emitting: RestDeps["catalog"]["types"] }>();
function emitters(catalog: RestDeps["catalog"]) {
  let found = emittersOf.get(catalog);
  if (found === undefined) {
    const emitting = catalog.types.filter((t) => t.triggers?.some((tr) => (tr.emits?.length ?? 0) > 0));
    emittersOf.set(catalog, (found = { known: emittedEvents(catalog), emitting }));
  }
  return found;
}

export function eventsStream(c: Context, deps: RestDeps): Response {
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  if (method !== "GET")
    return problemResponse(c, "method_not_allowed", `${c.req.method} is not allowed here; allowed: GET.`, [], {
      allow: "GET",
    });
  const url = new URL(c.req.url);
  const other = [...url.searchParams.keys()].find((k) => k !== "name");
  if (other !== undefined)
    return problemResponse(
      c,
      "invalid_input",
      `'${other.slice(0, 40)}' is not a parameter of the event stream; it takes name=<event> (repeatable).`,
      [{ path: `/${other.slice(0, 40)}`, message: "is not a parameter of the event stream" }],
    );
  const { known, emitting } = emitters(deps.catalog);
  const names = url.searchParams.getAll("name");
  const unknown = names.find((n) => !known.includes(n));
  if (unknown !== undefined)
    return problemResponse(
      c,
      "invalid_input",
      `No trigger emits an event named '${unknown.slice(0, 64)}'; the app emits: ${known.join(", ")}.`,
      [{ path: "/name", message: `must be one of ${known.join(", ")}` }],
    );
  const resumeAfter = resumePosition(c);
  if (resumeAfter instanceof Response) return resumeAfter;
  if (c.req.method === "HEAD") return new Response(null, { status: 200, headers: streamHeaders });
  const principal = requestPrincipal(c);
  // An anonymous caller no policy line lets read any emitting type is refused, as on P/live.
  if (emitting.every((t) => anonymousReadsNothing(t, principal, readFilter(t, principal, deps.catalog))))
    return problemResponse(c, "unauthorized", anonymousRefusal.reason);
  const wanted = new Set(names);
  const body = deps.live.openEvents(
    {
      ...(wanted.size > 0 ? { passes: (event: Row) => wanted.has(event.name as string) } : {}),
      ...(isOwner(principal) ? {} : { audience: eventAudience(deps.catalog, deps.store, principal) }),
    },
    resumeAfter,
    nodeBindings(c).outgoing,
    streamCallerOf(nodeBindings(c).incoming?.socket, principal),
  );
  // Past the stream budget (spec/security.md, "Streams and sessions"): no stream, come back later.
  if (isRefusal(body))
    return problemResponse(c, "busy", body.detail, [], { "retry-after": String(body.retryAfterSeconds) });
  return new Response(body, { status: 200, headers: streamHeaders });
}
