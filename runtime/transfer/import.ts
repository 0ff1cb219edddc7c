// `wo import`: the lines of a `wo export` into an empty store, in one write transaction, so an
// import is all of the file or nothing of it (spec/operations.md, "Export and import").
//
// Each row is validated as a create would validate it (the create operation's validator, on
// the fields a create accepts, where the type exposes create), and whole against its row
// schema (every stored field, @readonly ones and link endpoints included, which are imported
// as stored). Ids are kept (StoreTx.insertWithId), so refs point at the rows they pointed at;
// every ref must name a row of the import (the store was empty), checked once all rows are in,
// since a cycle of refs cannot be ordered. Memory holds the ids and refs seen, not the rows.

import type { CatalogType } from "../../model/app.js";
import type { AppContract, OperationRuntime } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import { ownerPrincipal } from "../../model/principal.js";
import { idsAlong } from "../../model/ref-paths.js";
import { StoreConstraintError, type Row, type Store } from "../../model/store.js";
import { refColumnsByTable } from "../operations/runtime.js";
import { acceptedNames } from "../operations/input-checks.js";
import { exportFormat, storedFields, type ExportHeader } from "./export.js";

/** A line of the input that cannot be imported; `line` 0 is about the store, not the input. */
export class ImportError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(line > 0 ? `line ${line}: ${message}` : message);
  }
}

export interface ImportOptions {
  catalog: AppContract;
  store: Store;
  /** Validates with the build's validators (runtime/operations/runtime.ts). */
  rt: OperationRuntime;
  /** The name under which `rt.validate` checks a whole stored row of `table`. */
  rowValidator: (table: string) => string;
  lines: AsyncIterable<string>;
}

interface PendingRef {
  line: number;
  at: string;
  target: string;
  id: unknown;
}

/** Imports every line; resolves with the rows imported per type, in the file's order of types. */
export async function importRows(options: ImportOptions): Promise<Map<string, number>> {
  const { catalog, store, rt } = options;
  await assertEmpty(catalog, store);
  const byName = new Map(catalog.types.map((t) => [t.name, t]));
  const byTable = new Map(catalog.types.map((t) => [t.table, t]));
  const createOf = new Map(catalog.operations.filter((o) => o.kind === "create").map((o) => [o.type, o.name] as const));
  const accepted = acceptedNames(catalog.operations);
  const refColumns = refColumnsByTable(catalog);

  return store.write(async (tx) => {
    const counts = new Map<string, number>();
    const ids = new Map<string, Set<number>>(catalog.types.map((t) => [t.table, new Set<number>()]));
    const refs: PendingRef[] = [];
    let n = 0;
    let sawHeader = false;
    for await (const text of options.lines) {
      n++;
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new ImportError(n, `not JSON (${(err as Error).message})`);
      }
      if (!sawHeader) {
        checkHeader(value, catalog, n);
        sawHeader = true;
        continue;
      }
      const { type, row } = rowLine(value, byName, n);
      const create = createOf.get(type.name);
      const fields = `${type.name}.`;
      try {
        if (create !== undefined) {
          const names = accepted.get(create) ?? new Set<string>();
          rt.validate(create, Object.fromEntries(Object.entries(row).filter(([k]) => names.has(k))));
        }
        rt.validate(options.rowValidator(type.table), row);
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        const detail = err.details?.[0];
        if (!detail) throw new ImportError(n, `${type.name}: ${err.message}`);
        throw new ImportError(n, `${fieldLabel(fields, detail.path)}: ${detail.message}`);
      }
      const { id, ...values } = row as Row & { id: number };
      try {
        await tx.insertWithId(type.table, id, values);
      } catch (err) {
        if (!(err instanceof StoreConstraintError)) throw err;
        if (err.fields.length === 1 && err.fields[0] === "id")
          throw new ImportError(n, `${type.name}.id: another ${type.name} of the import has id ${id}`);
        throw new ImportError(
          n,
          `${fields}${err.fields.join(", ")}: another ${type.name} of the import has this value; it must be unique`,
        );
      }
      ids.get(type.table)!.add(id);
      for (const { column, paths } of refColumns.get(type.table) ?? [])
        for (const { table: target, steps } of paths)
          for (const { pointer, id: ref } of idsAlong(row[column], steps, `/${column}`))
            refs.push({ line: n, at: fieldLabel(fields, pointer), target, id: ref });
      counts.set(type.name, (counts.get(type.name) ?? 0) + 1);
    }
    if (!sawHeader) throw new ImportError(0, "the input is empty: expected the lines of a `wo export`");
    for (const r of refs) {
      if (typeof r.id === "number" && ids.get(r.target)?.has(r.id)) continue;
      const target = byTable.get(r.target)?.name ?? r.target;
      throw new ImportError(r.line, `${r.at}: no ${target} with id ${JSON.stringify(r.id)} in the import`);
    }
    // One audit entry for the whole import (spec/operations.md, "Audit trail"), committed with it.
    await tx.appendAudit({
      at: new Date().toISOString(),
      principal: ownerPrincipal.name,
      user: null,
      role: null,
      via: ownerPrincipal.via,
      surface: "cli",
      operation: "(import)",
      type: null,
      rowId: null,
      outcome: "ok",
    });
    return counts;
  });
}

