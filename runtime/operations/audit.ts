// What the audit trail records (spec/operations.md, "Audit trail"), decided once for every
// surface: bind.ts attaches a pending record to the CallContext of each call that may write;
// the operation runtime's store (runtime.ts) appends it inside that call's write transaction,
// after the body and before the commit, so exactly the acknowledged writes have an `ok` entry;
// a call that ends with an error gets one entry of its own, written in a small transaction
// after the rollback. Records hold who, when, where, what and the outcome: never argument
// values or credentials.

import type { CallContext, OperationEntry } from "../../model/build-contract.js";
import { OperationError } from "../../model/errors.js";
import { ownerPrincipal } from "../../model/principal.js";
import type { AuditRecord, Row, Store, StoreTx } from "../../model/store.js";
import { withAudit } from "./call-context.js";

/** Calls that may write are recorded: CRUD writes, link/unlink, and methods that write. */
export function isAudited(entry: OperationEntry): boolean {
  switch (entry.kind) {
    case "create":
    case "update":
    case "delete":
    case "link":
    case "unlink":
      return true;
    case "method":
      return entry.annotations.readOnlyHint !== true;
    default:
      return false;
  }
}

/**
 * `call` with a pending record of `operation` attached: who and where from `call`, the row
 * from the input's `id` (a create's row is filled in from its result). `at` is the call's time.
 */
export function auditedCall(
  call: CallContext,
  operation: string,
  type: string | null,
  input: unknown,
  at: string,
): CallContext {
  const p = call.principal ?? ownerPrincipal;
  const id = (input as Row | undefined)?.id;
  const audit: AuditRecord = {
    at,
    principal: p.name,
    user: p.user,
    role: p.role,
    via: p.via,
    surface: call.surface ?? "internal",
    operation,
    type,
    rowId: typeof id === "number" && Number.isSafeInteger(id) ? id : null,
    outcome: "ok",
  };
  return withAudit(call, audit);
}

/**
 * The write callback that also appends `audit` before the transaction commits: the row a
 * create made is the `id` of its result.
 */
export function appendingAudit<T>(fn: (tx: StoreTx) => Promise<T>, audit: AuditRecord): (tx: StoreTx) => Promise<T> {
  return async (tx) => {
    const value = await fn(tx);
    const made = (value as Row | null)?.id;
    const rowId = audit.rowId ?? (typeof made === "number" ? made : null);
    await tx.appendAudit({ ...audit, rowId });
    return value;
  };
}

const unrecorded = new Set(["busy", "storage_full", "unavailable"]);

/**
 * Records that the call `audit` describes ended with `err`, in a transaction of its own (the
 * call's own rolled back). A trail that cannot be written (the database is full or gone) must
 * not hide the call's own error: that failure only goes to the log.
 */
export async function recordRefusal(
  store: Store,
  audit: AuditRecord,
  err: unknown,
  log: (line: string) => void,
): Promise<void> {
  const outcome = err instanceof OperationError ? err.kind : "internal";
  // Load shedding and a database that cannot take writes: recording would only add to it.
  if (unrecorded.has(outcome)) return;
  try {
    await store.write((tx) => tx.appendAudit({ ...audit, outcome }));
  } catch (e) {
    // An internal failure is logged by the surface already; the store is likely what failed.
    if (outcome !== "internal")
      log(`the audit trail could not record a refused ${audit.operation}: ${(e as Error)?.message ?? String(e)}`);
  }
}
