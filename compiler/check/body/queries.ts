// Reads of the store in a body: `select T { … }` / `T{ … }` (predicates and projections, WO5013,
// WO5011), `row.f` and set projections `rows.f` (WO5003, WO5017), `o.f` through a `ref` id, and
// relations `row.rel` resolved like their REST route and MCP tool (WO5018).

import type { LiveExpr, MemberExpr, SelectExpr } from "../../ast.js";
import type { CatalogField, CatalogType } from "../../catalog.js";
import { relationsOf } from "../../../model/relations.js";
import { fieldNamed } from "../../../model/link-ends.js";
import { didYouMean } from "../did-you-mean.js";
import { reportUnexecuted } from "../unexecuted.js";
import {
  deltaKinds,
  describeType,
  fieldValueType,
  findType,
  isComparable,
  isNullable,
  isOrderable,
  nonNull,
  selectsOneRow,
  unknownType,
  type ValueType,
} from "../method-types.js";
import type { BodyCheck, RelationRead } from "./context.js";
import { checkVariantLiteral } from "./variants.js";
import { sessionMemberType, sessionName } from "./session.js";

export function member(check: BodyCheck, e: MemberExpr): ValueType {
  if (e.object.kind === "NameExpr" && e.object.name.text === sessionName) return sessionMemberType(check, e);
  const { bag, catalog, typing } = check;
  let objType = check.expr(e.object);
  const name = e.member.text;
  if (objType.k === "unknown") return unknownType;
  const referenced =
    objType.k === "int" && objType.name.startsWith("ref ") ? findType(catalog, objType.name.slice(4)) : undefined;
  if (referenced && objType.k === "int") {
    // `o.customer.name`: the row the id names, read in this call's transaction.
    typing.refReads.set(e, { type: referenced.name, table: referenced.table });
    objType = { k: "row", type: referenced.name, nullable: objType.nullable === true };
  }
  if (objType.k === "row" || objType.k === "rows") {
    const type = findType(catalog, objType.type);
    if (!type) return unknownType;
    const projection = objType.projection;
    const field = fieldNamed(type, name);
    if (!field || (projection && !projection.includes(field.name))) {
      const visible = projection ?? type.fields.map((f) => f.name);
      bag.report("WO5003", e.member.span, {
        type: projection ? `${type.name} { ${projection.join(", ")} }` : type.name,
        field: name,
        hint: didYouMean(name, visible),
      });
      return unknownType;
    }
    if (field.default?.kind === "computed" && !field.default.isEvaluated) {
      bag.report("WO5017", e.member.span, { field: name, found: `${type.name} (it is computed and not stored)` });
      return unknownType;
    }
    if (field.type.kind === "multi" || field.type.kind === "backlink") {
      if (objType.k === "rows") {
        bag.report("WO5017", e.member.span, {
          field: name,
          found: `${describeType(objType)} (relations are read from one row)`,
        });
        return unknownType;
      }
      const rel = resolveRelation(check, type, field, e);
      return rel ? { k: "rows", type: rel.type } : unknownType;
    }
    // Through an optional ref a field of none is null; of a select that found none, the call ends.
    const isNone = isNullable(objType) && !(objType.k === "row" && objType.selected);
    const t = fieldValueType(catalog, field.type, field.isOptional || isNone);
    // On a set of rows, `.field` maps over the rows (the reference's set projection).
    return objType.k === "rows" ? { k: "array", element: t } : t;
  }
  if (objType.k === "struct") {
    const field = objType.fields.find((f) => f.name === name);
    if (!field) {
      bag.report("WO5003", e.member.span, {
        type: describeType(objType),
        field: name,
        hint: didYouMean(
          name,
          objType.fields.map((f) => f.name),
        ),
      });
      return unknownType;
    }
    return fieldValueType(catalog, field.type, field.isOptional || isNullable(objType));
  }
  if (objType.k === "delta") {
    // What receive(sub) gives (spec/language.md, "Live subscriptions").
    if (name === "kind") return { k: "union", variants: [...deltaKinds] };
    if (name === "row") return { k: "row", type: objType.type };
    if (name === "rows") return { k: "rows", type: objType.type };
    bag.report("WO5003", e.member.span, {
      type: describeType(objType),
      field: name,
      hint: didYouMean(name, ["kind", "row", "rows"]),
    });
    return unknownType;
  }
  bag.report("WO5017", e.member.span, { field: name, found: describeType(objType) });
  return unknownType;
}

