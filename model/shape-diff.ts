// Old storage shape vs new → a list of changes, each in words, each classified:
//   additive     applied automatically (new table/field/index, a widened type, or a change
//                that the stored data shows loses nothing, e.g. removing a field no row uses)
//   destructive  would drop or narrow stored data; applied only with --allow-destructive-migration
//   blocked      cannot be applied to the stored data at all (a new @unique over duplicates)
// The rules are data-aware: the probe counts the rows a change would touch, so a change is
// refused only when stored data would really be lost or left invalid. Executing the steps is
// each store's job (SQLite: runtime/store/migrate.ts); this module only reads, through the
// probe, so every store shares the same rules and the same words.

import { fieldTypeText } from "./field-type-text.js";
import {
  metaTable,
  shapeFormat,
  valueKind,
  type ColumnShape,
  type IndexShape,
  type SearchShape,
  type StorageShape,
  type StoredDefault,
  type TableShape,
} from "./storage-shape.js";
import type { TypeDesc } from "./type-desc.js";
import { MigrationRefusedError, StoreOpenError, type MigrationPlan, type MigrationReport } from "./store.js";
import { counted } from "./words.js";
import { type CheckAt, firstBreak } from "./check-paths.js";
import { describeCheck, type FieldCheck } from "./field-check.js";

export type Severity = "additive" | "destructive" | "blocked";

export type Step =
  | { op: "createTable"; table: TableShape }
  | { op: "dropTable"; table: string }
  | { op: "renameTable"; from: string; to: string }
  | { op: "renameColumn"; table: string; from: string; to: string }
  | { op: "addColumn"; table: string; column: ColumnShape; fill?: StoredDefault }
  | { op: "dropColumn"; table: string; column: string }
  | { op: "fillNulls"; table: string; column: ColumnShape; fill: StoredDefault }
  | { op: "replaceValues"; table: string; column: ColumnShape; values: string[]; fill?: StoredDefault }
  | { op: "dropIndex"; index: IndexShape }
  | { op: "createIndex"; table: string; index: IndexShape }
  /** Drops a full-text index (SearchShape); first, as its column triggers would hold up a column's drop. */
  | { op: "dropSearch"; table: string; search: SearchShape }
  /** Builds a full-text index and fills it from the rows stored; last, once the columns are in place. */
  | { op: "createSearch"; table: string; search: SearchShape };

export interface Change {
  severity: Severity;
  text: string;
  steps: Step[];
}

/** Read-only questions about the stored data, asked inside the migration transaction. */
export interface DataProbe {
  rowCount(table: string): Promise<number>;
  nonNullCount(table: string, column: string): Promise<number>;
  nullCount(table: string, column: string): Promise<number>;
  countIn(table: string, column: string, values: string[]): Promise<number>;
  /** How many distinct non-null values (compared under `collation`) occur in more than one row. */
  duplicateCount(table: string, column: string, collation?: "nocase"): Promise<number>;
  /** The rows whose non-null value breaks `check`: how many, and the first `shownIds` of their ids, ascending. */
  checkViolations(table: string, column: string, check: FieldCheck): Promise<{ count: number; ids: number[] }>;
  /** Every row's non-null value of a struct or list column, decoded, in ascending id order. */
  storedValues(table: string, column: string): Promise<{ id: number; value: unknown }[]>;
}

/** How many ids of violating rows a refused check names. */
export const shownIds = 5;

