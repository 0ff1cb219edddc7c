// The OperationRuntime (model/build-contract.ts): what generated handlers call for validation,
// reference checks and errors. Owns the wording of every operation error — written for the
// caller (a person or an agent) to act on — and the translation of store failures into
// OperationError kinds. Leaves HTTP statuses and MCP tool results to the adapters.

// Type-only: the model arrives as app.json; nothing from compiler/ is loaded at run time.
import { defaultLimits, type Catalog } from "../../model/app.js";
import type { AppContract, CallContext, OperationRuntime, Validator } from "../../model/build-contract.js";
import { appendingAudit } from "./audit.js";
import { withStatementPolicies } from "./statement-policies.js";
import { asSession, currentSession, currentSessionUser, keepSession, statementPrincipal } from "./session.js";
import { withLiveWrites, type BodySubscription } from "./live-writes.js";
import { readFilter } from "./read-policy.js";
import { OperationError, maxErrorDetails, type ErrorDetail } from "../../model/errors.js";
import { IdInput } from "./id-input.js";
import { acceptedNames, refusedFieldMessages, unknownKeys, unstorableTexts } from "./input-checks.js";
import { createListPager } from "./list-page.js";
import { enforceFieldChecks, inputCheckAt, inputCheckMessages, type InputCheck } from "./field-checks.js";
import { addLink, removeLink } from "./links.js";
import { idsAlong, refPaths, type RefPath } from "../../model/ref-paths.js";
import { describeFieldType } from "../../model/type-desc.js";
import { checkedFloat, checkedInt } from "./int-arithmetic.js";
import { createBodyHelpers } from "./body-helpers.js";
import { emitEvent } from "../app-events.js";
import { budgeted } from "./run-budget.js";
import { withTriggers } from "./triggers.js";
import { withRowExprs } from "./row-exprs.js";
import { RepeatedFailureLog } from "../repeated-failure-log.js";
import { counted } from "../../model/words.js";
import {
  StoreBusyError,
  StoreCancelledError,
  StoreConstraintError,
  StoreFullError,
  StoreQueryError,
  StoreUnavailableError,
  type Row,
  type RowChange,
  type Store,
  type StoreTx,
  type WriteOptions,
} from "../../model/store.js";

export interface OperationRuntimeDeps {
  /** app.json: the model, and the operations table whose input schemas bound how many unknown keys are looked at. */
  catalog: AppContract;
  store: Store;
  validators: Record<string, Validator>;
  /** Injectable clock for tests; ISO-8601 UTC with milliseconds. */
  now?: () => string;
  /** The server log, for storage faults the caller cannot fix (a full disk). */
  log: (line: string) => void;
}

/** The runtime, and what the server does with its row expressions before serving (row-exprs.ts `settle`). */
export type BoundRuntime = OperationRuntime & {
  settleRowExprs(): Promise<void>;
  /** A committed change with its row's computed fields, for live streams (row-exprs.ts `present`). */
  presentChange(change: RowChange): RowChange;
};

