// Binds a build's operations to a running app: every entry of the operations table becomes one
// handler, keyed by its tool name, that REST and MCP both call. Each call goes through the same
// steps, in this order:
//
//   validate (the entry's input schema) → policy, action level (runtime/operations/policy.ts) →
//   the caller's rate limit (rate-limit.ts) → concurrency slot (limit.ts) → the body:
//   table-driven (table-operations.ts) or the generated handler of operations.js (a method,
//   behind the policy's check of its row) → one store transaction, committed in rt.store.write
//   before the call is answered. A write of a type with policy lines checks its rows inside
//   that transaction (the policy's RowGuard).
//
// A call that may write carries its audit record (audit.ts) through all of it: appended in its
// transaction when it commits, recorded on its own when any step refuses it. Every body that
// can read `$session` (a compiled one) runs inside the call's session scope (session.ts).
//
// The members of operations.js that are not operations (`(startup)`, `(main)`, tests) take no
// input: they only wait for a slot (and are recorded like a write). Everything is bound once
// here, so a call looks nothing up.

// The clock by import: the global `performance` is a getter, called on each use (per request).
import { performance } from "node:perf_hooks";
import type {
  AppContract,
  CallContext,
  Operation,
  OperationEntry,
  OperationRuntime,
  OperationsModule,
} from "../../model/build-contract.js";
import type { Row } from "../../model/store.js";
import { refColumnsByTable } from "./runtime.js";
import { auditedCall, isAudited, recordRefusal } from "./audit.js";
import { inSession } from "./session.js";
import { withSlot, type ConcurrencyLimiter } from "./limit.js";
import type { BuildPolicy, OperationPolicy, RowGuard } from "./policy.js";
import { rateKindOf, type RateLimiter } from "./rate-limit.js";
import type { RateKind } from "../../model/app.js";
import { isTableDriven, tableOperationBody, type OperationBody } from "./table-operations.js";
import type { OperationFigures } from "../telemetry/metrics.js";
import { outcomeOf, tracedOperation } from "../telemetry/observe.js";
import type { Telemetry } from "../telemetry/telemetry.js";

export interface BindDeps {
  app: AppContract;
  rt: OperationRuntime;
  /** operations.js: method handlers and the entry points. */
  generated: OperationsModule;
  limiter: ConcurrencyLimiter;
  policy: OperationPolicy;
  /** The callers' rate limits (`[limits] *_per_minute`); absent: none is set. */
  rate?: RateLimiter | undefined;
  /** The server log: an audit entry that could not be written is said here. */
  log: (line: string) => void;
  /** The instance's telemetry: each operation call is counted (in `admitted`) and traced. Absent: not observed. */
  telemetry?: Telemetry;
}

export function bindOperations(deps: BindDeps): Record<string, Operation> {
  const { app, rt, limiter, rate } = deps;
  const policy = deps.policy.bind(app);
  const generated = deps.generated.createOperations(rt);
  const refTables = refColumnsByTable(app);
  const hasRefs = (table: string) => refTables.has(table);
  const bound: Record<string, Operation> = {};
  for (const entry of app.operations) {
    const guard = policy.rowGuard(entry);
    const body: OperationBody | undefined = isTableDriven(entry)
      ? tableOperationBody(app, entry, rt, hasRefs, guard)
      : atEntry(generated[entry.name], guard, rt, app, entry);
    // A method the build lists but operations.js lacks: REST and MCP answer that it is not served.
    if (!body) continue;
    const figures = deps.telemetry?.metrics?.operation(entry.name);
    const operation = admitted(entry, body, rt, policy, limiter, rate, deps.log, figures);
    bound[entry.name] = deps.telemetry ? tracedOperation(deps.telemetry, entry.name, operation) : operation;
  }
  const listed = new Set(app.operations.map((e) => e.name));
  for (const [name, member] of Object.entries(generated))
    if (!listed.has(name)) bound[name] = withSlot(limiter, auditedEntryPoint(name, member, rt, deps.log));
  return bound;
}

