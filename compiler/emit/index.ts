// emitBuild: the whole build folder as files, from the catalog alone (model/build-contract.ts lists
// the layout), every operation read off one operations table (operation-table.ts). Pure: no
// file system; compiler/build.ts compiles the `.ts` files and writes.
import type { Catalog } from "../catalog.js";
import type { EmittedFile } from "./emitted-file.js";
import { SchemaBuilder, emitSchemas } from "./json-schema.js";
import { emitManifest, jsonText } from "./manifest.js";
import { emitOpenApi } from "./openapi.js";
import { emitTypesText } from "./types.js";
import { emitValidators } from "./validators.js";
import { emitOperations } from "./operations.js";
import { generatedHeader } from "./header.js";
import { operationTable } from "./operation-table.js";
import { emitAppContract } from "./app-contract.js";

export type { EmittedFile } from "./emitted-file.js";

export function emitBuild(catalog: Catalog): EmittedFile[] {
  const b = new SchemaBuilder(catalog);
  const header = generatedHeader(catalog);
  const table = operationTable(catalog, b);
  const schemas = emitSchemas(catalog, b, table);
  const rowNames = Object.fromEntries(catalog.types.map((t) => [t.snake, t.name]));
  const files: EmittedFile[] = [
    { path: "app.json", text: jsonText(emitAppContract(catalog, table)) },
    { path: "manifest.json", text: jsonText(emitManifest(catalog, b, table)) },
    { path: "schemas.json", text: jsonText(schemas) },
    { path: "openapi.json", text: jsonText(emitOpenApi(catalog, b, table)) },
    { path: "types.d.ts", text: emitTypesText(schemas, rowNames, header) },
    ...emitValidators(schemas, header),
    emitOperations(catalog, table),
    operationsDeclaration(header),
  ];
  return files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/**
 * operations.d.ts, written here rather than derived from operations.ts: the module's public face
 * is the fixed contract of model/build-contract.ts, and declaration emit over the generated handlers
 * was the slowest step of a large build (bench/compile/build.mjs).
 */
function operationsDeclaration(header: string): EmittedFile {
  return {
    path: "operations.d.ts",
    text: [
      header,
      "",
      'import type { Operation, OperationRuntime } from "wo/model/build-contract";',
      "",
      "/** One handler per operation, keyed by operation (tool) name. */",
      "export declare function createOperations(rt: OperationRuntime): Record<string, Operation>;",
      "",
    ].join("\n"),
  };
}