export function createOperationRuntime(deps: OperationRuntimeDeps): BoundRuntime {
  const { catalog, validators } = deps;
  const typeByTable = new Map(catalog.types.map((t) => [t.table, t]));
  const refColumns = refColumnsByTable(catalog);
  const limits = catalog.config.limits ?? defaultLimits();
  const runBudgeted: OperationRuntime["budgeted"] = (kind, what, call, body) =>
    budgeted(kind, what, limits[kind], call, body);
  // Checks wrap the translated store (a plain object), so their errors pass through unchanged;
  // triggers wrap the checks, so the fields a trigger sets are checked like the caller's.
  // Row expressions sit between: a trigger's `set`s are held to the boolean checks, and every
  // read above them (triggers, methods, operations) gives the computed fields.
  const rowExprs = withRowExprs(
    enforceFieldChecks(translateStoreErrors(deps.store, catalog, deps.log), catalog),
    (table) => typeByTable.get(table)?.name ?? table,
  );
  // Subscriptions in bodies hear of every write under the triggers, trigger-made ones included.
  const live = withLiveWrites(rowExprs.store);
  const triggered = withTriggers(live.store, runBudgeted);
  // Outermost: an `as session` block's statements are checked as the caller wrote them; what its
  // triggers then write runs with the write's authority.
  const store = withStatementPolicies(triggered.store, catalog);
  const accepted = acceptedNames(catalog.operations);
  // The operations whose input schema is byId (`{ id }`): a proven IdInput passes it as it is.
  const byId = new Set(catalog.operations.filter((e) => e.kind === "get" || e.kind === "delete").map((e) => e.name));
  const refusedFields = refusedFieldMessages(catalog, catalog.operations);
  const inputChecks = inputCheckMessages(catalog, catalog.operations);
  const invalid = (message: string, details: ErrorDetail[] = []): never => {
    throw new OperationError("invalid_input", message, details);
  };
  const abort = (message: string): never => {
    throw new OperationError("aborted", message);
  };

  const rt: BoundRuntime = {
    settleRowExprs: rowExprs.settle,
    presentChange: rowExprs.present,
    store,
    validators,
    validate<T = Row>(name: string, input: unknown): T {
      if (input instanceof IdInput && byId.has(name)) return input as T;
      const validator = validators[name];
      if (!validator) throw new OperationError("internal", `No validator for operation '${name}'.`);
      // ajv with allErrors reports every unknown key: 100k of them cost more than the call is
      // worth. Past what an error may list, the keys alone answer, and ajv never runs.
      const names = accepted.get(name);
      const unknown = names ? unknownKeys(input, names) : [];
      if (unknown.length > maxErrorDetails) {
        const details = unknown
          .slice(0, maxErrorDetails)
          .map((key) => ({ path: `/${key}`, message: unknownFieldMessage }));
        throw new OperationError(
          "invalid_input",
          `The input does not match ${name}: ${unknown.length} fields are not accepted.`,
          details,
          unknown.length - maxErrorDetails,
        );
      }
      if (!validator(input)) {
        const all = describeAjvErrors(validator.errors ?? [], refusedFields(name), inputChecks.get(name));
        const details = all.slice(0, maxErrorDetails);
        const summary = all.length === 1 ? `${all[0]!.path || "input"} ${all[0]!.message}` : `${all.length} problems`;
        throw new OperationError(
          "invalid_input",
          `The input does not match ${name}: ${summary}.`,
          details,
          all.length - details.length,
        );
      }
      // Text as the stores keep it: SQLite would store a lone surrogate as U+FFFD (two such
      // values could then read the same yet pass @unique as different), and PostgreSQL refuses
      // U+0000 outright, which would surface as a 500 mid-transaction.
      const broken = unstorableTexts(input);
      if (broken.length > 0) {
        const details = broken.slice(0, maxErrorDetails);
        const summary =
          broken.length === 1
            ? `${broken[0]!.path || "input"} ${broken[0]!.message}`
            : `${broken.length} texts contain characters that cannot be stored`;
        throw new OperationError(
          "invalid_input",
          `The input does not match ${name}: ${summary}.`,
          details,
          broken.length - details.length,
        );
      }
      return input as T;
    },
    now: deps.now ?? (() => new Date().toISOString()),
    async checkRefs(
      tx: StoreTx,
      table: string,
      values: Row,
      pointers?: readonly (readonly [field: string, pointer: string])[],
    ) {
      const missing: ErrorDetail[] = [];
      // The same id named twice (tags: [3, 3]) is looked up once.
      const exists = new Map<string, boolean>();
      for (const { column, paths } of refColumns.get(table) ?? []) {
        for (const { table: target, steps } of paths) {
          for (const { pointer, id } of idsAlong(
            values[column],
            steps,
            pointers?.find(([field]) => field === column)?.[1] ?? `/${column}`,
          )) {
            const key = `${target}:${String(id)}`;
            let found = exists.get(key);
            if (found === undefined) {
              // Held against delete until the commit: the row must still be there when the ref is.
              found = typeof id === "number" && (await tx.get(target, id, "key-share")) !== undefined;
              exists.set(key, found);
            }
            if (!found)
              missing.push({
                path: pointer,
                message: `no ${typeByTable.get(target)?.name ?? target} with id ${JSON.stringify(id)} exists`,
              });
          }
        }
      }
      if (missing.length > 0) {
        const listed = missing.slice(0, maxErrorDetails);
        const more = missing.length - listed.length;
        const list =
          listed.map((m) => `${pointerLabel(m.path)}: ${m.message}`).join("; ") +
          (more > 0 ? `; and ${more} more` : "");
        throw new OperationError(
          "unprocessable",
          `The input refers to rows that do not exist (${list}). Create them first or pass an existing id.`,
          listed,
          more,
        );
      }
    },
    async checkNotReferenced(tx: StoreTx, table: string, id: number) {
      const referrers = (await tx.referrers(table, id)).filter((r) => r.count > 0);
      if (referrers.length === 0) return;
      const self = typeByTable.get(table)?.name ?? table;
      const names = referrers.map(
        (r) => `${counted(r.count, `${typeByTable.get(r.table)?.name ?? r.table} row`)} (field '${r.field}')`,
      );
      throw new OperationError(
        "conflict",
        `${self} ${id} is still referenced by ${names.join(", ")}. Delete those rows or point them elsewhere first.`,
        referrers.map((r) => ({
          path: `/${r.table}/${r.field.replaceAll(".", "/")}`,
          message: `${r.count} row${r.count === 1 ? " refers" : "s refer"} to ${self} ${id}`,
        })),
      );
    },
    link: addLink,
    unlink: (tx, table, ends) => removeLink(rt, tx, table, ends),
    listPage: createListPager(catalog, store),
    notFound(typeName: string, id: unknown): never {
      throw new OperationError("not_found", `No ${typeName} with id ${JSON.stringify(id)}.`);
    },
    invalid,
    abort,
    checkedInt,
    checkedFloat,
    helpers: createBodyHelpers({ abort, invalid }),
    budgeted: runBudgeted,
    session: currentSession,
    sessionUser: (at) => currentSessionUser(at, abort),
    subscribe(tx, table, where, at) {
      // Filtered as a select of the `as session` block subscribing would be (statement-policies.ts).
      const type = typeByTable.get(table);
      const principal = statementPrincipal();
      const filter = type && principal ? readFilter(type, principal, catalog) : undefined;
      return live.subscribe(tx, table, where, filter, at);
    },
    receive: (sub, at) => live.receive(sub as BodySubscription, at),
    defineTriggers: triggered.define,
    defineRowExprs: rowExprs.define,
    hasTriggers: triggered.fires,
    emitEvent: (tx, event) => emitEvent(tx, event, rt.now()),
    enqueueJob: (tx, job) =>
      tx.appendJob({
        name: job.name,
        // As JSON: what the fn or a worker receives is what the outbox keeps.
        args: JSON.parse(JSON.stringify(job.args)) as Record<string, unknown>,
        type: job.type,
        rowId: job.row.id as number,
        at: rt.now(),
      }),
    asSession,
  };
  return rt;
}

