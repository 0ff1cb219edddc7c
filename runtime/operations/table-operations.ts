// CRUD and relation operations, implemented once and driven by the operations table
// (model/build-contract.ts `OperationEntry`): `list`, `get`, `create`, `update`, `delete`, and a
// relation's read, link and unlink (spec/rest.md "Relations"). Each entry is bound once, at
// startup, to what it needs of the model — its table, the create defaults, whether its fields
// can hold refs — so a call does no lookup by name.
//
// A body here receives input that has passed the operation's schema and the policy's action
// check and holds a concurrency slot (runtime/operations/bind.ts); a write of a type with
// policy lines checks its rows in its own transaction with the RowGuard (policy.ts). Every write commits in `rt.store.write`: the
// one place an operation's transaction commits, for these bodies and generated ones alike.

import { isFilledWhenOmitted, type CatalogType, type CatalogField } from "../../model/app.js";
import type { AppContract, CallContext, OperationEntry, OperationRuntime } from "../../model/build-contract.js";
import { relationsOf } from "../../model/relations.js";
import type { Row, StoreTx, WriteOptions } from "../../model/store.js";
import { typesByName } from "../../model/type-index.js";
import { OperationError } from "../../model/errors.js";
import { readableRow, readFilterOf } from "./read-policy.js";
import type { RowGuard } from "./policy.js";
import { asInputError } from "./row-exprs.js";

/** readableRow runs one statement (read-policy.ts). */
const oneStatement = { oneStatement: true };

/** What an operation does once admitted: its input has passed the schema. */
export type OperationBody = (data: Row, call: CallContext) => Promise<unknown>;

/** Whether the runtime runs `entry` from the table (otherwise operations.js has its handler). */
export function isTableDriven(entry: OperationEntry): boolean {
  return entry.kind !== "method";
}

/**
 * The body of a table-driven entry. `hasRefs(table)` tells whether a write to `table` can name
 * a missing row, so writes to ref-free types skip the check entirely. `guard`: the row checks of
 * the type's policy lines (none: every row may be written).
 */
export function tableOperationBody(
  app: AppContract,
  entry: OperationEntry,
  rt: OperationRuntime,
  hasRefs: (table: string) => boolean,
  guard?: RowGuard,
): OperationBody {
  const type = typesByName(app).get(entry.type);
  if (!type) throw new Error(`internal error: operation ${entry.name} names no type ${entry.type}`);
  const { table, name: typeName } = type;
  const store = rt.store;
  // Reads see only the rows the caller's read policy admits; an unreadable row is not found.
  const readable = readFilterOf(type, app);
  switch (entry.kind) {
    case "list":
      return (data, call) => rt.listPage(table, data, readable(call));
    case "get":
      return async (data, call) => {
        const id = data.id as number;
        const row = await store.read((tx) => readableRow(tx, table, id, readable(call)), oneStatement);
        return row ?? rt.notFound(typeName, id);
      };
    case "me":
      return async (_data, call) => {
        const id = callersRowId(call, typeName);
        const row = await store.read((tx) => readableRow(tx, table, id, readable(call)), oneStatement);
        return row ?? rt.notFound(typeName, id);
      };
    case "create": {
      const values = createValues(
        type.fields.filter((f) => f.isWritable),
        rt,
      );
      const checkRefs = hasRefs(table);
      // Without refs to check or rows to guard, the callback is one insert and nothing else.
      const only = checkRefs || guard !== undefined ? "inserts" : "one insert";
      return (data, call) => {
        const row = values(data);
        return store.write(
          async (tx) => {
            // Every ref must name an existing row: checked in the same transaction as the write.
            if (checkRefs) await rt.checkRefs(tx, table, row);
            const made = await tx.insert(table, row).catch(asInputError(table));
            // Checked as stored (defaults filled in, refs followed); a refusal rolls the insert back.
            await guard?.after(tx, made.id as number, call);
            return made;
          },
          concurrently(call, table, rt, only),
        );
      };
    }
    case "update": {
      const checkRefs = hasRefs(table);
      return (data, call) => {
        // Partial: only the fields the input names change.
        const { id, ...patch } = data as Row & { id: number };
        return store.write(
          async (tx) => {
            if (!(await tx.get(table, id, "update"))) rt.notFound(typeName, id);
            await guard?.before(tx, id, call);
            if (checkRefs) await rt.checkRefs(tx, table, patch);
            const updated = (await tx.update(table, id, patch).catch(asInputError(table))) ?? rt.notFound(typeName, id);
            await guard?.after(tx, id, call);
            return updated;
          },
          concurrently(call, table, rt),
        );
      };
    }
    case "delete":
      return (data, call) => {
        const id = data.id as number;
        return store.write(
          async (tx) => {
            // Locked first: a write that would add a ref to it waits for this one, then finds it gone.
            if (!(await tx.get(table, id, "update"))) rt.notFound(typeName, id);
            await guard?.before(tx, id, call);
            await rt.checkNotReferenced(tx, table, id);
            await tx.delete(table, id);
            return { deleted: true, id };
          },
          concurrently(call, table, rt),
        );
      };
    case "relation":
    case "link":
    case "unlink":
      return relationBody(app, type, entry, rt, guard);
    case "method":
      throw new Error(`internal error: ${entry.name} is a method; operations.js runs it`);
  }
}

