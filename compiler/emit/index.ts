// emitBuild: the whole build folder as files, from the catalog alone (model/build-contract.ts lists
// the layout), every operation read off one operations table (operation-table.ts). Pure: no
// file system; compiler/build.ts compiles the `.ts` files and writes.
import type { Catalog } from "../catalog.js";
import { servesLiveStream } from "../../model/app.js";
import { liveFiltersValidator } from "../../model/list-filters.js";
import type { EmittedFile, WrittenFile } from "./emitted-file.js";
import { SchemaBuilder, emitSchemas } from "./json-schema.js";
import { compactJsonChunks, emitManifest, jsonChunks } from "./manifest.js";
import { emitOpenApi } from "./openapi.js";
import { emitTypesText } from "./types.js";
import { emitValidators } from "./validators.js";
import { emitOperations } from "./operations.js";
import { generatedHeader } from "./header.js";
import { operationTable } from "./operation-table.js";
import { emitAppContract, emitOperationFaces } from "./app-contract.js";

export type { EmittedFile, WrittenFile } from "./emitted-file.js";

export function emitBuild(catalog: Catalog): EmittedFile[] {
  return [...emitBuildFiles(catalog).files]
    .map((f) => ("text" in f ? f : { path: f.path, text: [...f.chunks].join("") }))
    .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The build folder about to be written: its files, and the counts a build reports. */
export interface EmittedBuild {
  /**
   * Every file, each rendered only when the iteration reaches it (iterate once), the JSON files
   * in pieces. A 1,000-type app's JSON is 150 MB of text; written as it comes, only the objects
   * one file is rendered from are held at a time, not the folder's text.
   */
  files: Iterable<WrittenFile>;
  summary: { tools: number; routes: number };
}

/** emitBuild, rendered lazily for a writer (compiler/build.ts), in no particular order. */
export function emitBuildFiles(catalog: Catalog): EmittedBuild {
  const b = new SchemaBuilder(catalog);
  const header = generatedHeader(catalog);
  const table = operationTable(catalog, b);
  const schemas = emitSchemas(catalog, b, table);
  const manifest = emitManifest(catalog, b, table);
  function* files(): Generator<WrittenFile> {
    // Each file's objects are made when the writer comes to it, its text as it writes.
    // Read by the runtime only (manifest.json is the readable contract): compact.
    yield { path: "app.json", chunks: compactJsonChunks(emitAppContract(catalog, table)) };
    yield { path: "operation-faces.json", chunks: compactJsonChunks(emitOperationFaces(table)) };
    yield { path: "manifest.json", chunks: jsonChunks(manifest) };
    yield { path: "schemas.json", chunks: jsonChunks(schemas) };
    yield { path: "openapi.json", chunks: jsonChunks(emitOpenApi(catalog, b, table)) };
    const rowNames = Object.fromEntries(catalog.types.map((t) => [t.snake, t.name]));
    yield { path: "types.d.ts", text: emitTypesText(schemas, rowNames, header) };
    yield* emitValidators(schemas, header, liveFilterSchemas(catalog, b));
    yield emitOperations(catalog, table);
    yield operationsDeclaration(header);
  }
  return { files: files(), summary: { tools: manifest.tools.length, routes: manifest.routes.length } };
}

/** Per type serving `GET P/live`, the schema of its filters (liveFiltersValidator). */
function liveFilterSchemas(catalog: Catalog, b: SchemaBuilder): Record<string, object> {
  return Object.fromEntries(
    catalog.types.filter(servesLiveStream).map((t) => [liveFiltersValidator(t.snake), b.liveFilters(t)]),
  );
}

/**
 * operations.d.ts, written here rather than derived from operations.ts: the module's public face
 * is the fixed contract of model/build-contract.ts, and declaration emit over the generated handlers
 * was the slowest step of a large build (bench/compile/run.mjs).
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
