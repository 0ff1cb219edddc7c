// Relation fields served as operations (spec/rest.md "Relations", spec/mcp.md): which
// `multi` and `backlink` fields of a type can be read, linked and unlinked, how their rows are
// found, and the op names that carry them. One rule for the compiler (schemas, handlers, tools,
// routes, OpenAPI, the name clash checks) and the REST runtime (the routes hono answers).
// Generic in the method-body type `B` only so a relation found in the compiler's catalog keeps
// its types (model/app.ts).

import type { Catalog, CatalogField, CatalogType } from "./app.js";
import { typesByName } from "./type-index.js";

/** How the rows of a relation are found from the owning row's id. */
export type RelationPath<B = unknown> =
  /** `multi T via L`: rows of L whose `ownerColumn` is the id name T rows in `targetColumn`. */
  | { kind: "link"; link: CatalogType<B>; ownerColumn: string; targetColumn: string }
  /** `backlink T.f` or `multi T` without `via`: rows of T whose ref column `column` is the id. */
  | { kind: "ref"; column: string };

export interface Relation<B = unknown> {
  /** The relation field of the owning type (`tags`). */
  field: CatalogField;
  target: CatalogType<B>;
  path: RelationPath<B>;
}

export type RelationAccess = "read" | "add" | "remove";

/** One relation operation: op `tags` (read), `tags_add`, `tags_remove`; tool `post_tags…`. */
export interface RelationOp<B = unknown> {
  op: string;
  access: RelationAccess;
  relation: Relation<B>;
}

/**
 * The type's relation fields that resolve to rows. A `multi T` without `via` needs exactly one
 * ref of T pointing back (else WO2110 warned, and it has no operations). For a link between
 * rows of one type, the declaring row is the link's `from` end.
 */
export function relationsOf<B>(catalog: Pick<Catalog<B>, "types">, type: CatalogType<B>): Relation<B>[] {
  const byName = typesByName(catalog);
  const out: Relation<B>[] = [];
  for (const field of type.fields) {
    const t = field.type;
    if (t.kind !== "multi" && t.kind !== "backlink") continue;
    const target = byName.get(t.target);
    if (!target) continue;
    if (t.kind === "backlink") {
      out.push({ field, target, path: { kind: "ref", column: t.field } });
    } else if (t.via) {
      const link = byName.get(t.via)?.link ? byName.get(t.via)! : undefined;
      if (!link?.link) continue;
      const ownerIsFrom = link.link.from === type.name;
      out.push({
        field,
        target,
        path: {
          kind: "link",
          link,
          ownerColumn: ownerIsFrom ? link.link.fromField : link.link.toField,
          targetColumn: ownerIsFrom ? link.link.toField : link.link.fromField,
        },
      });
    } else {
      const back = target.fields.filter((f) => f.isStored && f.type.kind === "ref" && f.type.target === type.name);
      if (back.length === 1) out.push({ field, target, path: { kind: "ref", column: back[0]!.name } });
    }
  }
  return out;
}

/**
 * The relation operations that `ops` (an expose list, or the type's MCP exposure) brings: each
 * relation is readable where `get` is exposed; a `via` relation is linked and unlinked where
 * `update` is. Relation order, then read, add, remove.
 */
export function relationOps<B>(
  catalog: Pick<Catalog<B>, "types">,
  type: CatalogType<B>,
  ops: readonly string[],
): RelationOp<B>[] {
  const readable = ops.includes("get");
  const writable = ops.includes("update");
  if (!readable && !writable) return [];
  const out: RelationOp<B>[] = [];
  for (const relation of relationsOf(catalog, type)) {
    const name = relation.field.name;
    if (readable) out.push({ op: name, access: "read", relation });
    if (writable && relation.path.kind === "link") {
      out.push({ op: `${name}_add`, access: "add", relation });
      out.push({ op: `${name}_remove`, access: "remove", relation });
    }
  }
  return out;
}

/** Every relation op of the type over its REST blocks and MCP exposure, each once. */
export function allRelationOps<B>(catalog: Pick<Catalog<B>, "types">, type: CatalogType<B>): RelationOp<B>[] {
  const out: RelationOp<B>[] = [];
  for (const ops of [...type.rest.map((r) => r.ops), type.mcp]) {
    for (const r of relationOps(catalog, type, ops)) if (!out.some((o) => o.op === r.op)) out.push(r);
  }
  return out;
}

/**
 * Verb and path of a relation op under `base` (a `service rest` path): `GET base/:id/tags`,
 * `PUT`/`DELETE base/:id/tags/:tag` — the second parameter is named after the link's target
 * column, which is also the argument's name in the MCP tool.
 */
export function relationRoute(base: string, r: RelationOp): { method: string; path: string } {
  const path = `${base}/:id/${r.relation.field.name}`;
  if (r.access === "read") return { method: "GET", path };
  const column = (r.relation.path as { targetColumn: string }).targetColumn;
  return { method: r.access === "add" ? "PUT" : "DELETE", path: `${path}/:${column}` };
}