/**
 * A relation op (spec/rest.md "Relations"). The owning row must exist (404); the target named
 * by link/unlink must exist (422, the ref check of the link row). Reads page like `list`
 * (rt.listPage): a `via` relation in the order the links were made (the cursor is a link id), a
 * backlink in ascending id order. Linking is idempotent (an existing link is returned with
 * created: false), so is unlinking (removed: false).
 */
function relationBody(
  app: AppContract,
  type: CatalogType,
  entry: OperationEntry,
  rt: OperationRuntime,
  guard: RowGuard | undefined,
): OperationBody {
  const relation = relationsOf(app, type).find((r) => r.field.name === entry.relation?.field);
  if (!relation) throw new Error(`internal error: ${entry.name} names no relation of ${type.name}`);
  const { table, name: typeName } = type;
  const store = rt.store;
  const { target, path } = relation;
  if (entry.kind === "relation") {
    // Paged by the list pager (limit, cursor) over the rows that hold this row's id: the
    // target's rows themselves, or the links (in the order they were made, the cursor a link id).
    // The owning row must be readable (else 404), and only readable targets (and links) are listed.
    const [listed, column] = path.kind === "ref" ? [target.table, path.column] : [path.link.table, path.ownerColumn];
    const ownerReadable = readFilterOf(type, app);
    const targetReadable = readFilterOf(target, app);
    const listedReadable = path.kind === "ref" ? targetReadable : readFilterOf(path.link, app);
    return async (data, call) => {
      const id = data.id as number;
      if (!(await store.read((tx) => readableRow(tx, table, id, ownerReadable(call))))) rt.notFound(typeName, id);
      const page = await rt.listPage(
        listed,
        { limit: data.limit, cursor: data.cursor, where: { [column]: { eq: id } } },
        listedReadable(call),
      );
      if (path.kind === "ref") return page;
      const filter = targetReadable(call);
      const items = await store.read(async (tx) => {
        const rows: Row[] = [];
        for (const link of page.items) {
          const row = await readableRow(tx, target.table, link[path.targetColumn] as number, filter);
          if (row) rows.push(row);
        }
        return rows;
      });
      return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };
    };
  }
  if (path.kind !== "link") throw new Error(`internal error: relation ${entry.name} has no link to write`);
  const { link, ownerColumn, targetColumn } = path;
  const ends = (data: Row) => ({ [ownerColumn]: data.id as number, [targetColumn]: data[targetColumn] as number });
  // Linking and unlinking write the owning row's relation: `write` on that row.
  const ownerMustExist = async (tx: StoreTx, id: number, call: CallContext) => {
    if (!(await tx.get(table, id, "key-share"))) rt.notFound(typeName, id);
    await guard?.before(tx, id, call);
  };
  if (entry.kind === "link") {
    const endFields = [link.link!.fromField, link.link!.toField];
    const own = createValues(
      link.fields.filter((f) => f.isWritable && !endFields.includes(f.name)),
      rt,
    );
    return (data, call) =>
      store.write(
        async (tx) => {
          await ownerMustExist(tx, data.id as number, call);
          const row: Row = { [ownerColumn]: data.id, [targetColumn]: data[targetColumn], ...own(data) };
          // Every ref must name an existing row: checked in the same transaction as the write.
          await rt.checkRefs(tx, link.table, row);
          return rt.link(tx, link.table, ends(data), row);
        },
        concurrently(call, link.table, rt),
      );
  }
  return (data, call) =>
    store.write(
      async (tx) => {
        await ownerMustExist(tx, data.id as number, call);
        await rt.checkRefs(tx, link.table, { [targetColumn]: data[targetColumn] });
        return { removed: await rt.unlink(tx, link.table, ends(data)) };
      },
      concurrently(call, link.table, rt),
    );
}

