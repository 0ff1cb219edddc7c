// Which fields a `_list` filters on by equality (spec/rest.md): one rule for the runtime's REST
// query parsing and for the compiler's list schemas, tool descriptions and OpenAPI parameters,
// so what the docs offer is what `GET` accepts. It lives in the runtime because the runtime may
// not import compiler code; the compiler imports it from here.

import type { CatalogField, CatalogType } from "../compiler/catalog.js";

/** Input property names of `_list` that are not filters; fields with these names are not filterable. */
export const listControlNames = ["limit", "cursor"] as const;

/** `id` and the top-level stored scalar, union and ref fields, minus the list controls. */
export function listFilterFields(type: CatalogType): CatalogField[] {
  return type.fields.filter(
    (f) =>
      f.isStored &&
      (f.type.kind === "scalar" || f.type.kind === "union" || f.type.kind === "ref") &&
      !(listControlNames as readonly string[]).includes(f.name),
  );
}
