// The manifest's REST route table (spec/rest.md, "Routes"), read off the operations table
// (operation-table.ts) and the routes the runtime answers itself. Paths use `:id` as hono does;
// `openapi.ts` rewrites them to `{id}`. `subscribe` (the live stream) and `me` (501) are routes
// the runtime answers itself, not operations; their `op` still follows toolName so every route
// names something. Sorted by path, then method — note that `P/:id` sorts before `P/live` and
// `P/me`: a router must prefer the static segments.
import type { Manifest, OperationEntry, RuntimeRoute } from "../../model/build-contract.js";
import { toolName } from "../../model/naming.js";
import { compareText } from "./json-schema.js";

export type Route = Manifest["routes"][number];

export function emitRoutes(table: readonly OperationEntry[], runtimeRoutes: readonly RuntimeRoute[]): Route[] {
  const routes: Route[] = [
    ...table.flatMap((e) => e.routes.map((r) => ({ method: r.method, path: r.path, op: e.name }))),
    ...runtimeRoutes.map((r) => ({ method: r.method, path: r.path, op: toolName(r.type, r.op) })),
  ];
  return routes.sort((a, b) => compareText(a.path, b.path) || compareText(a.method, b.method));
}
