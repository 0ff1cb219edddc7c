// The policy seam: the one place that decides whether a caller may run an operation, asked for
// every operation (REST and MCP alike, table-driven and generated) by runtime/operations/bind.ts.
// The rules come from the type's `policy` lines, resolved per caller by row-policy.ts
// (spec/policies.md, "Writes"). Two levels:
//
//   action  after the input has passed its schema, before a concurrency slot or a transaction:
//           an operation whose action no line grants this caller at all is refused (admit);
//   row     inside the write's transaction (a RowGuard, used by table-operations.ts and, at a
//           method's entry, by bind.ts): the row before the write must be one the caller may
//           read (else 404, as if it were not there) and act on (else 403); the row a create
//           or update leaves must satisfy a granting `write` line, else the refusal is thrown
//           and the transaction rolls back.
//
// A refusal is an OperationError ("forbidden"; "not_found" for a row the caller may not read;
// "unauthorized" for an anonymous caller on a type without policy lines, which is open to
// authenticated callers only), answered by the adapters like any other: nothing changed. Row
// conditions are tested by the store, as a `ListQuery.filter` of the one row, so a condition
// through refs means what it means for reads.

import type { CatalogType } from "../../model/app.js";
import type { AppContract, CallContext, OperationEntry, OperationKind } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import type { PolicyAction, RowCondition } from "../../model/policy.js";
import { isOwner, type Principal } from "../../model/principal.js";
import type { StoreTx } from "../../model/store.js";
import { typesByName } from "../../model/type-index.js";
import { hasPolicies, mayAttempt, rowCondition } from "./row-policy.js";
import { readableRow } from "./read-policy.js";

export interface OperationPolicy {
  /** The checks of one build's operations, bound once when the build is (bind.ts). */
  bind(app: AppContract): BuildPolicy;
}

export interface BuildPolicy {
  /** Returns to admit the call; throws an OperationError to refuse it. `input` has passed the operation's schema. */
  admit(operation: OperationEntry, input: unknown, call: CallContext): void;
  /** The row checks of a write, or undefined when no row can be refused (a type without policy lines). */
  rowGuard(operation: OperationEntry): RowGuard | undefined;
}

/** Row checks of one operation, run inside its transaction. */
export interface RowGuard {
  /** The row `id` (it exists) as it is before the write: 404 unless the caller may read it, 403 unless it may act on it. */
  before(tx: StoreTx, id: number, call: CallContext): Promise<void>;
  /** The row `id` as the write left it (create, update): 403 unless it satisfies a granting `write` line. */
  after(tx: StoreTx, id: number, call: CallContext): Promise<void>;
}

/** The policy action an operation needs: `write` covers create, update, link/unlink and methods. */
export function actionOf(kind: OperationKind): PolicyAction {
  switch (kind) {
    case "list":
    case "get":
    case "me":
    case "relation":
      return "read";
    case "delete":
      return "delete";
    case "create":
    case "update":
    case "link":
    case "unlink":
    case "method":
      return "write";
  }
}

/** Whether some line grants `operation`'s action on `type` to `principal` (tools/list shows only these). */
export function mayCall(
  type: Pick<CatalogType, "name" | "policies">,
  operation: Pick<OperationEntry, "kind">,
  principal: Principal | undefined,
): boolean {
  return mayAttempt(type, actionOf(operation.kind), principal);
}

/** The type's `policy` lines enforced (spec/policies.md). */
export const enforcePolicies: OperationPolicy = { bind: bindPolicies };

const verbOf: Record<OperationKind, string> = {
  list: "list",
  get: "read",
  me: "read",
  relation: "read",
  create: "create",
  update: "update",
  delete: "delete",
  link: "link",
  unlink: "unlink",
  method: "call",
};

