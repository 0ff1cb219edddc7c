// Hover text (Markdown) for a name under the cursor (symbols.ts): a type shows its doc
// comment and members, a field its declaration (type, default, annotations) and doc comment,
// a method its signature. Declarations are quoted from the source as written, so the hover
// reads like the file and needs no second printer of the syntax.

import type { FnDecl, Span, TypeDecl } from "../ast.js";
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
      return withDoc(typeOutline(symbol.decl, text, signature), symbol.decl.doc);
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