/** An entry point (`(startup)`, `(main)`, a test), recorded in the audit trail like a write. */
export function auditedEntryPoint(
  name: string,
  member: Operation,
  rt: OperationRuntime,
  log: (line: string) => void,
): Operation {
  return async (input, call) => {
    const audited = auditedCall(call, name, null, undefined, rt.now());
    try {
      return await inSession(audited, () => member(input, audited));
    } catch (err) {
      await recordRefusal(rt.store, audited.audit!, err, log);
      throw err;
    }
  };
}

/**
 * A method's body behind the row check at its entry: `write` on its row (its `id`), read in a
 * snapshot before the body's own transaction; the body then runs with the method's authority.
 */
function atEntry(
  body: OperationBody | undefined,
  guard: RowGuard | undefined,
  rt: OperationRuntime,
  app: AppContract,
  entry: OperationEntry,
): OperationBody | undefined {
  if (!body || !guard) return body;
  const table = app.types.find((t) => t.name === entry.type)?.table;
  if (table === undefined) throw new Error(`internal error: operation ${entry.name} names no type ${entry.type}`);
  return async (data, call) => {
    const id = data.id as number;
    // A missing row is the body's to answer (404, its own wording).
    await rt.store.read(async (tx) => {
      if (await tx.get(table, id)) await guard.before(tx, id, call);
    });
    return body(data, call);
  };
}

function admitted(
  entry: OperationEntry,
  body: OperationBody,
  rt: OperationRuntime,
  policy: BuildPolicy,
  limiter: ConcurrencyLimiter,
  rate: RateLimiter | undefined,
  log: (line: string) => void,
  figures: OperationFigures | undefined,
): Operation {
  const { name } = entry;
  // Only compiled bodies read `$session`; the table-driven ones (CRUD, relations) take the
  // caller from `call`, so they run without the session scope and its cost (session.ts).
  const scoped = !isTableDriven(entry);
  const rateKind = rateKindOf(entry.kind);
  // Counted (metrics) in this same async step: a wrapper would cost a promise per call.
  const run = async (input: unknown, call: CallContext) => {
    const started = figures ? performance.now() : 0;
    try {
      const data = rt.validate<Row>(name, input);
      policy.admit(entry, data, call);
      const entering = enter(rate, limiter, rateKind, call);
      if (entering) await entering;
      let value: unknown;
      try {
        value = await (scoped ? inSession(call, () => body(data, call)) : body(data, call));
      } finally {
        limiter.release();
      }
      figures?.record("ok", started);
      return value;
    } catch (err) {
      figures?.record(outcomeOf(err), started);
      throw err;
    }
  };
  if (!isAudited(entry)) return run;
  return async (input: unknown, call: CallContext) => {
    const audited = auditedCall(call, name, entry.type, input, rt.now());
    try {
      return await run(input, audited);
    } catch (err) {
      await recordRefusal(rt.store, audited.audit!, err, log);
      throw err;
    }
  };
}

/**
 * The caller's rate token of `kind`, then a concurrency slot (released by the caller): a promise
 * only when either has to wait; a refusal throws (or rejects) as the limiter or the bucket says.
 */
function enter(
  rate: RateLimiter | undefined,
  limiter: ConcurrencyLimiter,
  kind: RateKind,
  call: CallContext,
): Promise<void> | undefined {
  const taking = rate?.take(kind, call);
  return taking ? taking.then(() => limiter.acquire(call)) : limiter.acquire(call);
}

/**
 * Runs work that is no operation of the table (`resources/read` of `wo://events`, the job
 * workers' routes) as an operation runs: the caller's rate token of `kind`, then a slot.
 */
export type Admission = <T>(kind: RateKind, call: CallContext, body: () => Promise<T>) => Promise<T>;

/** Work outside the operations table, admitted as an operation is: a rate token, a concurrency slot. */
export function admission(limiter: ConcurrencyLimiter, rate: RateLimiter | undefined): Admission {
  return async (kind, call, body) => {
    const entering = enter(rate, limiter, kind, call);
    if (entering) await entering;
    try {
      return await body();
    } finally {
      limiter.release();
    }
  };
}
