// app.json (model/build-contract.ts `AppContract`): what the runtime reads of the build besides the
// compiled code. The model loses what only the compiler needs — method, fn, `main`, test and
// trigger bodies, which operations.js already holds compiled — and gains the operations table, the
// routes the runtime answers itself (subscribe, me) and the resource templates, so the
// runtime derives no name and no route itself.
import type { Catalog, CatalogMethod } from "../catalog.js";
import type { CatalogMethod as ModelMethod } from "../../model/app.js";
import type { AppContract, OperationEntry } from "../../model/build-contract.js";
import { emitResourceTemplates } from "./tools.js";
import { runtimeRoutes } from "./operation-table.js";

export function emitAppContract(catalog: Catalog, table: readonly OperationEntry[]): AppContract {
  return {
    app: catalog.app,
    config: catalog.config,
    types: catalog.types.map(({ triggers, rowExprs, ...t }) => ({
      ...t,
      methods: t.methods.map(signature),
      ...(triggers ? { triggers: triggers.map((trigger) => ({ ...trigger, body: undefined })) } : {}),
      ...(rowExprs ? { rowExprs: rowExprs.map((r) => ({ ...r, body: undefined })) } : {}),
    })),
    operations: [...table],
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

/** The method without its body: `body: undefined` is left out of the JSON. */
function signature(method: CatalogMethod): ModelMethod<undefined> {
  return { ...method, body: undefined };
}
