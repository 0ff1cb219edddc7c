// A link type's two endpoints also go by `source` and `target` (spec/language.md "Link types"):
// `source` is the `from` end's ref field (`customer` in `type Purchase link Customer -> Product`),
// `target` the `to` end's (`product`). Policies, select predicates and body reads name a field
// through fieldNamed, so the aliases read the endpoint columns wherever a field name does.

import type { CatalogField, CatalogType } from "./app.js";

/** The field `name` names on `type`: a declared field, else a link type's `source`/`target`. */
export function fieldNamed(type: CatalogType, name: string): CatalogField | undefined {
  const declared = type.fields.find((f) => f.name === name);
  if (declared || !type.link || (name !== "source" && name !== "target")) return declared;
  const end = name === "source" ? type.link.fromField : type.link.toField;
  return type.fields.find((f) => f.name === end);
}