export async function diffShapes(old: StorageShape, next: StorageShape, probe: DataProbe): Promise<Change[]> {
  const changes: Change[] = [];
  const oldByTable = new Map(old.tables.map((t) => [t.table, t] as const));
  const matched = new Set<string>();

  for (const t of next.tables) {
    let before = oldByTable.get(t.table);
    if (before === undefined) {
      // A type that keeps its name (or names the one it had: @renamed_from) but moves to another
      // table is a rename, not drop + create.
      before = old.tables.find(
        (o) =>
          (o.typeName === t.typeName || o.typeName === t.renamedFrom) && !next.tables.some((n) => n.table === o.table),
      );
      if (before === undefined) {
        changes.push({
          severity: "additive",
          text: `new type '${t.typeName}' (table '${t.table}')`,
          steps: createSteps(t),
        });
        continue;
      }
      const rows = await probe.rowCount(before.table);
      // Declared, the move is what the author asked for; undeclared, it may be a mistake.
      const declared = before.typeName !== t.typeName;
      changes.push({
        severity: rows > 0 && !declared ? "destructive" : "additive",
        text: declared
          ? `type '${before.typeName}' is renamed '${t.typeName}' (@renamed_from): table '${before.table}' becomes '${t.table}'${rows > 0 ? `, its ${counted(rows, "row")} kept` : ""}`
          : `type '${t.typeName}' moves from table '${before.table}' to table '${t.table}'${rows > 0 ? ` (${counted(rows, "row")} would move with it)` : ""}`,
        steps: [
          ...before.indexes.map((index) => ({ op: "dropIndex" as const, index })),
          { op: "renameTable", from: before.table, to: t.table },
        ],
      });
    }
    matched.add(before.table);
    changes.push(...(await diffTable(before, t, probe)));
  }

  for (const o of old.tables) {
    if (matched.has(o.table)) continue;
    const rows = await probe.rowCount(o.table);
    changes.push({
      severity: rows > 0 ? "destructive" : "additive",
      text:
        rows > 0
          ? `type '${o.typeName}' was removed: its table '${o.table}' holds ${counted(rows, "row")} that would be deleted`
          : `type '${o.typeName}' was removed (its table '${o.table}' is empty)`,
      steps: [
        ...(o.search ? [{ op: "dropSearch" as const, table: o.table, search: o.search }] : []),
        { op: "dropTable", table: o.table },
      ],
    });
  }
  return changes;
}

/** A new table's steps: the table, its indexes, its full-text index. */
function createSteps(t: TableShape): Step[] {
  return [
    { op: "createTable", table: t },
    ...t.indexes.map((index) => ({ op: "createIndex" as const, table: t.table, index })),
    ...(t.search ? [{ op: "createSearch" as const, table: t.table, search: t.search }] : []),
  ];
}

/**
 * `@search` added, removed or over other fields (a renamed table or column too): the index is
 * dropped and built again from the stored rows. A change to a searched column's values alone
 * needs nothing: the index follows every write (SQLite's triggers, PostgreSQL's generated column).
 */
function diffSearch(before: TableShape, after: TableShape): Change[] {
  const o = before.search;
  const n = after.search;
  const same =
    o !== undefined &&
    n !== undefined &&
    before.table === after.table &&
    o.sqlName === n.sqlName &&
    o.columns.length === n.columns.length &&
    o.columns.every((c, i) => c === n.columns[i]);
  if (same || (o === undefined && n === undefined)) return [];
  const fields = (s: SearchShape) => s.columns.map((c) => `'${after.typeName}.${c}'`).join(", ");
  const steps: Step[] = [];
  if (o) steps.push({ op: "dropSearch", table: before.table, search: o });
  if (n) steps.push({ op: "createSearch", table: after.table, search: n });
  const text = !n
    ? `@search removed from '${after.typeName}': its full-text index is dropped`
    : o
      ? `full-text index of '${after.typeName}' rebuilt over ${fields(n)}`
      : `new full-text index of '${after.typeName}' over ${fields(n)}, filled from the stored rows`;
  return [{ severity: "additive", text, steps }];
}