/** Per table, the stored fields that can hold refs and where inside their values the refs are. */
export function refColumnsByTable(catalog: Catalog): Map<string, { column: string; paths: RefPath[] }[]> {
  const byTable = new Map<string, { column: string; paths: RefPath[] }[]>();
  for (const t of catalog.types) {
    const columns = t.fields
      // A scalar or union column holds no ref: not described (most columns, on every start).
      .filter((f) => f.isStored && f.type.kind !== "scalar" && f.type.kind !== "union")
      .map((f) => ({ column: f.name, paths: refPaths(describeFieldType(f.type, catalog)) }))
      .filter((c) => c.paths.length > 0);
    if (columns.length > 0) byTable.set(t.table, columns);
  }
  return byTable;
}

/** "/meta/extra/0" → "meta.extra[0]": field names are identifiers, so a number is an index. */
function pointerLabel(pointer: string): string {
  return pointer
    .slice(1)
    .split("/")
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

/**
 * The store as handlers see it: the one place where store errors (model/store.ts)
 * become OperationErrors, and so statuses. A full database fails every write until space is
 * freed: the log says so once, then sums up (RepeatedFailureLog), and the caller gets a 503 it
 * can act on; an unreachable or locked database is logged and answered 503 too.
 */
function translateStoreErrors(store: Store, catalog: Catalog, log: (line: string) => void): Store {
  const fullLog = new RepeatedFailureLog(log, {
    repeats: (n, seconds) => `the database is still full: ${counted(n, "more write")} failed in the last ${seconds} s`,
    over: (n) => `the database accepts writes again (${counted(n, "write")} failed while it was full)`,
  });
  const unavailableLog = new RepeatedFailureLog(log, {
    repeats: (n, seconds) =>
      `the database is still unreachable: ${counted(n, "more call")} failed in the last ${seconds} s`,
    over: (n) => `the database is reachable again (${counted(n, "call")} failed while it was not)`,
  });
  const lockedLog = new RepeatedFailureLog(log, {
    repeats: (n, seconds) =>
      `the database is still locked from outside: ${counted(n, "more write")} failed in the last ${seconds} s`,
    over: (n) => `the database accepts writes again (${counted(n, "write")} failed while it was locked)`,
  });
  const translate = (err: unknown): never => {
    if (err instanceof OperationError) throw err;
    if (err instanceof StoreFullError) {
      fullLog.failed(`the database is full; writes fail until space is freed, reads still work: ${err.message}`);
      throw new OperationError(
        "storage_full",
        "The database is full, so nothing was written. Reads still work; writes succeed again once space is freed on the server.",
      );
    }
    if (err instanceof StoreConstraintError || (err as { constraint?: unknown })?.constraint === "unique") {
      const e = err as StoreConstraintError;
      const type = catalog.types.find((t) => t.table === e.table);
      const fields = e.fields.join(", ");
      throw new OperationError(
        "conflict",
        `Another ${type?.name ?? e.table} already has this ${fields}; ${e.fields.length === 1 ? "it must" : "they must"} be unique.`,
        e.fields.map((f) => ({ path: `/${f}`, message: "is already taken by another row" })),
      );
    }
    if (err instanceof StoreCancelledError || (err as { name?: unknown })?.name === "AbortError") {
      throw new OperationError("cancelled", "The call was cancelled before it committed; nothing was changed.");
    }
    if (err instanceof StoreQueryError) {
      throw new OperationError("invalid_input", err.message, [
        { path: `/${err.column}`, message: "not a filterable field" },
      ]);
    }
    if (err instanceof StoreUnavailableError) {
      unavailableLog.failed(`the database cannot be reached: ${err.message}`);
      throw new OperationError(
        "unavailable",
        "The database cannot be reached right now, so the call was not carried out; retry shortly.",
      );
    }
    if (err instanceof StoreBusyError) {
      lockedLog.failed(`the database is locked from outside: ${err.message}`);
      throw new OperationError(
        "busy",
        "The database is locked by another program right now; nothing was changed. Retry shortly.",
      );
    }
    throw err;
  };
  // Hoisted: a read's outcome is seen on every GET, and a closure per call is garbage per call.
  const readSucceeded = <T>(value: T): T => {
    unavailableLog.succeeded();
    return value;
  };
  return {
    read: (fn, options) => store.read(keepSession(fn), options).then(readSucceeded, translate),
    // A call's audit record (its CallContext is the options) commits with the call's writes.
    write: (fn, options) =>
      store.write(keepSession(writeWithAudit(fn, options)), options).then((value) => {
        fullLog.succeeded();
        lockedLog.succeeded();
        unavailableLog.succeeded();
        return value;
      }, translate),
    onCommit: (listener) => store.onCommit(listener),
    changesAfter: (table, after, limit) => store.changesAfter(table, after, limit),
    readAudit: (query) => store.readAudit(query).catch(translate),
    close: () => store.close(),
  };
}

function writeWithAudit<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions | undefined) {
  const audit = (options as CallContext | undefined)?.audit;
  return audit ? appendingAudit(fn, audit) : fn;
}

