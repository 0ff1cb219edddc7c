// manifest.json as spec/schemas.md specifies: { tools, resourceTemplates, routes }, each
// sorted (tools and templates by name, routes by path then method), read off the operations
// table. A user-visible contract for clients; the runtime serves from app.json instead.
import type { Catalog } from "../catalog.js";
import type { Manifest, OperationEntry } from "../../model/build-contract.js";
import { SchemaBuilder } from "./json-schema.js";
import { operationTable, runtimeRoutes } from "./operation-table.js";
import { emitResourceTemplates, emitTools } from "./tools.js";
import { emitRoutes } from "./routes.js";

export function emitManifest(
  catalog: Catalog,
  b = new SchemaBuilder(catalog),
  table: readonly OperationEntry[] = operationTable(catalog, b),
): Manifest {
  return {
    tools: emitTools(table),
    resourceTemplates: emitResourceTemplates(catalog),
    routes: emitRoutes(table, runtimeRoutes(catalog)),
  };
}

/** Two-space JSON with a final newline: readable, diffable, byte-stable. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
