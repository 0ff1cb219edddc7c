// The CallContext REST and MCP hand an operation, in one shape: every member present, in one
// order, undefined where it does not apply (no signal for a read, no caller for a named
// principal, no trace when untraced). Objects built alike share V8's hidden class (the shared
// read contexts below, frozen, a twin of it), so the pipeline's reads of `call.principal` and
// `call.trace` see one or two classes whichever kind of call arrives, where a traced call as
// `{ ...untraced, trace }` and a call with or without `caller` were each a class of their own.
//
// A read (REST GET, an MCP read-only tool) has nothing to cancel, so when it is also untraced
// and counted by no connection, one frozen object per principal and surface serves every such
// read: the owner's principal, and a JWT's while the verifier remembers the token
// (runtime/identity/jwt.ts), are the same object from call to call, so their reads allocate no
// context.

import type { CallContext } from "../../model/build-contract.js";
import type { Principal, Surface } from "../../model/principal.js";

/** A CallContext of the one shape (see above). */
export function callContext(
  signal: AbortSignal | undefined,
  principal: Principal,
  surface: Surface,
  caller: string | undefined,
  trace: unknown,
): CallContext {
  return { signal, principal, surface, caller, trace };
}

const contexts = new Map<Surface, WeakMap<Principal, CallContext>>();

/** The shared context of an untraced read by `principal` that no connection is counted for. */
export function readCall(principal: Principal, surface: Surface): CallContext {
  let bySurface = contexts.get(surface);
  if (bySurface === undefined) contexts.set(surface, (bySurface = new WeakMap()));
  let call = bySurface.get(principal);
  if (call === undefined)
    bySurface.set(principal, (call = Object.freeze(callContext(undefined, principal, surface, undefined, undefined))));
  return call;
}
