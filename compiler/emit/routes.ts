// The REST route table, from each type's `service rest` blocks (DESIGN.md "Naming and
// mapping"). Paths use `:id` as hono does; `openapi.ts` rewrites them to `{id}`. `subscribe`
// (the live stream) and `me` (answered 501) are routes served by the runtime, not operations; their `op` still
// follows toolName so every route names something. Sorted by path, then method — note that
// `P/:id` sorts before `P/live` and `P/me`: a router must prefer the static segments.
import type { Catalog, CatalogType } from "../catalog.js";
import type { Manifest } from "../../model/build-contract.js";
import { toolName } from "../../model/naming.js";
import { compareText } from "./json-schema.js";
import { restRoute } from "../../model/route-table.js";
import { relationOps, relationRoute } from "../../model/relations.js";

export type Route = Manifest["routes"][number];

export function emitRoutes(catalog: Catalog): Route[] {
  const routes: Route[] = [];
  for (const type of catalog.types) {
    for (const block of type.rest) {
      for (const op of block.ops) routes.push(routeOf(type, block.path, op));
      for (const r of relationOps(catalog, type, block.ops)) {
        routes.push({ ...relationRoute(block.path, r), op: toolName(type.name, r.op) });
      }
    }
  }
  return routes.sort((a, b) => compareText(a.path, b.path) || compareText(a.method, b.method));
}

export function routeOf(type: CatalogType, path: string, op: string): Route {
  return { ...restRoute(path, op), op: toolName(type.name, op) };
}
