// Edge-labelled relations (`related: multi Article @edge(:RELATED_TO)`, spec/language.md
// "Edge relations"): each is stored as a link type of its own that the checker adds to the
// catalog, so storage, migrations, the cascade on delete, the relation operations and the
// `link`/`unlink` statements all treat it as they treat `multi T via L`.

import type { CatalogField, CatalogType } from "../catalog.js";
import { linkEndpointFields } from "../../model/naming.js";
import { linkEndField, syntheticIdAt } from "./fields.js";

/** The prefix of every implicit link table; explicit storage names may not use it (storage.ts). */
export const edgeTablePrefix = "_wo_edge_";

/**
 * One implicit link type per edge-labelled `multi` field, named `Owner$field` (no declared type
 * can be: a type name has no '$'; it is still a JavaScript identifier, as generated code needs)
 * with table `_wo_edge_<owner table>__<field>`. The field's `via` is set to it. Types are
 * appended to `types`.
 */
export function addEdgeLinkTypes(types: CatalogType[]): void {
  for (const owner of [...types]) {
    for (const field of owner.fields) {
      const t = field.type;
      if (t.kind !== "multi" || t.edgeLabel === undefined || t.via !== undefined) continue;
      const name = `${owner.name}$${field.name.replace(/-/g, "_")}`;
      const ends = linkEndpointFields(owner.name, t.target);
      const end = (column: string, target: string) => linkEndField(column, target, field.source);
      types.push({
        name,
        snake: `${owner.snake}__${field.name.replace(/-/g, "_")}`,
        keyword: "type",
        table: `${edgeTablePrefix}${owner.table}__${field.name.replace(/[^A-Za-z0-9_]/g, "_")}`,
        link: { from: owner.name, to: t.target, ...ends },
        edge: { owner: owner.name, field: field.name, label: t.edgeLabel },
        fields: [syntheticIdAt(field.source), end(ends.fromField, owner.name), end(ends.toField, t.target)],
        indexes: [],
        services: [],
        methods: [],
        rest: [],
        mcp: [],
        source: field.source,
      });
      t.via = name;
    }
  }
}

/** The `@edge(:label)` fields of `from` whose target is `to`, for `link a -[:label]-> b`. */
export function edgeFields(from: CatalogType, label: string, to: string): CatalogField[] {
  return from.fields.filter(
    (f) => f.type.kind === "multi" && f.type.edgeLabel === label && f.type.target === to && f.type.via !== undefined,
  );
}
