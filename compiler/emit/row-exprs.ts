// The row-expression emitter: the program's boolean `@check`s and computed fields
// (CatalogRowExpr, typed by check/row-exprs.ts) → one `rt.defineRowExprs([...])` statement inside
// `createOperations(rt)`, whose entries the runtime evaluates on writes (checks, materialized
// fields) and reads (computed fields): runtime/operations/row-exprs.ts. Each expression is
// printed by the method emitter (./method-expr.ts) from the same typing the checker made.

import type { Block, LetStmt, ReturnStmt } from "../ast.js";
import type { Catalog, CatalogField, CatalogRowExpr, CatalogType } from "../catalog.js";
import { typeMethod } from "../check/methods.js";
import { rowExprMethod } from "../check/row-exprs.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { jsJson, jsString } from "./js-literal.js";
import { helpersLine, printExpr, rowAlias, type ExprContext } from "./method-expr.js";
import { rowTypeDeclarations, writer, writeStmt } from "./methods.js";

/** The statement registering every row expression of `catalog`, in a block of its own; undefined when there are none. */
export function emitRowExprs(catalog: Catalog): string | undefined {
  const entries: string[] = [];
  const rowTypes = new Set<string>();
  for (const type of catalog.types) {
    for (const r of type.rowExprs ?? []) entries.push(emitRowExpr(catalog, type, r, rowTypes));
  }
  if (entries.length === 0) return undefined;
  const w = writer();
  w.write("").block(() => {
    w.writeLine(rowTypeDeclarations(catalog, rowTypes));
    w.write("rt.defineRowExprs([").newLine();
    w.indent(() => {
      for (const e of entries) w.writeLine(`${e},`);
    });
    w.writeLine("]);");
  });
  return w.toString().trimEnd();
}

function emitRowExpr(catalog: Catalog, type: CatalogType, r: CatalogRowExpr<Block>, rowTypes: Set<string>): string {
  const field = type.fields.find((f) => f.name === r.field) as CatalogField;
  const method = rowExprMethod(field, r.kind, r.body);
  const typing = typeMethod(catalog, type, method, new DiagnosticBag());
  const ctx: ExprContext = { catalog, owner: type, typing, rowTypes, helpers: new Set(), params: new Set() };
  rowTypes.add(type.name);
  const body = writer();
  const statements = r.body.statements;
  for (const s of statements.slice(0, -1)) writeStmt(body, ctx, s as LetStmt);
  const ret = statements[statements.length - 1] as ReturnStmt;
  body.writeLine(`return ${printExpr(ctx, ret.value!)};`);
  const w = writer();
  w.write("").inlineBlock(() => {
    w.writeLine(`table: ${jsString(type.table)},`);
    w.writeLine(`field: ${jsString(r.field)},`);
    w.writeLine(`kind: ${jsString(r.kind)},`);
    w.writeLine(`text: ${jsString(r.text)},`);
    if (field.default?.kind === "computed" && field.default.isMaterialized) w.writeLine("isMaterialized: true,");
    if (r.dependsOn) w.writeLine(`dependsOn: ${jsJson(r.dependsOn)},`);
    w.write("async value(tx, row)").inlineBlock(() => {
      const helpers = helpersLine(ctx.helpers);
      if (helpers) w.writeLine(helpers);
      w.writeLine(`const self = row as ${rowAlias(type.name)};`);
      w.write(body.toString());
    });
    w.write(",").newLine();
  });
  return w.toString().trimEnd();
}