function bindPolicies(app: AppContract): BuildPolicy {
  const types = typesByName(app);
  const bypass = app.bypassPolicies ?? [];
  // An operation of no declared type (an embedder's own) has no policy lines to keep.
  const typeOf = (entry: OperationEntry): CatalogType | undefined => types.get(entry.type);
  return {
    admit(entry, input, call) {
      const principal = call.principal;
      if (isOwner(principal)) return;
      const type = typeOf(entry);
      if (!type || mayCall(type, entry, principal)) return;
      const who = principal as Principal;
      const action = actionOf(entry.kind);
      if (!hasPolicies(type))
        throw new OperationError(
          "unauthorized",
          `${type.name} is open to identified callers only: send Authorization: Bearer <token> to ${verbOf[entry.kind]} it.`,
        );
      // A row that cannot be read answers as if it were not there; the type itself is no secret.
      const id = (input as { id?: unknown } | undefined)?.id;
      // No line grants this to anyone: identifying might (a 401 names how), refusing would not.
      if (who.via === "anonymous")
        throw new OperationError(
          "unauthorized",
          `${callerName(who)} may not ${describe(entry, type)}: send Authorization: Bearer <token>; no policy line of ${type.name} grants ${action} to anyone.`,
        );
      if (action === "read" && entry.kind !== "list")
        throw new OperationError("not_found", `No ${type.name} with id ${JSON.stringify(id ?? null)}.`);
      throw forbidden(
        `${callerName(who)} may not ${describe(entry, type)}: no policy line of ${type.name} grants ${action} to ${whom(who)}.`,
      );
    },
    rowGuard(entry) {
      const type = typeOf(entry);
      if (!type || !hasPolicies(type)) return undefined;
      return createRowGuard(type, entry, bypass);
    },
  };
}

/**
 * The row checks of one write of `type`: an operation's (bindPolicies) and, in tests, one
 * insert, update or delete statement of an `as session` block (statement-policies.ts), so both
 * refuse alike and with the same words.
 */
export function createRowGuard(
  type: CatalogType,
  entry: Pick<OperationEntry, "kind" | "op" | "relation">,
  bypass: AppContract["bypassPolicies"],
): RowGuard {
  const action = actionOf(entry.kind);
  const lines = (type.policies ?? []).filter((g) => g.action === action).map((g) => g.text);
  const linesText =
    lines.length === 1 ? `the line that grants it: ${lines[0]}` : `the lines that grant it: ${lines.join("; ")}`;
  return {
    async before(tx, id, call) {
      const p = call.principal;
      if (isOwner(p)) return;
      if (!(await holds(tx, type.table, id, rowCondition(type, "read", p, bypass))))
        throw new OperationError("not_found", `No ${type.name} with id ${JSON.stringify(id)}.`);
      if (!(await holds(tx, type.table, id, rowCondition(type, action, p, bypass))))
        throw forbidden(
          `${callerName(p!)} may not ${describe(entry, type, id)}: the row satisfies no policy line granting ${action} to ${whom(p!)}; ${linesText}.`,
        );
    },
    async after(tx, id, call) {
      const p = call.principal;
      if (isOwner(p)) return;
      if (!(await holds(tx, type.table, id, rowCondition(type, "write", p, bypass))))
        throw forbidden(
          `${callerName(p!)} may not ${describe(entry, type, entry.kind === "create" ? undefined : id)}: the ${entry.kind === "create" ? "new" : "updated"} row would satisfy no policy line granting write to ${whom(p!)}; ${linesText}.`,
        );
    },
  };
}

/** Whether row `id` of `table` satisfies `condition`, asked of the store in the caller's transaction. */
async function holds(tx: StoreTx, table: string, id: number, condition: RowCondition): Promise<boolean> {
  if (condition.kind === "true") return true;
  if (condition.kind === "false") return false;
  return (await readableRow(tx, table, id, condition)) !== undefined;
}

function forbidden(message: string): OperationError {
  return new OperationError("forbidden", message);
}

function callerName(p: Principal): string {
  if (p.via === "anonymous") return "An anonymous caller";
  const role = p.role === null ? "no role" : `role ${JSON.stringify(p.role)}`;
  return `The caller ${JSON.stringify(p.name)} (${role})`;
}

function whom(p: Principal): string {
  return p.via === "anonymous" ? "anonymous callers" : "this caller";
}

/** `create Post`, `update Post 3`, `call Post.publish on Post 3`, `link Post 3's tags`. */
function describe(entry: Pick<OperationEntry, "kind" | "op" | "relation">, type: CatalogType, id?: number): string {
  const row = id === undefined ? type.name : `${type.name} ${id}`;
  switch (entry.kind) {
    case "create":
      return id === undefined ? `create a ${type.name}` : `create ${row}`;
    case "method":
      return `call ${type.name}.${entry.op}${id === undefined ? "" : ` on ${row}`}`;
    case "link":
    case "unlink":
      return `${entry.kind} ${row}'s ${entry.relation?.field ?? "relation"}`;
    case "list":
      return `list ${type.name} rows`;
    default:
      return `${verbOf[entry.kind]} ${row}`;
  }
}
