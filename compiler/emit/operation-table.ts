// The operations table (model/build-contract.ts `OperationEntry`): one row per operation of the app —
// every exposed CRUD op and method, every relation op — with its tool name, kind, REST routes,
// schemas, title, description and annotations. This is the one place the compiler turns a
// type and an op into a name; app.json carries the table to the runtime, and the manifest's
// tools and routes, the validators and the OpenAPI document are all read off it.
import { isRestOnlyOp, type Catalog } from "../catalog.js";
import type { OperationEntry, OperationKind, RuntimeRoute } from "../../model/build-contract.js";
import { toolName } from "../../model/naming.js";
import { restRoute } from "../../model/route-table.js";
import { allRelationOps, relationOps, relationRoute, type RelationAccess } from "../../model/relations.js";
import { SchemaBuilder, compareText, operationSchemas, type JsonSchema } from "./json-schema.js";
import { exposedOps, isCrudOp, methodOf } from "./exposed-ops.js";
import {
  builtinAnnotations,
  methodAnnotations,
  methodOutput,
  operationDescription,
  relationAnnotations,
  relationDescription,
  relationTitle,
  toolTitle,
} from "./tools.js";

const relationKinds: Record<RelationAccess, OperationKind> = { read: "relation", add: "link", remove: "unlink" };

/** Every operation of the app, sorted by name. */
export function operationTable(catalog: Catalog, b = new SchemaBuilder(catalog)): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const type of catalog.types) {
    for (const op of exposedOps(type)) {
      const io = operationSchemas(b, type, op);
      if (!io) continue;
      const method = methodOf(type, op);
      entries.push({
        name: toolName(type.name, op),
        type: type.name,
        kind: isCrudOp(op) || op === "me" ? op : "method",
        op,
        mcp: type.mcp.includes(op),
        routes: type.rest
          .filter((block) => block.ops.includes(op))
          .map((block) => ({ ...restRoute(block.path, op), base: block.path })),
        title: toolTitle(type, op),
        description: operationDescription(catalog, type, op, method, "mcp"),
        inputSchema: io.input,
        inputNames: inputNames(io.input),
        outputSchema: method ? methodOutput(io.output) : io.output,
        annotations: method
          ? methodAnnotations(catalog, method)
          : builtinAnnotations[op as keyof typeof builtinAnnotations],
      });
    }
    const onMcp = relationOps(catalog, type, type.mcp);
    for (const r of allRelationOps(catalog, type)) {
      const io = b.relation(type, r);
      const targetParam =
        r.access === "read" || r.relation.path.kind !== "link" ? undefined : r.relation.path.targetColumn;
      entries.push({
        name: toolName(type.name, r.op),
        type: type.name,
        kind: relationKinds[r.access],
        op: r.op,
        mcp: onMcp.some((m) => m.op === r.op),
        routes: type.rest
          .filter((block) => relationOps(catalog, type, block.ops).some((x) => x.op === r.op))
          .map((block) => ({ ...relationRoute(block.path, r), base: block.path })),
        title: relationTitle(type, r),
        description: relationDescription(type, r),
        inputSchema: io.input,
        inputNames: inputNames(io.input),
        outputSchema: io.output,
        annotations: relationAnnotations[r.access],
        relation: { field: r.relation.field.name, ...(targetParam !== undefined ? { targetParam } : {}) },
      });
    }
  }
  return entries.sort((x, y) => compareText(x.name, y.name));
}

/** The top-level property names an input schema accepts (every input schema is an object's). */
function inputNames(input: JsonSchema): string[] {
  return Object.keys((input as { properties?: Record<string, unknown> }).properties ?? {});
}

/** `subscribe` entries of `service rest` blocks: answered by the runtime (the live stream), never operations. */
export function runtimeRoutes(catalog: Catalog): RuntimeRoute[] {
  const out: RuntimeRoute[] = [];
  for (const type of catalog.types) {
    for (const block of type.rest) {
      for (const op of block.ops) {
        if (isRestOnlyOp(op)) out.push({ ...restRoute(block.path, op), base: block.path, op, type: type.name });
      }
    }
  }
  return out;
}
