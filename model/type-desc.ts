// A field's type as storage sees it: embedded types expanded, refs named by the table they point
// into. Store-neutral (every store lays columns out from it) and read by the compiler's ref-check
// emitter and the method checker's type texts, so it lives in the model.

import type { Catalog, CatalogField, CatalogType, FieldType } from "./app.js";
import { typesByName } from "./type-index.js";

/** A field's type, stripped to what storage cares about. */
export type TypeDesc =
  | { kind: "scalar"; scalar: string }
  | { kind: "union"; variants: string[] }
  | { kind: "ref"; table: string }
  | { kind: "array"; element: TypeDesc }
  | { kind: "struct"; fields: { name: string; type: TypeDesc; isOptional: boolean }[] }
  /** An embedded type that embeds itself again: stored as JSON, not described further. */
  | { kind: "json" };

/**
 * A catalog field type as storage describes it (embedded types expanded, refs as tables). The
 * types are looked up in the catalog's one index (type-index.ts), not in a map per call.
 */
export function describeFieldType(t: FieldType, catalog: Catalog): TypeDesc {
  return describeFieldTypeIn(t, typesByName(catalog));
}

/** describeFieldType with the catalog's types already indexed by name. */
export function describeFieldTypeIn(
  t: FieldType,
  byName: ReadonlyMap<string, CatalogType>,
  embedding: ReadonlySet<string> = new Set(),
): TypeDesc {
  switch (t.kind) {
    case "scalar":
      return { kind: "scalar", scalar: t.scalar };
    case "union":
      return { kind: "union", variants: [...t.variants] };
    case "ref":
      // Refs name the target's table, not its type: renaming a type that keeps its table is
      // not a storage change.
      return { kind: "ref", table: byName.get(t.target)?.table ?? t.target };
    case "array":
      return { kind: "array", element: describeFieldTypeIn(t.element, byName, embedding) };
    case "struct":
      return {
        kind: "struct",
        fields: t.fields.filter((f) => f.isStored).map((f) => describeField(f, byName, embedding)),
      };
    case "embedded": {
      const target = byName.get(t.type);
      if (!target || embedding.has(t.type)) return { kind: "json" };
      const inner = new Set(embedding).add(t.type);
      const fields = target.fields.filter((f) => f.isStored && !f.isSynthetic);
      return { kind: "struct", fields: fields.map((f) => describeField(f, byName, inner)) };
    }
    case "multi":
    case "backlink":
      // Not stored (isStored is false); described only so the switch is total.
      return { kind: "json" };
  }
}

function describeField(f: CatalogField, byName: ReadonlyMap<string, CatalogType>, embedding: ReadonlySet<string>) {
  return { name: f.name, type: describeFieldTypeIn(f.type, byName, embedding), isOptional: f.isOptional };
}
