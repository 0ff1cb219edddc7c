// Placeholder until the operations emitter lands (owner: runtime/REST work). Emits
// `operations.ts` exporting `createOperations(rt)` per runtime/build.ts.
import type { Catalog } from "../catalog.js";
import type { EmittedFile } from "./emitted-file.js";

export function emitOperations(_catalog: Catalog): EmittedFile {
  return { path: "operations.ts", text: "export function createOperations(_rt: unknown) {\n  return {};\n}\n" };
}
