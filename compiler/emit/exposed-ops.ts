// Which operations a type has in the build: the union of its REST expose lists and its MCP
// exposure (catalog `rest` and `mcp`), first-mention order. Operation handlers, input schemas
// and validators exist for exactly these; `subscribe` is a route answered by the runtime (the
// live stream), never an operation, so it is left out here. `me` is an operation: the
// caller's own row (`GET P/me`, tool `t_me`).
import { crudOps, isRestOnlyOp, type CatalogMethod, type CatalogType, type CrudOp } from "../catalog.js";

export function isCrudOp(op: string): op is CrudOp {
  return (crudOps as readonly string[]).includes(op);
}

export function exposedOps(type: CatalogType): string[] {
  const ops: string[] = [];
  const add = (op: string) => {
    if (!isRestOnlyOp(op) && !ops.includes(op)) ops.push(op);
  };
  for (const block of type.rest) block.ops.forEach(add);
  type.mcp.forEach(add);
  return ops;
}

/** The method an exposed op names, if it is not a CRUD op or `me` (the checker guarantees it exists). */
export function methodOf(type: CatalogType, op: string): CatalogMethod | undefined {
  return isCrudOp(op) || op === "me" ? undefined : type.methods.find((m) => m.name === op);
}
