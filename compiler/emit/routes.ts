// The REST route table, from each type's `service rest` blocks (DESIGN.md "Naming and
// mapping"). Paths use `:id` as hono does; `openapi.ts` rewrites them to `{id}`. `subscribe`
// and `me` are routes (answered 501 by the runtime) but not operations; their `op` still
// follows toolName so every route names something. Sorted by path, then method — note that
// `P/:id` sorts before `P/live` and `P/me`: a router must prefer the static segments.
import type { Catalog, CatalogType } from "../catalog.js";
import type { Manifest } from "../../runtime/build.js";
import { toolName } from "../naming.js";
import { compareText } from "./json-schema.js";

export type Route = Manifest["routes"][number];

export function emitRoutes(catalog: Catalog): Route[] {
  const routes: Route[] = [];
  for (const type of catalog.types) {
    for (const block of type.rest) {
      for (const op of block.ops) routes.push(routeOf(type, block.path, op));
    }
  }
  return routes.sort((a, b) => compareText(a.path, b.path) || compareText(a.method, b.method));
}

export function routeOf(type: CatalogType, path: string, op: string): Route {
  const name = toolName(type.name, op);
  switch (op) {
    case "list":
      return { method: "GET", path, op: name };
    case "get":
      return { method: "GET", path: `${path}/:id`, op: name };
    case "create":
      return { method: "POST", path, op: name };
    case "update":
      return { method: "PATCH", path: `${path}/:id`, op: name };
    case "delete":
      return { method: "DELETE", path: `${path}/:id`, op: name };
    case "subscribe":
      return { method: "GET", path: `${path}/live`, op: name };
    case "me":
      return { method: "GET", path: `${path}/me`, op: name };
    default:
      return { method: "POST", path: `${path}/:id/${op}`, op: name };
  }
}