/** `before` may live under another table name (a rename): probes read `before.table`. */
async function diffTable(before: TableShape, after: TableShape, probe: DataProbe): Promise<Change[]> {
  const changes: Change[] = [];
  const name = (c: { name: string }) => `'${after.typeName}.${c.name}'`;
  const table = after.table;
  const oldColumns = new Map(before.columns.map((c) => [c.name, c] as const));
  const newColumns = new Map(after.columns.map((c) => [c.name, c] as const));
  const rows = () => probe.rowCount(before.table);
  /** Columns whose stored values are replaced wholesale: their indexes must be rebuilt. */
  const rewritten = new Set<string>();
  /** New column name → the old one it is renamed from (@renamed_from), values kept. */
  const renames = new Map<string, string>();
  for (const c of after.columns) {
    const from = c.renamedFrom;
    if (from !== undefined && !oldColumns.has(c.name) && oldColumns.has(from) && !newColumns.has(from))
      renames.set(c.name, from);
  }

  for (const c of after.columns) {
    const renamedFrom = renames.get(c.name);
    if (renamedFrom !== undefined) {
      const n = await probe.nonNullCount(before.table, renamedFrom);
      changes.push({
        severity: "additive",
        text: `field '${after.typeName}.${renamedFrom}' is renamed '${c.name}' (@renamed_from)${n > 0 ? `, its ${counted(n, "value")} kept` : ""}`,
        steps: [{ op: "renameColumn", table, from: renamedFrom, to: c.name }],
      });
      changes.push(
        ...(await diffColumn(oldColumns.get(renamedFrom)!, c, name(c), before.table, table, probe, rewritten)),
      );
      continue;
    }
    const o = oldColumns.get(c.name);
    if (o === undefined) {
      rewritten.add(c.name);
      const add: Step = { op: "addColumn", table, column: c, ...(c.default ? { fill: c.default } : {}) };
      if (c.isOptional) changes.push({ severity: "additive", text: `new optional field ${name(c)}`, steps: [add] });
      else if (c.default)
        changes.push({
          severity: "additive",
          text: `new field ${name(c)}; existing rows get its default ${defaultText(c.default)}`,
          steps: [add],
        });
      else {
        const n = await rows();
        changes.push(
          n === 0
            ? { severity: "additive", text: `new required field ${name(c)}`, steps: [add] }
            : {
                severity: "destructive",
                text: `new required field ${name(c)} has no default, and the ${counted(n, "existing row")} would have no value for it`,
                steps: [add],
              },
        );
      }
      continue;
    }
    changes.push(...(await diffColumn(o, c, name(c), before.table, table, probe, rewritten)));
  }

  const renamedAway = new Set(renames.values());
  for (const o of before.columns) {
    if (newColumns.has(o.name) || renamedAway.has(o.name)) continue;
    rewritten.add(o.name);
    const n = await probe.nonNullCount(before.table, o.name);
    const text = `field '${after.typeName}.${o.name}' was removed`;
    changes.push(
      n === 0
        ? {
            severity: "additive",
            text: `${text} (no row had a value for it)`,
            steps: [{ op: "dropColumn", table, column: o.name }],
          }
        : {
            severity: "destructive",
            text: `${text}: ${counted(n, "row")} hold a value for it that would be deleted`,
            steps: [{ op: "dropColumn", table, column: o.name }],
          },
    );
  }

  changes.push(...(await diffIndexes(before, after, probe, rewritten, renames)));
  changes.push(...diffSearch(before, after));
  return changes;
}

