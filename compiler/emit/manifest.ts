// manifest.json exactly as DESIGN.md specifies: { tools, resourceTemplates, routes }, each
// sorted (tools and templates by name, routes by path then method). The MCP and REST
// adapters serve from it; nothing is registered by hand.
import type { Catalog } from "../catalog.js";
import type { Manifest } from "../../model/build-contract.js";
import { SchemaBuilder } from "./json-schema.js";
import { emitResourceTemplates, emitTools } from "./tools.js";
import { emitRoutes } from "./routes.js";

export function emitManifest(catalog: Catalog, b = new SchemaBuilder(catalog)): Manifest {
  return {
    tools: emitTools(catalog, b),
    resourceTemplates: emitResourceTemplates(catalog),
    routes: emitRoutes(catalog),
  };
}

/** Two-space JSON with a final newline: readable, diffable, byte-stable. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
