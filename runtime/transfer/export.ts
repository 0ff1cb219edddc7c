// `wo export`: every row of every type (link types included: they are types with rows) as JSON
// lines, from one read transaction, so the file is one consistent state of the store
// (spec/operations.md, "Export and import"). Streamed: each table is read in pages by id and
// written as it is read, waiting for the output to drain, so memory stays at one page.
//
// The output is deterministic for a given state: a header line, then the types in dependency
// order (a type after the types its refs point at, where the refs allow), each type's rows by
// id, each row's keys as the store shows them (id, then fields in declaration order). That is
// what makes an export of a SQLite store and of a PostgreSQL store holding the same rows the
// same bytes.

import type { Writable } from "node:stream";
import type { Catalog, CatalogType } from "../../model/app.js";
import type { StoreTx } from "../../model/store.js";
import { refPaths } from "../../model/ref-paths.js";
import { describeFieldType } from "../../model/type-desc.js";

/** The format's version: `format` in the header; an import refuses a newer one. */
export const exportFormat = 1;
const pageSize = 500;

export interface ExportHeader {
  wo: "export";
  format: number;
  app: string;
  types: { name: string; table: string; fields: string[] }[];
}

/** One line of a row: the type by its declared name, the row as the API shows it. */
export interface ExportRowLine {
  type: string;
  row: Record<string, unknown>;
}

export function exportHeader(catalog: Catalog): ExportHeader {
  return {
    wo: "export",
    format: exportFormat,
    app: catalog.app.name,
    types: typesInDependencyOrder(catalog).map((t) => ({
      name: t.name,
      table: t.table,
      fields: storedFields(t),
    })),
  };
}

export function storedFields(type: CatalogType): string[] {
  return type.fields.filter((f) => f.isStored).map((f) => f.name);
}

/**
 * The types, each after the types its refs name (so an import meets a ref's target first),
 * else in declaration order; a cycle of refs (or a self-ref) is broken by declaration order.
 */
export function typesInDependencyOrder(catalog: Catalog): CatalogType[] {
  const byTable = new Map(catalog.types.map((t) => [t.table, t]));
  const needs = new Map<CatalogType, Set<CatalogType>>();
  for (const t of catalog.types) {
    const targets = new Set<CatalogType>();
    for (const f of t.fields.filter((f) => f.isStored))
      for (const p of refPaths(describeFieldType(f.type, catalog))) {
        const target = byTable.get(p.table);
        if (target && target !== t) targets.add(target);
      }
    needs.set(t, targets);
  }
  const done = new Set<CatalogType>();
  const order: CatalogType[] = [];
  while (order.length < catalog.types.length) {
    const remaining = catalog.types.filter((t) => !done.has(t));
    const next = remaining.find((t) => [...needs.get(t)!].every((n) => done.has(n))) ?? remaining[0]!;
    done.add(next);
    order.push(next);
  }
  return order;
}

/**
 * One JSON line. U+2028 and U+2029 are written escaped: JSON allows them raw, but some line
 * readers split on them.
 */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)}\n`;
}

/** Writes the export of what `tx` sees to `out`; resolves with the rows written per type. */
export async function writeExport(catalog: Catalog, tx: StoreTx, out: Writable): Promise<Map<string, number>> {
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", resolve));
  };
  const counts = new Map<string, number>();
  await write(jsonLine(exportHeader(catalog)));
  for (const type of typesInDependencyOrder(catalog)) {
    let n = 0;
    let after: number | undefined;
    for (;;) {
      const page = await tx.list(type.table, {
        ...(after !== undefined ? { after: { id: after } } : {}),
        limit: pageSize,
      });
      let chunk = "";
      for (const row of page) chunk += jsonLine({ type: type.name, row } satisfies ExportRowLine);
      if (chunk) await write(chunk);
      n += page.length;
      if (page.length < pageSize) break;
      after = page.at(-1)!.id as number;
    }
    counts.set(type.name, n);
  }
  return counts;
}
