// app.json (model/build-contract.ts `AppJson`) and operation-faces.json (`OperationFaces`): what
// the runtime reads of the build besides the compiled code. The model loses what only the
// compiler needs — method, fn, `main`, test and trigger bodies, which operations.js already holds
// compiled — and gains the operations table, the routes the runtime answers itself (subscribe,
// me) and the resource templates, so the runtime derives no name and no route itself. Each
// operation's face (description and schemas, most of the table's text) goes to its own file, which
// the runtime parses only when something shows it (runtime/load-build.ts).
import type { Catalog, CatalogMethod } from "../catalog.js";
import type { CatalogMethod as ModelMethod } from "../../model/app.js";
import type { AppJson, OperationEntry, OperationFaces, StoredOperationEntry } from "../../model/build-contract.js";
import { emitResourceTemplates } from "./tools.js";
import { runtimeRoutes } from "./operation-table.js";

export function emitAppContract(catalog: Catalog, table: readonly OperationEntry[]): AppJson {
  return {
    app: catalog.app,
    config: catalog.config,
    types: catalog.types.map(({ triggers, rowExprs, ...t }) => ({
      ...t,
      methods: t.methods.map(signature),
      ...(triggers ? { triggers: triggers.map((trigger) => ({ ...trigger, body: undefined })) } : {}),
      ...(rowExprs ? { rowExprs: rowExprs.map((r) => ({ ...r, body: undefined })) } : {}),
    })),
    operations: table.map(withoutFace),
    runtimeRoutes: runtimeRoutes(catalog),
    resourceTemplates: emitResourceTemplates(catalog),
    // Top-level skip-row-filters blocks: every read path applies them (runtime/operations/read-policy.ts).
    ...(catalog.bypassPolicies?.length ? { bypassPolicies: catalog.bypassPolicies } : {}),
    ...(catalog.startup ? { startup: catalog.startup } : {}),
    ...(catalog.main ? { main: signature(catalog.main) } : {}),
    ...(catalog.tests
      ? {
          tests: catalog.tests.map(({ name, source, skipped }) => ({
            name,
            source,
            ...(skipped !== undefined ? { skipped } : {}),
          })),
        }
      : {}),
  };
}

/** operation-faces.json: each operation's face by name, in the table's order (sorted by name). */
export function emitOperationFaces(table: readonly OperationEntry[]): OperationFaces {
  return Object.fromEntries(
    table.map(({ name, description, inputSchema, outputSchema }) => [name, { description, inputSchema, outputSchema }]),
  );
}

function withoutFace({ description, inputSchema, outputSchema, ...stored }: OperationEntry): StoredOperationEntry {
  return stored;
}

/** The method without its body: `body: undefined` is left out of the JSON. */
function signature(method: CatalogMethod): ModelMethod<undefined> {
  return { ...method, body: undefined };
}
