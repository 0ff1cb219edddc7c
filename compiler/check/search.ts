// `@search` on a field (spec/language.md, "Full-text search"): only a top-level stored text
// field has a column a full-text index can read (model/storage-shape.ts `search`).

import type { Annotation } from "../ast.js";
import type { CatalogField } from "../catalog.js";
import { scalars } from "../../model/scalars.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { describeType } from "./context.js";

/** The text scalars `@search` takes: those the `contains` filter applies to (model/scalars.ts isSearchable). */
export const searchableScalars = Object.entries(scalars)
  .filter(([, s]) => s.isSearchable)
  .map(([name]) => name);

/** Whether `field`, marked `@search` by `a`, can be searched; reports why not. */
export function checkSearch(a: Annotation, field: CatalogField, isTopLevel: boolean, bag: DiagnosticBag): boolean {
  if (a.argsText !== undefined) {
    bag.report("WO2082", a.span, { field: field.name });
    return false;
  }
  if (!isTopLevel || !field.isStored) {
    const what = !isTopLevel
      ? "a field inside a struct (a struct is stored whole, as one value)"
      : field.default?.kind === "computed"
        ? "a computed field (it has no column)"
        : "a relation (it has no column)";
    bag.report("WO2081", a.span, { field: field.name, what });
    return false;
  }
  const t = field.type;
  if (t.kind !== "scalar" || !scalars[t.scalar].isSearchable) {
    bag.report("WO2080", a.span, { field: field.name, type: describeType(t), text: searchableScalars.join(", ") });
    return false;
  }
  return true;
}