async function diffColumn(
  o: ColumnShape,
  c: ColumnShape,
  name: string,
  probeTable: string,
  table: string,
  probe: DataProbe,
  rewritten: Set<string>,
): Promise<Change[]> {
  const changes: Change[] = [];
  if (!sameType(o.type, c.type)) {
    if (o.type.kind === "union" && c.type.kind === "union") {
      const removed = o.type.variants.filter((v) => !(c.type as { variants: string[] }).variants.includes(v));
      if (removed.length === 0) {
        changes.push({
          severity: "additive",
          text: `field ${name} now also allows ${quoteList(c.type.variants.filter((v) => !(o.type as { variants: string[] }).variants.includes(v)))}`,
          steps: [],
        });
      } else {
        const n = await probe.countIn(probeTable, o.name, removed);
        const fill =
          c.default?.kind === "literal" &&
          typeof c.default.value === "string" &&
          c.type.variants.includes(c.default.value)
            ? c.default
            : undefined;
        changes.push(
          n === 0
            ? {
                severity: "additive",
                text: `field ${name} no longer allows ${quoteList(removed)} (no row uses ${removed.length === 1 ? "it" : "them"})`,
                steps: [],
              }
            : {
                severity: "destructive",
                text: `field ${name} no longer allows ${quoteList(removed)}, but ${counted(n, "row")} use ${removed.length === 1 ? "it" : "them"} (they would be set to ${fill ? defaultText(fill) : "no value"})`,
                steps: [{ op: "replaceValues", table, column: c, values: removed, ...(fill ? { fill } : {}) }],
              },
        );
      }
    } else if (isWidening(o.type, c.type)) {
      changes.push({
        severity: "additive",
        text: `field ${name} widens from ${fieldTypeText(o.type)} to ${fieldTypeText(c.type)}`,
        steps: [],
      });
    } else {
      const n = await probe.nonNullCount(probeTable, o.name);
      const isSameStorage = valueKind(o.type) === valueKind(c.type);
      // Same storage (Text → Slug, a narrowed struct): values stay as they are. Otherwise the
      // column is rebuilt and old values go (they would not decode as the new type).
      const steps: Step[] = isSameStorage
        ? []
        : [
            // By its new name: a rename (@renamed_from) has run before this step.
            { op: "dropColumn", table, column: c.name },
            { op: "addColumn", table, column: c, ...(c.default ? { fill: c.default } : {}) },
          ];
      if (!isSameStorage) rewritten.add(c.name);
      const what = `field ${name} changes type from ${fieldTypeText(o.type)} to ${fieldTypeText(c.type)}`;
      changes.push(
        n === 0
          ? { severity: "additive", text: `${what} (no row had a value for it)`, steps }
          : {
              severity: "destructive",
              text: isSameStorage
                ? `${what}: ${counted(n, "stored value")} would be kept unchecked and may not be valid ${fieldTypeText(c.type)}`
                : `${what}: ${counted(n, "stored value")} would be discarded`,
              steps,
            },
      );
    }
  }
  if (o.isOptional && !c.isOptional && !rewritten.has(c.name)) {
    const n = await probe.nullCount(probeTable, o.name);
    if (n === 0)
      changes.push({ severity: "additive", text: `field ${name} became required (every row has a value)`, steps: [] });
    else
      changes.push({
        severity: "destructive",
        text: `field ${name} became required, but ${counted(n, "row")} have no value for it${c.default ? ` (they would get the default ${defaultText(c.default)})` : " (they would stay empty)"}`,
        steps: c.default ? [{ op: "fillNulls", table, column: c, fill: c.default }] : [],
      });
  }
  changes.push(...(await diffCheck(o, c, name, probeTable, probe, rewritten)));
  changes.push(...(await diffInnerChecks(o, c, name, probeTable, probe, rewritten)));
  return changes;
}

/**
 * A new or changed `@check` holds on the stored rows or is blocked, naming how many break it and
 * the first ids (nothing is changed for it: the check lives in the schemas and the runtime, not
 * in the database). A removed check, or one every row passes (a loosened one), is additive.
 */
async function diffCheck(
  o: ColumnShape,
  c: ColumnShape,
  name: string,
  probeTable: string,
  probe: DataProbe,
  rewritten: Set<string>,
): Promise<Change[]> {
  if (sameCheck(o.check, c.check)) return [];
  if (c.check === undefined)
    return [
      { severity: "additive", text: `field ${name} no longer has @check(${describeCheck(o.check!)})`, steps: [] },
    ];
  const what = `@check(${describeCheck(c.check)}) on ${name}`;
  // A column rebuilt by this migration holds no old values to break it.
  if (rewritten.has(c.name)) return [blockedOrAdditive(what, 0, [], true)];
  const { count, ids } = await probe.checkViolations(probeTable, o.name, c.check);
  return [blockedOrAdditive(what, count, ids, false)];
}

/**
 * The checks on fields inside a struct or list column (`inventory.on_hand`, `line_items[*].qty`),
 * as diffCheck does for the column's own: a new one is probed against the stored values (read
 * and held to it as the runtime does, model/check-paths.ts) and blocked when some row breaks it.
 */
