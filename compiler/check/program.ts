// The checker's entry: parsed files + wo.toml → Catalog (model/app.ts).
//
// Order of passes (each reports into one bag and never throws for a user error):
//   1. warnings for inert top-level constructs          unexecuted.ts
//   2. the program-wide type table, duplicates           resolve.ts
//   3. per type: fields, methods, services, storage      fields.ts, methods-catalog.ts,
//                                                        services.ts, storage.ts
//   4. cross-type: relations, cycles, storage names,     resolve.ts, storage.ts, services.ts
//      REST paths, tool names; policies (their           policies.ts
//      conditions go through refs)
//   5. method bodies, trigger conditions and actions    methods.ts (method language), triggers.ts
// The catalog is returned only when no error was reported (anywhere, parse errors included).

import type { SourceFileAst } from "../ast.js";
import type { Catalog, CatalogType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { linkEndpointFields, snakeCase } from "../../model/naming.js";
import type { ConfigResult } from "./config.js";
import { locationOf, type CheckContext } from "./context.js";
import { buildTypeFields } from "./fields.js";
import { buildMethods } from "./methods-catalog.js";
import { checkFunctions, checkMain, checkStartupHooks, checkTests, type SkippedFunctions } from "./functions.js";
import { checkMethodBodies } from "./methods.js";
import { checkEmbeddingCycles, checkLinkEndpoints, checkRelations, declareTypes } from "./resolve.js";
import {
  buildServices,
  checkRelationNames,
  checkRestPathClashes,
  checkToolNames,
  warnUnexposedMethods,
  type TypeExposure,
} from "./services.js";
import { buildIndexes, checkStorageNames, tableNameOf } from "./storage.js";
import { buildPolicies } from "./policies.js";
import { skipUnexecutedMethods, warnTopLevel, warnTypeMembers } from "./unexecuted.js";
import { renamedFrom } from "./renamed-from.js";
import { addEdgeLinkTypes } from "./edges.js";
import { buildTriggers, checkTriggerBodies } from "./triggers.js";
import { checkRowExprs } from "./row-exprs.js";

export interface ProgramCheck {
  catalog: Catalog;
  /** Number of generated MCP tools (for the `wo check` summary). */
  toolCount: number;
}

/** Builds the catalog even when there are errors (callers drop it then); never throws. */
export function checkProgram(files: SourceFileAst[], config: ConfigResult, bag: DiagnosticBag): ProgramCheck {
  for (const file of files) warnTopLevel(file, bag);
  const ctx: CheckContext = { bag, types: declareTypes(files, bag) };

  const built: { type: CatalogType; exposure: TypeExposure }[] = [];
  /** Class methods that are not executed (`Type.m` → why), for WO5028 at their calls. */
  const skippedMethods: SkippedFunctions = new Map();
  for (const decl of ctx.types.values()) {
    warnTypeMembers(decl, bag);
    checkLinkEndpoints(decl, ctx);
    const fields = buildTypeFields(decl, ctx);
    const methods = buildMethods(decl, ctx);
    const exposure = buildServices(decl, methods, ctx);
    warnUnexposedMethods(decl, exposure, bag);
    const executed = skipUnexecutedMethods(decl, methods, exposure, skippedMethods, bag);
    const table = tableNameOf(decl, bag);
    const type: CatalogType = {
      name: decl.name.text,
      snake: snakeCase(decl.name.text),
      keyword: decl.keyword,
      table,
      fields,
      indexes: buildIndexes(decl, table, fields, bag),
      services: exposure.services,
      methods: executed,
      rest: exposure.rest,
      mcp: exposure.mcp,
      source: locationOf(decl.name.span),
    };
    if (decl.link)
      type.link = {
        from: decl.link.from.text,
        to: decl.link.to.text,
        ...linkEndpointFields(decl.link.from.text, decl.link.to.text),
      };
    if (decl.doc) type.doc = decl.doc;
    const triggers = buildTriggers(decl, bag);
    if (triggers.length > 0) type.triggers = triggers;
    for (const a of decl.annotations) {
      if (a.name.text !== "renamed_from") continue;
      const before = renamedFrom(a, "a type", `Old${decl.name.text}`, bag);
      if (before !== undefined && before !== type.name) type.renamedFrom = before;
    }
    built.push({ type, exposure });
  }

  const types = built.map((b) => b.type);
  for (const decl of ctx.types.values()) checkRelations(decl, ctx);
  checkEmbeddingCycles(types, ctx.types, bag);
  checkStorageNames(types, ctx.types, bag);
  // After the storage names: an edge table's `_wo_edge_` prefix no declared table may take.
  addEdgeLinkTypes(types);
  checkRestPathClashes(built, bag);
  checkRelationNames(types, ctx.types, bag);
  const toolCount = checkToolNames(built, { types }, ctx.types, bag);

  const catalog: Catalog = { app: config.app, config: config.config, types };
  const tops = files.flatMap((f) => f.items.filter((i) => i.kind === "TopPolicy"));
  buildPolicies(ctx.types.values(), tops, catalog, bag);

  // ── Method bodies ────────────────────────────────────────────────────────────────────────
  // compiler/check/methods.ts (the method language): reads the finished catalog (types,
  // fields, every CatalogMethod with its `body`) and reports WO5xxx into `bag`.
  // Before every body (fns, tests, methods): they may read a computed field once it is known to
  // be evaluated. Row expressions call no fn (WO2073), so no skipped fn matters to them.
  const fnNames = new Set(files.flatMap((f) => f.items.flatMap((i) => (i.kind === "FnDecl" ? [i.name.text] : []))));
  checkRowExprs(ctx.types.values(), catalog, bag, new Map(), fnNames);
  const skipped = checkFunctions(files, catalog, ctx, skippedMethods);
  checkStartupHooks(files, catalog, skipped, ctx);
  checkMain(files, catalog, skipped, ctx);
  checkTests(files, catalog, skipped);
  checkMethodBodies(catalog, bag, skipped);
  checkTriggerBodies(catalog, bag, skipped);
  // ─────────────────────────────────────────────────────────────────────────────────────────

  return { catalog, toolCount };
}
