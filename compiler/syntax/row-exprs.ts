// Computed fields and `@check(<boolean expression>)` (spec/language.md, "Computed fields",
// "Checks"): their text is captured raw while the type body is parsed (raw-forms.ts
// `rowExprTokens`) and read here with the method grammar once the grammar is free, so the
// checker types them as a body of the type (compiler/check/row-exprs.ts). Text the grammar
// does not read (`between 1 and 5`) stays text: its field keeps
// the warning that it is not evaluated, and nothing of the failed reading is reported.

import type { Annotation, DefaultExpr, TypeDecl } from "../ast.js";
import { checkOps } from "../../model/field-check.js";
import type { ParseContext } from "./parse-context.js";
import type { WoParser } from "./parser.js";
import { rowExprTokens } from "./raw-forms.js";
import { readWith } from "./trigger-parts.js";

/** Reads every computed default and boolean `@check` of `decl`'s fields, in place. */
export function readRowExprs(parser: WoParser, ctx: ParseContext, decl: TypeDecl): void {
  for (const m of decl.members) {
    if (m.kind !== "FieldDecl") continue;
    if (m.default?.kind === "ComputedDefault") read(parser, ctx, m.default);
    for (const a of m.annotations) {
      const text = (a.argsText ?? "").trim();
      if (a.name.text === "check" && text !== "" && !checkOps.some((op) => text.startsWith(op))) read(parser, ctx, a);
    }
  }
}

function read(parser: WoParser, ctx: ParseContext, node: DefaultExpr | Annotation): void {
  const tokens = rowExprTokens.get(node);
  rowExprTokens.delete(node);
  if (!tokens || tokens.length === 0) return;
  const before = ctx.diags.items.length;
  const expr = readWith(parser, ctx, tokens, "an expression", () => parser.expr());
  ctx.diags.items.splice(before);
  if (expr) (node as { expr?: typeof expr }).expr = expr;
}
