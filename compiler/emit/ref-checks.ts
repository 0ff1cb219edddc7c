// The reference check a generated write makes before it stores a row or a patch: one call to
// rt.checkRefs, which finds every ref in the values (top level or nested in arrays, structs
// and embedded types) from the same storage description the delete check uses. Emitted only
// when one of the written fields can hold a ref, so writes to ref-free types stay one line.

import { refPaths } from "../../model/ref-paths.js";
import { describeFieldType } from "../../model/type-desc.js";
import type { Catalog, CatalogType } from "../catalog.js";
import { jsJson, jsString } from "./js-literal.js";

/**
 * The check's line, or undefined when none of `fields` of `type` can hold a ref. `pointers`
 * (field → JSON pointer) names where a field's value came from in the caller's input, so a
 * method that stores its argument `person` in `assignee` reports `/person`, not `/assignee`.
 * They are printed as [field, pointer] pairs, never as an object literal a field name could
 * give a prototype to.
 */
export function refCheckLine(
  catalog: Catalog,
  type: CatalogType,
  fields: readonly string[],
  source: string,
  pointers: Record<string, string> = {},
): string | undefined {
  if (!canHoldRef(catalog, type, fields)) return undefined;
  const named = Object.entries(pointers).filter(([field]) => canHoldRef(catalog, type, [field]));
  const extra = named.length > 0 ? `, ${jsJson(named)}` : "";
  return `await rt.checkRefs(tx, ${jsString(type.table)}, ${source}${extra});`;
}

/** Whether any of `fields` of `type` can hold a ref: only then can a write of them name a missing row (422). */
export function canHoldRef(catalog: Catalog, type: CatalogType, fields: readonly string[]): boolean {
  return type.fields.some((f) => fields.includes(f.name) && refPaths(describeFieldType(f.type, catalog)).length > 0);
}

/**
 * The tables whose rows a delete can be refused for (409): some stored value holds their ids. A
 * link's endpoint does not count (its links go with the row, spec/storage.md "Link tables"),
 * unless a value elsewhere can hold one of those links, and so on along links of links.
 * Computed for the whole catalog at once, each field described once: asking per type walked
 * every field of every type each time (spec/architecture.md "Build and start-up cost").
 */
export function referableTables(catalog: Catalog): Set<string> {
  const referable = new Set<string>();
  // A link's table → the tables its endpoints point into, referable once the link is.
  const viaLink = new Map<string, string[]>();
  for (const t of catalog.types) {
    for (const f of t.fields) {
      if (!f.isStored) continue;
      const tables = refPaths(describeFieldType(f.type, catalog)).map((p) => p.table);
      const isEndpoint = t.link !== undefined && (f.name === t.link.fromField || f.name === t.link.toField);
      if (!isEndpoint) for (const table of tables) referable.add(table);
      else viaLink.set(t.table, [...(viaLink.get(t.table) ?? []), ...tables]);
    }
  }
  const pending = [...referable];
  for (let table = pending.pop(); table !== undefined; table = pending.pop()) {
    for (const endpoint of viaLink.get(table) ?? []) {
      if (referable.has(endpoint)) continue;
      referable.add(endpoint);
      pending.push(endpoint);
    }
  }
  return referable;
}
