// The HTTP edge: the one front door of a runtime instance (runtime/instance.ts). Every request,
// whatever route it is for — REST, /mcp, live streams, the explorer's API, the docs — takes the
// same three steps in this order, before any body is read:
//
//   guard     Host and Origin (runtime/http-guard.ts): a refusal is 403, worded by its route
//   identity  the Authorization header resolves once to a principal (runtime/identity/identity.ts);
//             a refused or missing credential is 401 with the challenge
//   dispatch  /mcp to the MCP endpoint on node:http; a plain GET by id answered by the serving
//             binding on node's own request and response (rest/plain-get.ts), as its hono
//             routes would; everything else to those hono routes; the principal in every
//             operation's CallContext
//
// Exempt: /healthz (neither step: a load balancer asks it), the management endpoint /_wo/ (its
// own key, the same guard), and from identity only: CORS preflights, the explorer's pages and
// static files (isTokenFree: they hold no data), and the OAuth protected-resource metadata.
// Anonymous callers get 401 wherever a principal is needed, except where the app's policies grant
// `anyone` something: then /mcp and the operations' REST routes take them, and the policies
// decide (Binding.admitsAnonymous; spec/security.md, "Principals").
//
// `node` is what `wo run` listens with; `fetch` is the same edge for in-process callers (tests).

import { getRequestListener } from "@hono/node-server";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ownerPrincipal, type Principal } from "../model/principal.js";
import type { Binding } from "./binding.js";
import { isTokenFree } from "./explorer/routes.js";
import { addCorsHeaders, isPreflight } from "./http-guard.js";
import { CredentialRefused } from "./identity/contract.js";
import { anonymousRefusal, CredentialUncheckable } from "./identity/identity.js";
import { stampChallenge, stampPrincipal } from "./identity/request-principal.js";
import type { RuntimeInstance } from "./instance.js";
import { serveMcpFetch } from "./mcp/fetch.js";
import { serveMcpNode } from "./mcp/node.js";
import { isManagementPath, serveManagement } from "./ops/management.js";
import { logWhenFinished, type RequestLogger } from "./request-log.js";
import { problem, type ProblemKind } from "./rest/problem.js";
import { requestObserver, routeTag, stampRoute } from "./telemetry/observe.js";

export interface EdgeOptions {
  /** The request log; none (`--quiet`): nothing per request is spent on logging. */
  requestLog?: RequestLogger;
  /** The listen address, for the URL @hono/node-server gives a request. */
  hostname?: string;
  /** The server's own origin once it listens (`http://127.0.0.1:8080`): what OAuth metadata names. */
  publicOrigin?: () => string;
}

export interface Edge {
  /** Every request of `wo run`. */
  node: RequestListener;
  /** The same edge on the fetch API (in-process callers); `/_wo/` is served on node only. */
  fetch(req: Request, incoming?: IncomingMessage): Promise<Response>;
  /** Requests received so far (`wo status`). */
  readonly requests: number;
}

/** What the edge decided for a request that passed the guard. */
type Decision =
  | { kind: "dispatch"; principal: Principal | undefined }
  | { kind: "metadata"; body: string }
  | { kind: "refuse"; status: 401 | 403 | 503; problem: ProblemKind; detail: string; refused?: CredentialRefused };

const DISPATCH_UNIDENTIFIED: Decision = Object.freeze({ kind: "dispatch", principal: undefined });
const DISPATCH_OWNER: Decision = Object.freeze({ kind: "dispatch", principal: ownerPrincipal });

const metadataPaths = new Set(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]);

