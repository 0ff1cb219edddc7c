// Hover text (Markdown) for a name under the cursor (symbols.ts): a type shows its doc
// comment and members, a field its declaration (type, default, annotations) and doc comment,
// a method its signature, and a type with policy lines what each action grants
// (model/policy-text.ts, the words `wo check` uses). Declarations are quoted from the source as written, so the hover
// reads like the file and needs no second printer of the syntax.

import type { FnDecl, Span, TypeDecl } from "../ast.js";
import { policySummary } from "../../model/policy-text.js";
import { isScalarName } from "../../model/scalars.js";
import type { AppAnalysis } from "./analysis.js";
import { fieldsOf, methodsOf, type SymbolRef } from "./symbols.js";

export function hoverMarkdown(symbol: SymbolRef, analysis: AppAnalysis): string | undefined {
  const text = (span: Span) =>
    (analysis.files.get(span.file)?.source.text.slice(span.offset, span.end) ?? "").replace(/\s+/g, " ").trim();
  const signature = (fn: FnDecl) => text({ ...fn.span, end: fn.body.span.offset });
  const withDoc = (code: string, doc: string | undefined) => `\`\`\`wo\n${code}\n\`\`\`${doc ? `\n\n${doc}` : ""}`;

  switch (symbol.kind) {
    case "type": {
      if (!symbol.decl) return isScalarName(symbol.name) ? withDoc(symbol.name, "Built-in scalar type.") : undefined;
      const doc = [symbol.decl.doc, policyMarkdown(symbol.decl, analysis)].filter(Boolean).join("\n\n");
      return withDoc(typeOutline(symbol.decl, text, signature), doc || undefined);
    }
    case "field":
      return withDoc(
        `${[symbol.owner.name.text, ...symbol.parents].join(".")}.${text(symbol.field.span)}`,
        symbol.field.doc,
      );
    case "method":
      return withDoc(
        signature(symbol.fn),
        [`Method of \`${symbol.owner.name.text}\`.`, symbol.fn.doc].filter(Boolean).join("\n\n"),
      );
  }
}

function typeOutline(decl: TypeDecl, text: (span: Span) => string, signature: (fn: FnDecl) => string): string {
  const link = decl.link ? ` link ${decl.link.from.text} -> ${decl.link.to.text}` : "";
  const members = [...fieldsOf(decl).map((f) => text(f.span)), ...methodsOf(decl).map(signature)];
  return `${decl.keyword} ${decl.name.text}${link} {\n${members.map((m) => `  ${m}\n`).join("")}}`;
}

/**
 * The policy summary of a type with policy lines, from the checked catalog; while the app has
 * errors (no catalog), the lines as written.
 */
function policyMarkdown(decl: TypeDecl, analysis: AppAnalysis): string | undefined {
  const lines = decl.members.filter((m) => m.kind === "PolicyLine");
  if (lines.length === 0) return undefined;
  const type = analysis.result.catalog?.types.find((t) => t.name === decl.name.text);
  const items = type?.policies
    ? policySummary(type.policies)
    : lines.map((l) => `policy ${l.action.text}${l.whenText ? ` … when ${l.whenText}` : ""}`);
  return [
    "**Policies** (an action no line grants is denied; the owner bypasses them):",
    ...items.map((i) => `- ${i.replace(/[\\`*_[\]<>]/g, "\\$&")}`),
  ].join("\n");
}