async function diffInnerChecks(
  o: ColumnShape,
  c: ColumnShape,
  name: string,
  probeTable: string,
  probe: DataProbe,
  rewritten: Set<string>,
): Promise<Change[]> {
  const key = (at: CheckAt) => at.path.join("/");
  const before = new Map((o.innerChecks ?? []).map((at) => [key(at), at.check] as const));
  const after = new Map((c.innerChecks ?? []).map((at) => [key(at), at] as const));
  // 'Product.inventory' and the path below it: 'Product.inventory.on_hand', 'Order.lines[*].qty'.
  const named = (path: readonly string[]) =>
    `${name.slice(0, -1)}${path.map((step) => (step === "*" ? "[*]" : `.${step}`)).join("")}'`;
  const changes: Change[] = [];
  for (const [k, check] of before) {
    if (!after.has(k))
      changes.push({
        severity: "additive",
        text: `field ${named(k.split("/"))} no longer has @check(${describeCheck(check)})`,
        steps: [],
      });
  }
  const added = [...after.values()].filter((at) => !sameCheck(before.get(key(at)), at.check));
  if (added.length === 0) return changes;
  // A column rebuilt by this migration holds no old values to break them.
  const stored = rewritten.has(c.name) ? [] : await probe.storedValues(probeTable, o.name);
  for (const { path, check } of added) {
    const what = `@check(${describeCheck(check)}) on ${named(path)}`;
    const breaking = stored.filter((row) => firstBreak(row.value, path, check) !== undefined).map((row) => row.id);
    changes.push(blockedOrAdditive(what, breaking.length, breaking.slice(0, shownIds), rewritten.has(c.name)));
  }
  return changes;
}

/** A new check that `count` stored rows break (the first of them `ids`), or none. */
function blockedOrAdditive(what: string, count: number, ids: number[], isRewritten: boolean): Change {
  if (isRewritten) return { severity: "additive", text: `new ${what}`, steps: [] };
  if (count === 0) return { severity: "additive", text: `new ${what} (every row passes it)`, steps: [] };
  const shown = ids.join(", ") + (count > ids.length ? ", …" : "");
  return {
    severity: "blocked",
    text: `cannot add ${what}: ${counted(count, "row")} break${count === 1 ? "s" : ""} it (id${ids.length === 1 ? "" : "s"} ${shown}); change ${count === 1 ? "its value" : "their values"} first`,
    steps: [],
  };
}

function sameCheck(a: FieldCheck | undefined, b: FieldCheck | undefined): boolean {
  return a?.op === b?.op && a?.value === b?.value;
}

async function diffIndexes(
  before: TableShape,
  after: TableShape,
  probe: DataProbe,
  rewritten: Set<string>,
  renames: ReadonlyMap<string, string>,
): Promise<Change[]> {
  const changes: Change[] = [];
  const isRenamed = before.table !== after.table;
  const oldByName = new Map(before.indexes.map((i) => [i.sqlName, i] as const));
  const kept = new Set<string>();
  for (const ix of after.indexes) {
    const o = oldByName.get(ix.sqlName);
    const touchesRewritten = ix.columns.some((c) => rewritten.has(c));
    if (o && sameIndex(o, ix) && !touchesRewritten && !isRenamed) {
      kept.add(o.sqlName);
      continue;
    }
    const isRebuild = o !== undefined && sameIndex(o, ix);
    const steps: Step[] = [];
    if (o && !isRenamed) steps.push({ op: "dropIndex", index: o });
    if (o) kept.add(o.sqlName);
    steps.push({ op: "createIndex", table: after.table, index: ix });
    const what = ix.isUnique
      ? `@unique on '${after.typeName}.${ix.columns[0]}'`
      : `index '${ix.sqlName}' on ${after.typeName}(${ix.columns.join(", ")})`;
    // Databases made before unique Emails ignored case get their index rebuilt with NOCASE.
    const recollated = o !== undefined && !isRebuild && sameIndex({ ...o, collation: ix.collation }, ix);
    const problem =
      ix.isUnique && !isRebuild ? await uniqueProblem(before, after, ix, probe, rewritten, renames) : undefined;
    const change = recollated
      ? `make ${what} ${ix.collation === "nocase" ? "ignore case" : "compare case"}`
      : `add ${what}`;
    if (problem) changes.push({ severity: "blocked", text: `cannot ${change}: ${problem}`, steps });
    else
      changes.push({
        severity: "additive",
        text: isRebuild
          ? `rebuilt ${what}`
          : recollated
            ? `${what} now ${ix.collation === "nocase" ? "ignores case" : "compares case"}`
            : `new ${what}`,
        steps,
      });
  }
  for (const o of before.indexes) {
    if (kept.has(o.sqlName)) continue;
    const what = o.isUnique
      ? `@unique removed from '${after.typeName}.${o.columns[0]}'`
      : `index '${o.sqlName}' removed`;
    // A renamed table's indexes were dropped with the rename step already.
    changes.push({ severity: "additive", text: what, steps: isRenamed ? [] : [{ op: "dropIndex", index: o }] });
  }
  return changes;
}