type AjvError = NonNullable<Validator["errors"]>[number];

const unknownFieldMessage = "is not an accepted field; remove it";

/**
 * ajv errors → [{ path, message }] an agent can act on: the JSON pointer names the field.
 * `refused` words, by JSON pointer, what the operation leaves out on purpose (read-only
 * fields, list operators a field does not take); `checks`, the fields' `@check`s, so their
 * keyword's error says the check ("must be >= 0 (@check)").
 */
export function describeAjvErrors(
  errors: AjvError[],
  refused?: ReadonlyMap<string, string>,
  checks?: Map<string, InputCheck>,
): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const check = inputCheckAt(checks, e.instancePath);
    // The check's own keyword says which rule broke; the field's other bounds keep their wording.
    const detail =
      check && check.keyword === e.keyword
        ? { path: e.instancePath, message: check.message }
        : describeAjvError(e, refused);
    if (!detail) continue;
    const key = `${detail.path}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(detail);
  }
  return out;
}

function describeAjvError(e: AjvError, refused: ReadonlyMap<string, string> | undefined): ErrorDetail | undefined {
  const p = e.params ?? {};
  switch (e.keyword) {
    case "required":
      return { path: `${e.instancePath}/${String(p.missingProperty)}`, message: "is required" };
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const path = `${e.instancePath}/${key}`;
      return { path, message: refused?.get(path) ?? unknownFieldMessage };
    }
    case "minimum":
    case "maximum":
      // The integer bounds (±(2^53 − 1)) need their reason; id minimums (1) read plainly.
      if (Math.abs(Number(p.limit)) === Number.MAX_SAFE_INTEGER) {
        const bound = e.keyword === "maximum" ? "at most" : "at least";
        return {
          path: e.instancePath,
          message: `must be ${bound} ${String(p.limit)}: integers beyond ±(2^53 − 1) cannot be stored exactly`,
        };
      }
      return { path: e.instancePath, message: e.message ?? `fails the '${e.keyword}' rule` };
    case "unevaluatedProperties":
      return { path: `${e.instancePath}/${String(p.unevaluatedProperty)}`, message: unknownFieldMessage };
    case "type":
      return { path: e.instancePath, message: `must be ${article(String(p.type).replace(/,/g, " or "))}` };
    case "enum":
      return {
        path: e.instancePath,
        message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "format":
      return { path: e.instancePath, message: `must be a valid ${String(p.format)}` };
    case "anyOf":
    case "oneOf":
    case "if":
      // Branch errors are reported individually by ajv; the umbrella line adds nothing.
      return undefined;
    default:
      return { path: e.instancePath, message: e.message ?? `fails the '${e.keyword}' rule` };
  }
}

function article(type: string): string {
  if (type === "null") return "null";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