/** `Post.meta.words` from `/meta/words`; the type alone for the row itself. */
function fieldLabel(prefix: string, pointer: string): string {
  const path = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
  return path ? `${prefix}${path}` : prefix.slice(0, -1);
}

async function assertEmpty(catalog: AppContract, store: Store): Promise<void> {
  const held = await store.read(async (tx) => {
    const out: string[] = [];
    for (const t of catalog.types) {
      const n = await tx.count(t.table);
      if (n > 0) out.push(`${t.table} (${n} ${n === 1 ? "row" : "rows"})`);
    }
    return out;
  });
  if (held.length > 0)
    throw new ImportError(
      0,
      `the store is not empty: ${held.join(", ")}; import only into an empty store (a new data folder or database)`,
    );
}

function checkHeader(value: unknown, catalog: AppContract, n: number): void {
  const h = value as Partial<ExportHeader> | null;
  if (h === null || typeof h !== "object" || h.wo !== "export")
    throw new ImportError(n, 'expected the header of a `wo export` ({"wo":"export",…}) as the first line');
  if (typeof h.format !== "number" || h.format > exportFormat)
    throw new ImportError(n, `the export has format ${String(h.format)}; this wo reads format ${exportFormat}`);
  for (const t of Array.isArray(h.types) ? h.types : []) {
    const here = catalog.types.find((c) => c.name === t?.name);
    if (!here) throw new ImportError(n, `the export has type ${String(t?.name)}, which these .wo files do not declare`);
    const mine = storedFields(here);
    const theirs = Array.isArray(t.fields) ? t.fields : [];
    if (mine.join("\u0000") !== theirs.join("\u0000"))
      throw new ImportError(
        n,
        `type ${here.name} has the fields ${theirs.join(", ")} in the export but ${mine.join(", ")} here; export and import with the same .wo files`,
      );
  }
}

function rowLine(value: unknown, byName: Map<string, CatalogType>, n: number): { type: CatalogType; row: Row } {
  const v = value as { type?: unknown; row?: unknown } | null;
  if (v === null || typeof v !== "object" || typeof v.type !== "string")
    throw new ImportError(n, 'expected a row line: {"type":"…","row":{…}}');
  const type = byName.get(v.type);
  if (!type) throw new ImportError(n, `these .wo files declare no type ${JSON.stringify(v.type)}`);
  if (v.row === null || typeof v.row !== "object" || Array.isArray(v.row))
    throw new ImportError(n, `${type.name}: "row" must be an object`);
  return { type, row: v.row as Row };
}
