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
  const holdsRef = type.fields.some((f) => fields.includes(f.name) && refPaths(describeFieldType(f.type, catalog)).length > 0);
  return holdsRef ? `await rt.checkRefs(tx, ${jsString(type.table)}, ${source});` : undefined;
}
