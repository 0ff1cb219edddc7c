// The human side of a running app (spec/explorer.md): the web explorer at `GET /` for clients
// that prefer HTML (everyone else gets the JSON summary, as before), its model at
// `GET /explorer/app.json`, the build's OpenAPI document at `GET /openapi.json` and Swagger UI
// at `GET /docs`, plus their static files. The app's Host/Origin guard and token middleware
// (runtime/app.ts) run before these routes; `isTokenFree` tells the latter which paths hold no
// data. The pages get every piece of data through endpoints that need the token.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Hono, type Context } from "hono";
import { manifestTool } from "../../model/build-contract.js";
import type { LoadedBuild } from "../load-build.js";
import { fieldSummaries } from "../field-summary.js";
import { problemResponse } from "../rest/problem.js";
import { restEndpoints } from "../rest/routes.js";
import { assetAt, assetPaths, page, type Asset } from "./assets.js";
import { docsDocument } from "./docs-text.js";
import { ownerPrincipal } from "../../model/principal.js";
import { requestPrincipal } from "../node-bindings.js";

// Scripts, styles and connections only from this server; no inline script, no framing.
const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** On every response of this module: pages, static files and JSON alike. */
const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
} as const;

const pagePaths = new Set(["/", "/docs"]);

/**
 * Whether `path` may be fetched without the bearer token: `/` (the JSON summary, as before, or
 * the explorer's HTML shell), `/docs` and the static files. None of them holds data.
 */
export function isTokenFree(path: string): boolean {
  // Only a path ending in `/` needs trimming; the API's paths rarely do, so most skip the regex.
  const p = path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path;
  return pagePaths.has(p) || assetPaths.has(p);
}

export interface ExplorerDeps {
  build: LoadedBuild;
  /** What `GET /` answers a client that does not prefer HTML: made on its first request. */
  info: () => object;
}

export function createExplorerRoutes(deps: ExplorerDeps): Hono {
  const app = new Hono({ strict: false });
  // Made on the first request, not at start: for a large app it is megabytes of JSON that
  // most runs never serve.
  let model: string | undefined;
  let info: object | undefined;
  let openapi: Promise<Buffer> | undefined;

  app.get("/", (c) => {
    c.header("vary", "Accept");
    if (prefersHtml(c.req.header("accept"))) return send(c, page("explorer"));
    info ??= deps.info();
    return c.json(info, 200, securityHeaders);
  });
  app.get("/docs", (c) => send(c, page("docs")));
  app.get("/explorer/app.json", (c) => {
    model ??= JSON.stringify(explorerModel(deps.build));
    // Who this request's token makes the caller (the edge resolved it): the pages say so. The
    // model is the same for everyone, so it is made once and the caller appended to it.
    const { name, user, role, via } = requestPrincipal(c) ?? ownerPrincipal;
    const body = `${model.slice(0, -1)},"caller":${JSON.stringify({ name, user, role, via })}}`;
    return c.body(body, 200, { "content-type": "application/json", "cache-control": "no-store", ...securityHeaders });
  });
  app.get("/openapi.json", async (c) => {
    // The file as the build wrote it, byte for byte; read once.
    openapi ??= readFile(join(deps.build.dir, "openapi.json"));
    try {
      return c.body(new Uint8Array(await openapi), 200, {
        "content-type": "application/json",
        "cache-control": "no-store",
        ...securityHeaders,
      });
    } catch {
      openapi = undefined;
      return problemResponse(c, "route_not_found", "The build has no openapi.json; run `wo build`.");
    }
  });
  // What Swagger UI loads: the same document with descriptions that render as text (docs-text.ts).
  let docsOpenapi: Promise<string> | undefined;
  app.get("/docs/openapi.json", async (c) => {
    openapi ??= readFile(join(deps.build.dir, "openapi.json"));
    docsOpenapi ??= openapi.then((bytes) => JSON.stringify(docsDocument(JSON.parse(bytes.toString("utf8")))));
    try {
      return c.body(await docsOpenapi, 200, {
        "content-type": "application/json",
        "cache-control": "no-store",
        ...securityHeaders,
      });
    } catch {
      openapi = docsOpenapi = undefined;
      return problemResponse(c, "route_not_found", "The build has no openapi.json; run `wo build`.");
    }
  });
  for (const path of assetPaths) app.get(path, (c) => send(c, assetAt(path)!));
  return app;
}

function send(c: Context, asset: Asset): Response {
  return c.body(asset.body, 200, {
    "content-type": asset.contentType,
    "cache-control": "no-cache",
    ...securityHeaders,
  });
}

/**
 * What the explorer page shows: the app, each type with its fields and REST paths, every REST
 * endpoint with its operation's input schema, and the MCP tools, all from app.json's operations
 * table.
 */
export function explorerModel(build: LoadedBuild) {
  const { catalog } = build;
  const byName = new Map(catalog.operations.map((o) => [o.name, o]));
  return {
    app: catalog.app,
    types: catalog.types.map((t) => ({
      name: t.name,
      snake: t.snake,
      ...(t.doc ? { description: t.doc } : {}),
      fields: fieldSummaries(t),
      rest: t.rest.map((b) => b.path),
    })),
    endpoints: restEndpoints(catalog).map((e) => {
      const operation = byName.get(e.op);
      return operation ? { ...e, inputSchema: operation.inputSchema } : e;
    }),
    mcp: { path: "/mcp", tools: catalog.operations.filter((o) => o.mcp).map(manifestTool) },
  };
}

/**
 * Whether `Accept` ranks text/html above application/json: each gets the q of the most specific
 * range that matches it (`text/html` over `text/*` over `*\/*`). A browser's navigation
 * (`text/html,…,*\/*;q=0.8`) does; `*\/*`, no header or `application/json` do not, so every
 * client that read JSON from `/` before still does.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = quality(accept, "text", "html");
  return html > 0 && html > quality(accept, "application", "json");
}

function quality(accept: string, type: string, subtype: string): number {
  let best = -1; // specificity of the matching range: 0 */*, 1 type/*, 2 type/subtype
  let q = 0;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const [t, s] = (range ?? "").split("/");
    const specificity = t === type && s === subtype ? 2 : t === type && s === "*" ? 1 : t === "*" && s === "*" ? 0 : -1;
    if (specificity <= best) continue;
    best = specificity;
    const qParam = params.find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q = Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
  }
  return q;
}
