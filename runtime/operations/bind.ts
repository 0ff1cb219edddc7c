// Binds a build's operations to a running app: every entry of the operations table becomes one
// handler, keyed by its tool name, that REST and MCP both call. Each call goes through the same
// steps, in this order:
//
//   validate (the entry's input schema) → policy (runtime/operations/policy.ts) →
//   the caller's rate limit (rate-limit.ts) → concurrency slot (limit.ts) → the body: table-driven (table-operations.ts) or the
//   generated handler of operations.js (a method) → one store transaction, committed in
//   rt.store.write before the call is answered.
//
// A call that may write carries its audit record (audit.ts) through all of it: appended in its
// transaction when it commits, recorded on its own when any step refuses it. Every body runs
// inside the call's session scope (session.ts), where `$session` reads the caller.
//
// The members of operations.js that are not operations (`(startup)`, `(main)`, tests) take no
// input: they only wait for a slot (and are recorded like a write). Everything is bound once
// here, so a call looks nothing up.

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
import type { OperationPolicy } from "./policy.js";
import { rateKindOf, type RateLimiter } from "./rate-limit.js";
import { isTableDriven, tableOperationBody, type OperationBody } from "./table-operations.js";

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
}

export function bindOperations(deps: BindDeps): Record<string, Operation> {
  const { app, rt, limiter, policy, rate } = deps;
  const generated = deps.generated.createOperations(rt);
  const refTables = refColumnsByTable(app);
  const hasRefs = (table: string) => refTables.has(table);
  const bound: Record<string, Operation> = {};
  for (const entry of app.operations) {
    const body: OperationBody | undefined = isTableDriven(entry)
      ? tableOperationBody(app, entry, rt, hasRefs)
      : generated[entry.name];
    // A method the build lists but operations.js lacks: REST and MCP answer that it is not served.
    if (body) bound[entry.name] = admitted(entry, body, rt, policy, limiter, rate, deps.log);
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

function admitted(
  entry: OperationEntry,
  body: OperationBody,
  rt: OperationRuntime,
  policy: OperationPolicy,
  limiter: ConcurrencyLimiter,
  rate: RateLimiter | undefined,
  log: (line: string) => void,
): Operation {
  const { name } = entry;
  const rateKind = rateKindOf(entry.kind);
  const run = async (input: unknown, call: CallContext) => {
    const data = rt.validate<Row>(name, input);
    policy.admit(entry, data, call);
    const taking = rate?.take(rateKind, call);
    if (taking) await taking;
    const wait = limiter.acquire(call);
    if (wait) await wait;
    try {
      return await inSession(call, () => body(data, call));
    } finally {
      limiter.release();
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