/**
 * `subscribe live T{ p }`: a subscription to the rows of T the predicates select, fed by the
 * writes of this run (runtime/operations/live-writes.ts). `LIVE select …` is not executed.
 */
export function subscription(check: BodyCheck, e: LiveExpr): ValueType {
  if (e.form === "LIVE") {
    reportUnexecuted(check.bag, e);
    return unknownType;
  }
  const rows = check.expr(e.query);
  if (e.query.kind !== "SelectExpr") {
    if (rows.k !== "unknown")
      check.bag.report("WO5026", e.query.span, {
        what: "'subscribe live'",
        expected: "a query T{ … }",
        found: describeType(rows),
      });
    return unknownType;
  }
  if (e.query.projection.length > 0) {
    check.bag.report("WO5025", e.query.projection[0]!.span, {
      what: "A projection in 'subscribe live'",
      why: `each delta carries the whole row; subscribe to ${e.query.type.text}{ predicates } and read the fields from delta.row`,
    });
    return unknownType;
  }
  return rows.k === "row" || rows.k === "rows" ? { k: "subscription", type: rows.type } : unknownType;
}

function resolveRelation(
  check: BodyCheck,
  type: CatalogType,
  field: CatalogField,
  e: MemberExpr,
): RelationRead | undefined {
  const { bag, catalog } = check;
  if (field.type.kind !== "multi" && field.type.kind !== "backlink") return undefined;
  // The same resolution as the relation's REST route and MCP tool.
  const found = relationsOf(catalog, type).find((r) => r.field.name === field.name);
  if (!found) {
    if (field.type.kind === "multi" && !field.type.via) {
      const target = findType(catalog, field.type.target);
      const count = (target?.fields ?? []).filter((f) => f.type.kind === "ref" && f.type.target === type.name).length;
      bag.report("WO5018", e.member.span, {
        field: field.name,
        type: type.name,
        target: field.type.target,
        count: String(count),
      });
    }
    return undefined;
  }
  const { target, path } = found;
  // A `via L` relation reads the L rows, the edges with their own fields (`.target` follows
  // one); an edge relation (`@edge(:L)`, whose link type has no fields) reads the far rows.
  const rel: RelationRead =
    path.kind === "ref"
      ? { type: target.name, table: target.table, column: path.column }
      : !path.link.edge
        ? { type: path.link.name, table: path.link.table, column: path.ownerColumn }
        : {
            type: target.name,
            table: target.table,
            column: path.targetColumn,
            link: { table: path.link.table, ownerColumn: path.ownerColumn },
          };
  check.typing.relations.set(e, rel);
  return rel;
}

export function select(check: BodyCheck, e: SelectExpr): ValueType {
  const { bag, catalog } = check;
  const target = findType(catalog, e.type.text);
  if (!target)
    bag.report("WO5002", e.type.span, {
      name: e.type.text,
      hint: didYouMean(
        e.type.text,
        catalog.types.map((t) => t.name),
      ),
    });
  for (const p of e.predicates) {
    const valueType = check.expr(p.value);
    if (!target) continue;
    const field = fieldNamed(target, p.column.text);
    const filterable =
      field?.isStored && (field.type.kind === "scalar" || field.type.kind === "union" || field.type.kind === "ref");
    if (!field || !filterable) {
      bag.report("WO5013", p.column.span, {
        type: target.name,
        column: p.column.text,
        why: field ? "not a scalar, union or ref column, so it cannot be filtered on" : "not a field",
      });
      continue;
    }
    const colType = fieldValueType(catalog, field.type, field.isOptional);
    checkVariantLiteral(check, colType, p.value);
    const ok =
      p.op === "==" || p.op === "!="
        ? isComparable(colType, valueType)
        : isOrderable(nonNull(colType), nonNull(valueType));
    if (!ok) bag.report("WO5011", p.span, { left: describeType(colType), right: describeType(valueType), op: p.op });
  }
  if (!target) return unknownType;
  const projection: string[] = [];
  for (const col of e.projection) {
    const field = target.fields.find((f) => f.name === col.text);
    if (!field?.isStored) {
      bag.report("WO5013", col.span, {
        type: target.name,
        column: col.text,
        why: field ? "not a stored column" : "not a field",
      });
    } else projection.push(col.text);
  }
  const k = selectsOneRow(catalog, e) ? "row" : "rows";
  if (k === "row")
    return e.projection.length > 0
      ? { k, type: target.name, projection, nullable: true, selected: true }
      : { k, type: target.name, nullable: true, selected: true };
  return e.projection.length > 0 ? { k, type: target.name, projection } : { k, type: target.name };
}