async function uniqueProblem(
  before: TableShape,
  after: TableShape,
  ix: IndexShape,
  probe: DataProbe,
  rewritten: Set<string>,
  renames: ReadonlyMap<string, string>,
): Promise<string | undefined> {
  const column = ix.columns[0]!;
  if (rewritten.has(column)) {
    // A new (or rebuilt) column is filled with one value for every row.
    const c = after.columns.find((x) => x.name === column);
    const rows = await probe.rowCount(before.table);
    if (c?.default && !(c.default.kind === "literal" && c.default.value === null) && rows > 1) {
      return `the ${counted(rows, "existing row")} would all get the same default ${defaultText(c.default)}`;
    }
    return undefined;
  }
  // The probe reads the stored table, where a renamed column still has its old name.
  const dups = await probe.duplicateCount(before.table, renames.get(column) ?? column, ix.collation);
  const how = ix.collation === "nocase" ? " (ignoring case)" : "";
  return dups > 0
    ? `${counted(dups, "value")} ${dups === 1 ? "occurs" : "occur"} more than once in the stored rows${how}`
    : undefined;
}

function sameIndex(a: IndexShape, b: IndexShape): boolean {
  return (
    a.isUnique === b.isUnique &&
    a.collation === b.collation &&
    a.columns.length === b.columns.length &&
    a.columns.every((c, i) => c === b.columns[i])
  );
}

export function sameType(a: TypeDesc, b: TypeDesc): boolean {
  return isWidening(a, b) && isWidening(b, a);
}

/** Every value valid for `from` is valid for `to`. */
export function isWidening(from: TypeDesc, to: TypeDesc): boolean {
  switch (from.kind) {
    case "scalar":
      return to.kind === "scalar" && to.scalar === from.scalar;
    case "ref":
      return to.kind === "ref" && to.table === from.table;
    case "union":
      return to.kind === "union" && from.variants.every((v) => to.variants.includes(v));
    case "array":
      return to.kind === "array" && isWidening(from.element, to.element);
    case "json":
      return to.kind === "json";
    case "struct": {
      if (to.kind !== "struct") return false;
      const toFields = new Map(to.fields.map((f) => [f.name, f] as const));
      const fromNames = new Set(from.fields.map((f) => f.name));
      const keepsOld = from.fields.every((f) => {
        const t = toFields.get(f.name);
        return t !== undefined && isWidening(f.type, t.type) && (t.isOptional || !f.isOptional);
      });
      return keepsOld && to.fields.every((f) => fromNames.has(f.name) || f.isOptional);
    }
  }
}

function defaultText(d: StoredDefault): string {
  return d.kind === "now" ? "now()" : JSON.stringify(d.value);
}

function quoteList(values: string[]): string {
  return values.map((v) => `'${v}'`).join(", ");
}

/**
 * The changes that take a database holding `stored` (undefined: a new, empty one) to `next`:
 * every table created for a new database, else the diff. Throws MigrationRefusedError naming
 * `where` when a change is blocked, or destructive without `allowDestructive`: nothing is
 * applied then. Every store plans with this and applies the steps in its own dialect.
 */
export async function planMigration(
  stored: StorageShape | undefined,
  next: StorageShape,
  probe: DataProbe,
  where: string,
  options: { allowDestructive: boolean },
): Promise<Change[]> {
  const changes = await migrationChanges(stored, next, probe);
  const refusal = refusalOf(changes, where, options);
  if (refusal) throw refusal;
  return changes;
}