export function createEdge(instance: RuntimeInstance, options: EdgeOptions = {}): Edge {
  const { guard, identity } = instance;
  // The origin the resource metadata and the challenge name: the server's own address when it
  // is known (so they agree with the JWT audience, which defaults to it), else the Host's.
  const originOf = (host: string | undefined) => options.publicOrigin?.() || publicOrigin(host);
  const log = options.requestLog;
  let requests = 0;
  const telemetry = instance.telemetry;
  // The routes the edge itself names, each one's figures found once.
  const tags = telemetry && {
    mcp: routeTag(telemetry, "/mcp"),
    management: routeTag(telemetry, "/_wo"),
    healthz: routeTag(telemetry, "/healthz"),
  };
  // The hono adapter of the binding serving now; a swap makes a new one on its first request.
  let adapted: { binding: Binding; listener: RequestListener } | undefined;
  const restListener = (binding: Binding): RequestListener => {
    if (adapted?.binding !== binding)
      adapted = {
        binding,
        listener: getRequestListener(binding.routes.fetch, {
          ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
        }),
      };
    return adapted.listener;
  };

  const toDecision = (
    resolved: Principal | CredentialRefused | CredentialUncheckable,
    path: string,
    mcp: boolean,
  ): Decision => {
    if (resolved instanceof CredentialRefused)
      return { kind: "refuse", status: 401, problem: "unauthorized", detail: resolved.reason, refused: resolved };
    if (resolved instanceof CredentialUncheckable)
      return { kind: "refuse", status: 503, problem: "unavailable", detail: resolved.reason };
    if (resolved.via === "anonymous")
      return instance.binding.admitsAnonymous(path, mcp)
        ? { kind: "dispatch", principal: resolved }
        : { kind: "refuse", status: 401, problem: "unauthorized", detail: anonymousRefusal.reason };
    return resolved === ownerPrincipal ? DISPATCH_OWNER : { kind: "dispatch", principal: resolved };
  };

  /** Identity and the routes that need none, for a request the guard admitted. */
  const decide = (
    method: string | undefined,
    path: string,
    mcp: boolean,
    origin: string | undefined,
    host: string | undefined,
    requestMethod: string | undefined,
    authorization: string | undefined,
  ): Decision | Promise<Decision> => {
    const resource = identity.protectedResource;
    if (resource && metadataPaths.has(path))
      return { kind: "metadata", body: JSON.stringify(resource.metadata(originOf(host))) };
    if (isPreflight(method, origin, requestMethod) || (!mcp && isTokenFree(path))) return DISPATCH_UNIDENTIFIED;
    const resolved = identity.resolve(authorization);
    return resolved instanceof Promise
      ? resolved.then((r) => toDecision(r, path, mcp))
      : toDecision(resolved, path, mcp);
  };

  /** The headers of an answer the edge gives itself (401, 403, 503, metadata). */
  const answerHeaders = (decision: Decision, origin: string | undefined, host: string | undefined): Headers => {
    const headers = new Headers({
      "content-type": decision.kind === "metadata" ? "application/json" : "application/problem+json",
    });
    if (decision.kind === "refuse" && decision.status === 401)
      headers.set("www-authenticate", identity.challenge(originOf(host), decision.refused));
    if (decision.kind === "refuse" && decision.status === 503) headers.set("retry-after", "1");
    if (origin && !(decision.kind === "refuse" && decision.status === 403)) addCorsHeaders(headers, origin);
    return headers;
  };
  const answerBody = (decision: Decision): string =>
    decision.kind === "metadata"
      ? decision.body
      : decision.kind === "refuse"
        ? JSON.stringify(problem(decision.problem, decision.detail))
        : "";
  const forbidden = (reason: string): Decision => ({
    kind: "refuse",
    status: 403,
    problem: "forbidden",
    detail: `${reason}.`,
  });

  const serve: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const url = req.url ?? "/";
    const mcp = isMcpPath(url);
    if (tags && mcp) stampRoute(req, tags.mcp);
    // /mcp logs itself, once it knows the JSON-RPC method.
    if (log && !mcp) logWhenFinished(log, req, res);
    const binding = instance.binding;
    if (instance.management && isManagementPath(url)) {
      if (tags) stampRoute(req, tags.management);
      return serveManagement(instance.management, req, res);
    }
    const path = pathOf(url);
    if (path === "/healthz") {
      if (tags) stampRoute(req, tags.healthz);
      return restListener(binding)(req, res);
    }
    const h = req.headers;
    const refused = guard.refusal(h.origin, h.host);
    if (refused !== undefined) {
      // /mcp words refusals as JSON-RPC errors: its handler refuses the same request itself.
      if (mcp) return serveMcpNode(instance.mcp, req, res, log);
      // Not a host name at all: a bad request, as the HTTP layer answers one it cannot route.
      if (h.host !== undefined && !isRoutableHost(h.host)) return badRequest(res);
      return answerNode(res, forbidden(refused), h.origin, h.host);
    }
    const proceed = (decision: Decision) => {
      if (decision.kind !== "dispatch") {
        if (log && mcp) logWhenFinished(log, req, res);
        return answerNode(res, decision, h.origin, h.host);
      }
      if (decision.principal) stampPrincipal(req, decision.principal);
      if (decision.principal?.via === "anonymous") stampChallenge(req, identity.challenge(originOf(h.host)));
      if (mcp) serveMcpNode(instance.mcp, req, res, log, decision.principal);
      else if (!binding.answerGet(req, res)) restListener(binding)(req, res);
    };
    const method = h["access-control-request-method"];
    const decision = decide(req.method, path, mcp, h.origin, h.host, method, h.authorization);
    if (decision instanceof Promise) decision.then(proceed, () => res.destroy());
    else proceed(decision);
  };
  // Telemetry observes the whole edge (its refusals are requests too); without it, nothing does.
  const observe = telemetry && requestObserver(telemetry);
  const node: RequestListener = observe
    ? (req, res) => {
        observe(req, res);
        serve(req, res);
      }
    : serve;

  const answerNode = (res: ServerResponse, decision: Decision, origin?: string, host?: string) => {
    const body = answerBody(decision);
    const headers = answerHeaders(decision, origin, host);
    headers.set("content-length", String(Buffer.byteLength(body)));
    res.writeHead(decision.kind === "refuse" ? decision.status : 200, Object.fromEntries(headers));
    res.end(body);
  };

  const badRequest = (res: ServerResponse) => {
    const body = "Bad Request: the Host header is not a host name";
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8", "content-length": String(body.length) });
    res.end(body);
  };

  const fetch = async (req: Request, incoming?: IncomingMessage): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname;
    const mcp = path === "/mcp" || path === "/mcp/";
    const binding = instance.binding;
    const env = incoming ? { incoming } : {};
    if (path === "/healthz") return binding.routes.fetch(req, env);
    const header = (name: string) => req.headers.get(name) ?? undefined;
    const origin = header("origin");
    // A request made in process (no socket) has no Host header: its URL names the host.
    const host = header("host") ?? url.host;
    const refused = guard.refusal(origin, host);
    if (refused !== undefined) {
      if (mcp) return serveMcpFetch(instance.mcp, req, incoming);
      return answerFetch(forbidden(refused), origin, host);
    }
    const decision = await decide(
      req.method,
      path,
      mcp,
      origin,
      host,
      header("access-control-request-method"),
      header("authorization"),
    );
    if (decision.kind !== "dispatch") return answerFetch(decision, origin, host);
    if (mcp) return serveMcpFetch(instance.mcp, req, incoming, decision.principal);
    return binding.routes.fetch(req, decision.principal ? { ...env, principal: decision.principal } : env);
  };

  const answerFetch = (decision: Decision, origin?: string, host?: string) =>
    new Response(answerBody(decision), {
      status: decision.kind === "refuse" ? decision.status : 200,
      headers: answerHeaders(decision, origin, host),
    });

  return {
    node,
    fetch,
    get requests() {
      return requests;
    },
  };
}

/** /mcp, as hono's `app.route("/mcp", …)` with strict: false matches it: a trailing slash and a query allowed. */
export function isMcpPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith("/mcp")) return false;
  const rest = url.slice(4);
  return rest === "" || rest === "/" || rest.startsWith("?") || rest.startsWith("/?");
}

/** The path of a request target, without its query and trailing slashes. */
function pathOf(url: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  return path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") || "/" : path;
}

/**
 * Whether a Host value can name a URL, by the rule of @hono/node-server (which answers 400 to
 * any other before a route runs): a plain `name[:port]`, or one the URL parser keeps as written.
 */
function isRoutableHost(host: string): boolean {
  if (/^[a-z0-9._-]+(?::\d{1,5})?$/.test(host)) return true;
  try {
    const name = new URL(`http://${host}/`).hostname;
    return name.length === host.length || name === host.replace(/:\d+$/, "").toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The origin a client reached this server by, for the resource metadata and the challenge: its
 * Host header when that is a plain authority (off loopback the guard does not check it, and it
 * is echoed into a header), else loopback.
 */
function publicOrigin(host: string | undefined): string {
  return `http://${host !== undefined && /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(host) ? host : "localhost"}`;
}
