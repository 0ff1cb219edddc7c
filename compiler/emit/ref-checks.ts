// The reference check a generated write makes before it stores a row or a patch: one call to
// rt.checkRefs, which finds every ref in the values (top level or nested in arrays, structs
// and embedded types) from the same storage description the delete check uses. Emitted only
// when one of the written fields can hold a ref, so writes to ref-free types stay one line.

import { refPaths } from "../../runtime/store/ref-paths.js";
import { describeFieldType } from "../../runtime/store/shape.js";
import type { Catalog, CatalogType } from "../catalog.js";
import { jsString } from "./js-literal.js";

/** The check's line, or undefined when none of `fields` of `type` can hold a ref. */
export function refCheckLine(catalog: Catalog, type: CatalogType, fields: readonly string[], source: string): string | undefined {
  return canHoldRef(catalog, type, fields) ? `await rt.checkRefs(tx, ${jsString(type.table)}, ${source});` : undefined;
}

/** Whether any of `fields` of `type` can hold a ref: only then can a write of them name a missing row (422). */
export function canHoldRef(catalog: Catalog, type: CatalogType, fields: readonly string[]): boolean {
  return type.fields.some((f) => fields.includes(f.name) && refPaths(describeFieldType(f.type, catalog)).length > 0);
}

/** Whether any stored value (link tables included) can hold an id of `type`'s rows: only then can its delete be refused (409). */
export function isReferable(catalog: Catalog, type: CatalogType): boolean {
  return catalog.types.some((t) => t.fields.some((f) => f.isStored && refPaths(describeFieldType(f.type, catalog)).some((p) => p.table === type.table)));
}
