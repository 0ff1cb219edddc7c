// `@check(…)` at run time (spec/language.md, "Checks"). Operation inputs are held to a check by
// their JSON Schema (compiler/emit/json-schema.ts); here, the wording of that schema error, and
// the enforcement on writes the schema never sees: a method's or fn's `insert` and `update`,
// which abort the call (409) naming the field (its path, inside a struct or a list's items:
// model/check-paths.ts), so its transaction rolls back. Tables without
// checks cost nothing: their writes are not wrapped, and an app without checks keeps its store.

// Type-only: the model arrives as app.json; nothing from compiler/ is loaded at run time.
import type { Catalog, CatalogType } from "../../model/app.js";
import type { OperationEntry } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import { checksWithin, firstBreak, pointerPattern, pointerText, valueAt } from "../../model/check-paths.js";
import { checkMessage, checkSchemaKeyword, type FieldCheck } from "../../model/field-check.js";
import type { Row, Store, StoreTx } from "../../model/store.js";

/** A checked field of an operation's input: the ajv keyword its check became, and what to say. */
export interface InputCheck {
  keyword: string;
  message: string;
}

/** Per create/update operation, by JSON pointer, the checks of its input's fields. */
export function inputCheckMessages(
  catalog: Catalog,
  operations: readonly OperationEntry[],
): Map<string, Map<string, InputCheck>> {
  const byType = new Map<string, Map<string, InputCheck>>();
  for (const t of catalog.types) {
    const checks = new Map<string, InputCheck>();
    for (const { pointer, check } of fieldChecks(t)) {
      checks.set(pointer, { keyword: checkSchemaKeyword(check).keyword, message: checkMessage(check) });
    }
    if (checks.size > 0) byType.set(t.name, checks);
  }
  const out = new Map<string, Map<string, InputCheck>>();
  for (const e of operations) {
    const checks = e.kind === "create" || e.kind === "update" ? byType.get(e.type) : undefined;
    if (checks) out.set(e.name, checks);
  }
  return out;
}

/**
 * A type's checks, each under the JSON pointer pattern of the values it holds: `/qty` for a
 * top-level field, `/inventory/on_hand` inside a struct, `/line_items/*` + `/qty` for each item.
 */
function fieldChecks(
  type: CatalogType,
): { field: string; path: readonly string[]; pointer: string; check: FieldCheck }[] {
  return type.fields.flatMap((f) =>
    [...(f.check ? [{ path: [], check: f.check }] : []), ...checksWithin(f.type)].map(({ path, check }) => ({
      field: f.name,
      path,
      pointer: `/${[f.name, ...path].join("/")}`,
      check,
    })),
  );
}

/** The check an input's value at `pointer` (ajv's instancePath) is held to, if any. */
export function inputCheckAt(checks: Map<string, InputCheck> | undefined, pointer: string): InputCheck | undefined {
  return checks?.get(pointerPattern(pointer));
}

type RowCheck = (values: Row) => void;

/** Each table's row check, built once: it throws "aborted" on the first value that breaks its check. */
function rowChecks(catalog: Catalog): Map<string, RowCheck> {
  const out = new Map<string, RowCheck>();
  for (const t of catalog.types) {
    const checked = fieldChecks(t);
    if (checked.length > 0) out.set(t.table, rowCheckOf(t, checked));
  }
  return out;
}

function rowCheckOf(type: CatalogType, checked: ReturnType<typeof fieldChecks>): RowCheck {
  return (values) => {
    for (const { field, path, check } of checked) {
      // An update's patch names only the fields it changes; the others were checked when written.
      if (!Object.hasOwn(values, field)) continue;
      const below = firstBreak(values[field], path, check);
      if (below === undefined) continue;
      const pointer = `/${field}${below}`;
      const message = checkMessage(check);
      throw new OperationError(
        "aborted",
        `${type.name}.${pointerText(pointer)} ${message}, and the call would store ${JSON.stringify(valueAt(values, pointer))}; nothing was written.`,
        [{ path: pointer, message }],
      );
    }
  };
}

/** `store`, whose write transactions refuse rows that break a check; `store` itself when no table has one. */
export function enforceFieldChecks(store: Store, catalog: Catalog): Store {
  const checks = rowChecks(catalog);
  if (checks.size === 0) return store;
  const checkedTx = (tx: StoreTx): StoreTx => ({
    get: (table, id, lock) => tx.get(table, id, lock),
    appendAudit: (record) => tx.appendAudit(record),
    appendEvent: (event) => tx.appendEvent(event),
    appendJob: (job) => tx.appendJob(job),
    list: (table, query) => tx.list(table, query),
    count: (table, query) => tx.count(table, query),
    insert: (table, values) => {
      checks.get(table)?.(values);
      return tx.insert(table, values);
    },
    insertWithId: (table, id, values) => {
      checks.get(table)?.(values);
      return tx.insertWithId(table, id, values);
    },
    update: (table, id, patch) => {
      checks.get(table)?.(patch);
      return tx.update(table, id, patch);
    },
    delete: (table, id) => tx.delete(table, id),
    savepoint: (fn) => tx.savepoint(fn),
    referrers: (table, id) => tx.referrers(table, id),
  });
  return { ...store, write: (fn, options) => store.write((tx) => fn(checkedTx(tx)), options) };
}
