// How a field's type reads in what the runtime shows people: the MCP schema resource
// (`wo://schema/t`, from the catalog's FieldType) and migration messages (from the stored
// shape's TypeDesc). Both are written as in `.wo`: `Int`, `Draft | Live`, `ref Author`, `[Text]`,
// `{ title: Text, note: Text? }`, so one function serves both and they cannot drift apart.
//
// A stored shape names a ref's table, not its type (renaming a type that keeps its table is no
// storage change), so a migration message says `ref authors`. Tool descriptions
// (compiler/emit/tools.ts) use it too, wording refs as `id of Author`, and so do the checker's
// diagnostics (compiler/check/context.ts). The runtime does not load compiler code.

import type { FieldType } from "./app.js";
import type { TypeDesc } from "./type-desc.js";

/** `refText` words a ref's target; tool descriptions say `id of Author` instead of `ref Author`. */
export function fieldTypeText(
  t: FieldType | TypeDesc,
  refText: (target: string) => string = (target) => `ref ${target}`,
): string {
  switch (t.kind) {
    case "scalar":
      return t.scalar;
    case "union":
      return t.variants.join(" | ");
    case "ref":
      return refText("target" in t ? t.target : t.table);
    case "multi":
      return `multi ${t.target}`;
    case "backlink":
      return `backlink ${t.target}.${t.field}`;
    case "array":
      return `[${fieldTypeText(t.element, refText)}]`;
    case "struct":
      return `{ ${t.fields.map((f) => `${f.name}: ${fieldTypeText(f.type, refText)}${f.isOptional ? "?" : ""}`).join(", ")} }`;
    case "embedded":
      return t.type;
    case "json":
      // An embedded type that embeds itself again: the shape does not describe it further.
      return "JSON";
  }
}
