// Every CallContext the surfaces and the pipeline make has one shape: the same six fields, in
// the same order, set (to undefined when absent) by the one object literal below. The pipeline's
// functions read a call's fields at every step; were contexts built in several shapes (with or
// without a caller, a signal, a trace, an audit record), those reads would turn polymorphic,
// and every call would pay for it — so a server that traces 1% of its requests was measured
// slower on all of them (bench/telemetry/run.mjs).
//
// A read (REST GET, an MCP read-only tool) has nothing to cancel, so no signal: one context per
// principal and surface serves every read of that caller — the owner's principal, and a JWT's
// while the verifier remembers the token (runtime/identity/jwt.ts), are the same object from
// call to call, so their reads allocate none. Contexts are shared, so nothing mutates one: a
// changed field is a new context (withAudit, withTrace).

import type { CallContext } from "../../model/build-contract.js";
import type { AuditRecord } from "../../model/store.js";
import type { Principal, Surface } from "../../model/principal.js";

/** The fields of a CallContext a surface knows; the rest are added by the pipeline. */
export interface CallFields {
  signal?: AbortSignal | undefined;
  principal?: Principal | undefined;
  surface?: Surface | undefined;
  caller?: string | undefined;
  audit?: AuditRecord | undefined;
  trace?: unknown;
}

/** A CallContext of the one shape (see above). */
export function callContext(f: CallFields): CallContext {
  return {
    signal: f.signal,
    principal: f.principal,
    surface: f.surface,
    caller: f.caller,
    audit: f.audit,
    trace: f.trace,
  };
}

/** `call` with its audit record. */
export function withAudit(call: CallContext, audit: AuditRecord): CallContext {
  const c = callContext(call);
  c.audit = audit;
  return c;
}

/** `call` joining `trace` (runtime/telemetry/tracing.ts). */
export function withTrace(call: CallContext, trace: unknown): CallContext {
  const c = callContext(call);
  c.trace = trace;
  return c;
}

/**
 * The context a surface (REST, MCP) hands an operation: the shared read context when the call
 * has nothing of its own (no signal: it cannot write; no caller counted by its connection; no
 * trace), else a new one. `signal` only for a call that may write: reads have nothing to roll
 * back, and materializing a request's signal is not free.
 */
export function surfaceCall(
  surface: Surface,
  principal: Principal,
  signal: AbortSignal | undefined,
  caller: string | undefined,
  trace: unknown,
): CallContext {
  if (signal === undefined && caller === undefined && trace === undefined) return readCall(principal, surface);
  return callContext({ signal, principal, surface, caller, trace });
}

const reads = new Map<Surface, WeakMap<Principal, CallContext>>();

/** The shared context of `principal`'s reads on `surface`: no signal, no caller, no trace. */
export function readCall(principal: Principal, surface: Surface): CallContext {
  let bySurface = reads.get(surface);
  if (bySurface === undefined) reads.set(surface, (bySurface = new WeakMap()));
  let call = bySurface.get(principal);
  if (call === undefined) bySurface.set(principal, (call = callContext({ principal, surface })));
  return call;
}