/** Every change from `stored` (undefined: a new, empty database) to `next`, refused or not. */
export async function migrationChanges(
  stored: StorageShape | undefined,
  next: StorageShape,
  probe: DataProbe,
): Promise<Change[]> {
  return stored === undefined
    ? next.tables.map((t) => ({
        severity: "additive" as const,
        text: `created table '${t.table}' for type '${t.typeName}'`,
        steps: createSteps(t),
      }))
    : await diffShapes(stored, next, probe);
}

/** Why these changes may not be applied (blocked, or destructive without leave); undefined when they may. */
export function refusalOf(
  changes: readonly Change[],
  where: string,
  options: { allowDestructive: boolean },
): MigrationRefusedError | undefined {
  const blocked = changes.filter((c) => c.severity === "blocked").map((c) => c.text);
  const destructive = changes.filter((c) => c.severity === "destructive").map((c) => c.text);
  if (blocked.length > 0 || (destructive.length > 0 && !options.allowDestructive))
    return new MigrationRefusedError(where, options.allowDestructive ? [] : destructive, blocked);
  return undefined;
}

/**
 * The plan of `changes` (model/store.ts MigrationPlan), once a store has run the steps of the
 * changes that are not blocked, recording `statements`, and rolled them back.
 */
export function migrationPlan(
  changes: readonly Change[],
  statements: MigrationPlan["statements"],
  where: string,
  options: { allowDestructive: boolean },
): MigrationPlan {
  const refusal = refusalOf(changes, where, options);
  return {
    where,
    changes: changes.map((c) => ({ severity: c.severity, text: c.text })),
    statements,
    ...(refusal ? { refusal: refusal.message } : {}),
  };
}

/**
 * Whether the stored shape must be written again after applying `changes`. `texts`, when the
 * caller has them (the stored row's text and `JSON.stringify(next)`), are compared instead of
 * serialising both shapes again: on a 1,000-type app that is a tenth of a second per start.
 */
export function shapeChanged(
  stored: StorageShape | undefined,
  next: StorageShape,
  changes: readonly Change[],
  texts?: { stored: string | undefined; next: string },
): boolean {
  if (stored === undefined || changes.length > 0) return true;
  return texts ? texts.stored !== texts.next : JSON.stringify(stored) !== JSON.stringify(next);
}

/** What a migration that applied `changes` reports. */
export function appliedReport(changes: readonly Change[]): MigrationReport {
  return {
    applied: changes.map((c) =>
      c.severity === "destructive" ? `${c.text} (applied: --allow-destructive-migration)` : c.text,
    ),
    refused: [],
  };
}

/**
 * The stored shape from the text of its row in `_wo_meta` (undefined: the row is missing),
 * refused with the reason when it is damaged or was written by a newer wo. `where` names the
 * database in the message.
 */
export function parseStoredShape(text: string | undefined, where: string): StorageShape {
  let shape: StorageShape | undefined;
  try {
    shape = text === undefined ? undefined : (JSON.parse(text) as StorageShape);
  } catch {
    shape = undefined;
  }
  if (shape === undefined || !Array.isArray(shape.tables)) {
    throw new StoreOpenError(`${where} has a damaged storage description (${metaTable}); restore it from a backup.`);
  }
  if (shape.format > shapeFormat) {
    throw new StoreOpenError(
      `${where} was written by a newer wo (storage format ${shape.format}); upgrade wo to open it.`,
    );
  }
  return shape;
}

// Phases, so that each step finds what it needs: an index must go before its column can be
// dropped, a table must be renamed before its columns change, indexes come last.
const phase: Record<Step["op"], number> = {
  dropSearch: 0,
  dropIndex: 0,
  renameTable: 1,
  dropTable: 1,
  renameColumn: 2,
  createTable: 2,
  dropColumn: 3,
  addColumn: 4,
  fillNulls: 5,
  replaceValues: 5,
  createIndex: 6,
  createSearch: 7,
};

/** `steps` in the order a store applies them: by phase, then as planned. */
export function orderedSteps(steps: readonly Step[]): Step[] {
  return steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => phase[a.s.op] - phase[b.s.op] || a.i - b.i)
    .map(({ s }) => s);
}
