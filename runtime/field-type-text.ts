// How a field's type reads in what the runtime shows people: the MCP schema resource
// (`wo://schema/t`, from the catalog's FieldType) and migration messages (from the stored
// shape's TypeDesc). Both are written as in `.wo`: `Int`, `Draft | Live`, `ref Author`, `[Text]`,
// `{ title: Text, note: Text? }`, so one function serves both and they cannot drift apart.
//
// A stored shape names a ref's table, not its type (renaming a type that keeps its table is no
// storage change), so a migration message says `ref authors`. The compiler words types its own
// way for tool descriptions (compiler/emit/tools.ts: `id of Author`) and diagnostics
// (compiler/check/context.ts); the runtime does not load compiler code.

import type { FieldType } from "../compiler/catalog.js";
import type { TypeDesc } from "./store/shape.js";

export function fieldTypeText(t: FieldType | TypeDesc): string {
  switch (t.kind) {
    case "scalar":
      return t.scalar;
    case "union":
      return t.variants.join(" | ");
    case "ref":
      return `ref ${"target" in t ? t.target : t.table}`;
    case "multi":
      return `multi ${t.target}`;
    case "backlink":
      return `backlink ${t.target}.${t.field}`;
    case "array":
      return `[${fieldTypeText(t.element)}]`;
    case "struct":
      return `{ ${t.fields.map((f) => `${f.name}: ${fieldTypeText(f.type)}${f.isOptional ? "?" : ""}`).join(", ")} }`;
    case "embedded":
      return t.type;
    case "json":
      // An embedded type that embeds itself again: the shape does not describe it further.
      return "JSON";
  }
}
