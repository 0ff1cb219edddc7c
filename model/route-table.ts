// Where each expose entry of a `service rest` block is served (spec/rest.md): its verb and its
// path under the service path. One table for the compiler (the manifest's routes, WO3104's
// message) and the REST runtime (the routes hono answers), so the route a build lists is the
// route the server serves. Service paths are checked to start with /api/ and to have no
// trailing '/' (WO3003), so a suffix is simply appended.

export const builtinRoutes = {
  list: { method: "GET", suffix: "" },
  create: { method: "POST", suffix: "" },
  get: { method: "GET", suffix: "/:id" },
  update: { method: "PATCH", suffix: "/:id" },
  delete: { method: "DELETE", suffix: "/:id" },
  // The live stream (spec/live.md).
  subscribe: { method: "GET", suffix: "/live" },
  // Routed, answered 501 (spec/rest.md): the language reference defines it, wo does not serve it yet.
  me: { method: "GET", suffix: "/me" },
} as const;

export type BuiltinRestOp = keyof typeof builtinRoutes;

export function isBuiltinRestOp(op: string): op is BuiltinRestOp {
  return Object.hasOwn(builtinRoutes, op);
}

/** Verb and path of expose entry `op` under `base`: a built-in op, or a class method (POST base/:id/op). */
export function restRoute(base: string, op: string): { method: string; path: string } {
  if (isBuiltinRestOp(op)) return { method: builtinRoutes[op].method, path: base + builtinRoutes[op].suffix };
  return { method: "POST", path: `${base}/:id/${op}` };
}