/**
 * These bodies read only the rows they change (locked for update) and the rows their refs name
 * (locked against delete), so a store may run them beside other writes (model/store.ts) —
 * unless `table` has triggers, which may read and write other rows like a method. A body that
 * only `inserts` (a create) may also share its transaction with others (`groupable`); one that
 * is `one insert` into `table` and nothing else may go without a transaction (`soleInsert`).
 */
function concurrently(
  call: CallContext,
  table: string,
  rt: OperationRuntime,
  only?: "inserts" | "one insert",
): CallContext & WriteOptions {
  const concurrent = !rt.hasTriggers(table);
  if (only === undefined) return { ...call, concurrent };
  if (only === "one insert" && concurrent) return { ...call, concurrent, groupable: true, soleInsert: table };
  return { ...call, concurrent, groupable: concurrent };
}

/**
 * `me`: the id of the caller's own row, `$session.user`. Anonymous callers are refused (401); a
 * caller without a user id (the owner: no identity says who it is) or with one that is no row
 * id has no such row (404), and the message says why.
 */
function callersRowId(call: CallContext, typeName: string): number {
  const p = call.principal;
  if (p?.via === "anonymous")
    throw new OperationError(
      "unauthorized",
      `'me' needs to know who is calling: identify yourself to get your ${typeName}.`,
    );
  const user = p?.user ?? null;
  if (user === null)
    throw new OperationError(
      "not_found",
      `The caller (${p?.name ?? "owner"}) has no user id, so it has no ${typeName} of its own; get the row by its id instead.`,
    );
  if (!/^[1-9][0-9]{0,15}$/.test(user) || !Number.isSafeInteger(Number(user))) {
    const shown = user.length > 40 ? `${user.slice(0, 40)}…` : user;
    throw new OperationError(
      "not_found",
      `No ${typeName} has the caller's user id ${JSON.stringify(shown)}: ids are positive integers.`,
    );
  }
  return Number(user);
}

/**
 * The row a create stores from its input: each writable field's value from the input, else its
 * default, else null, else [] for a list nobody set (so every row has the same shape). A
 * `@readonly` field is never taken from the input (its schema refuses it anyway).
 */
function createValues(fields: readonly CatalogField[], rt: OperationRuntime): (data: Row) => Row {
  const plan = fields.map((f) => ({
    name: f.name,
    fromInput: !f.isReadonly,
    fallback: fallbackOf(f, rt),
    complete: completerOf(f, rt),
  }));
  return (data) => {
    const row: Row = {};
    for (const { name, fromInput, fallback, complete } of plan) {
      const given = fromInput ? data[name] : undefined;
      row[name] =
        given !== undefined ? (complete ? complete(given) : given) : fallback === undefined ? given : fallback();
    }
    return row;
  };
}

/**
 * For a struct field: fills what a given struct leaves out with each field's value when
 * omitted (fallbackOf), at every depth, so every stored struct has all its fields.
 */
function completerOf(f: CatalogField, rt: OperationRuntime): ((v: unknown) => unknown) | undefined {
  if (f.type.kind !== "struct") return undefined;
  const inner = f.type.fields.map((x) => ({ name: x.name, fallback: fallbackOf(x, rt), complete: completerOf(x, rt) }));
  return (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const given = v as Row;
    const out: Row = { ...given };
    for (const { name, fallback, complete } of inner) {
      if (given[name] !== undefined) out[name] = complete ? complete(given[name]) : given[name];
      else if (fallback !== undefined) out[name] = fallback();
    }
    return out;
  };
}

/** A field's value when the input leaves it out; undefined when the input's (absent) value stands. */
function fallbackOf(f: CatalogField, rt: OperationRuntime): (() => unknown) | undefined {
  const d = f.default;
  if (d?.kind === "literal") {
    const value = d.value; // a scalar: shared safely between rows
    return () => value;
  }
  if (d?.kind === "now") return () => rt.now();
  if (f.isOptional) return () => null;
  if (f.type.kind === "array") return () => [];
  if (f.type.kind === "struct" && isFilledWhenOmitted(f)) {
    // A struct whose every field has a value when left out: a fresh one per row.
    const inner = f.type.fields.map((x) => [x.name, fallbackOf(x, rt)!] as const);
    return () => Object.fromEntries(inner.map(([name, fill]) => [name, fill()]));
  }
  // Computed defaults make the field read-only and are never evaluated yet: stored as null.
  return f.isReadonly ? () => null : undefined;
}
