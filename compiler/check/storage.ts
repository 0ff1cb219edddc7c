// Storage of each type: its table name and its `@table(index: …)` indexes.
//
// Owns: `@table` keys (only `name` and `index`), storage names (the `name:` value, else
// snake(T); unique across the program, SQL-safe), and index columns (declared top-level
// fields with a stored scalar column: scalar, union or ref). Leaves DDL to the store.

import type { TypeDecl } from "../ast.js";
import type { CatalogField, CatalogType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { snakeCase } from "../../model/naming.js";
import { reservedNames } from "../syntax/parse-context.js";
import { didYouMean } from "./did-you-mean.js";
import { unstorableReason } from "./fields.js";

/** The storage name of a type, checked for shape (not for clashes: see checkStorageNames). */
export function tableNameOf(decl: TypeDecl, bag: DiagnosticBag): string {
  const table = decl.table;
  for (const key of table?.unknownKeys ?? []) bag.report("WO2008", key.span, { key: key.text });
  const explicit = table?.storageName;
  if (!explicit) return snakeCase(decl.name.text);
  const name = explicit.value;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    bag.report("WO2022", explicit.span, {
      name,
      what: "a storage name",
      why: "use letters, digits and '_', not starting with a digit",
    });
  } else if (name.toLowerCase().startsWith("sqlite_")) {
    bag.report("WO2022", explicit.span, {
      name,
      what: "a storage name",
      why: "names starting with 'sqlite_' are reserved by SQLite",
    });
  } else if (name.toLowerCase().startsWith("_wo_")) {
    bag.report("WO2022", explicit.span, {
      name,
      what: "a storage name",
      why: "names starting with '_wo_' are wo's own tables (edge relations' link tables among them)",
    });
  } else if (reservedNames.has(name)) {
    bag.report("WO2022", explicit.span, {
      name,
      what: "a storage name",
      why: "JavaScript objects have a built-in member of that name, and tables are looked up by name",
    });
  }
  return name;
}

/** Two types may not share a table; compared case-insensitively, as SQL does. */
export function checkStorageNames(types: CatalogType[], decls: Map<string, TypeDecl>, bag: DiagnosticBag): void {
  const owners = new Map<string, string>();
  for (const t of types) {
    const key = t.table.toLowerCase();
    const owner = owners.get(key);
    if (owner) {
      const decl = decls.get(t.name)!;
      bag.report("WO2011", decl.table?.storageName?.span ?? decl.name.span, { name: t.table, other: owner });
    } else {
      owners.set(key, t.name);
    }
  }
}

/** `@table(index: [a, b])` → one composite index each; identical column lists kept once. */
export function buildIndexes(
  decl: TypeDecl,
  table: string,
  fields: CatalogField[],
  bag: DiagnosticBag,
): CatalogType["indexes"] {
  const out: CatalogType["indexes"] = [];
  for (const index of decl.table?.indexes ?? []) {
    let ok = true;
    for (const column of index.columns) {
      const field = fields.find((f) => f.name === column.text);
      if (!field) {
        bag.report("WO2009", column.span, {
          name: column.text,
          type: decl.name.text,
          hint: didYouMean(
            column.text,
            fields.map((f) => f.name),
          ),
        });
        ok = false;
        continue;
      }
      const what = field.default?.kind === "computed" ? "a computed field" : unstorableReason(field.type);
      if (what !== undefined) {
        bag.report("WO2010", column.span, { name: column.text, what });
        ok = false;
      }
    }
    const columns = index.columns.map((c) => c.text);
    if (!ok || columns.length === 0) continue;
    const name = `${table}_${columns.join("_")}_idx`;
    if (!out.some((i) => i.name === name)) out.push({ name, columns });
  }
  return out;
}
