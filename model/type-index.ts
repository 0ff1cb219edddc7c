// Indexes of a catalog's types, built once per catalog rather than once per question. Emitters
// and the runtime ask about every type and field of an app; an index rebuilt (or a list
// scanned) for each of those questions made a build grow with the cube of the number of types
// (spec/architecture.md "Build and start-up cost").
//
// A catalog is not changed once it is checked, so an index is kept for as long as the catalog's
// `types` array lives. One assembled step by step (tests push types and fields onto a catalog
// before using it) is indexed again when the number of its types has changed since.

import type { Catalog, CatalogField, CatalogType } from "./app.js";

/** The catalog's types by name. */
export function typesByName<B>(catalog: Pick<Catalog<B>, "types">): ReadonlyMap<string, CatalogType<B>> {
  return indexOf(catalog).byName as Map<string, CatalogType<B>>;
}

/**
 * The stored `ref` fields (top level, not inside arrays or structs) pointing at each type, by
 * the target's name, in catalog order: where rows that hold a row's id are found by equality.
 */
export function refFieldsInto<B>(
  catalog: Pick<Catalog<B>, "types">,
  typeName: string,
): readonly { owner: CatalogType<B>; field: CatalogField }[] {
  const index = indexOf(catalog);
  index.refsInto ??= refsIntoOf(catalog.types);
  return (index.refsInto.get(typeName) ?? []) as { owner: CatalogType<B>; field: CatalogField }[];
}

interface TypeIndex {
  count: number;
  byName: Map<string, CatalogType<unknown>>;
  refsInto?: Map<string, { owner: CatalogType<unknown>; field: CatalogField }[]>;
}

const indexes = new WeakMap<readonly CatalogType<unknown>[], TypeIndex>();

function indexOf(catalog: Pick<Catalog<unknown>, "types">): TypeIndex {
  const types = catalog.types;
  const cached = indexes.get(types);
  if (cached && cached.count === types.length) return cached;
  const byName = new Map<string, CatalogType<unknown>>();
  // The first of a name wins, as a search of the list would find it.
  for (const t of types) if (!byName.has(t.name)) byName.set(t.name, t);
  const index: TypeIndex = { count: types.length, byName };
  indexes.set(types, index);
  return index;
}

function refsIntoOf(types: readonly CatalogType<unknown>[]) {
  const into = new Map<string, { owner: CatalogType<unknown>; field: CatalogField }[]>();
  for (const owner of types) {
    for (const field of owner.fields) {
      if (!field.isStored || field.type.kind !== "ref") continue;
      const list = into.get(field.type.target);
      if (list) list.push({ owner, field });
      else into.set(field.type.target, [{ owner, field }]);
    }
  }
  return into;
}
