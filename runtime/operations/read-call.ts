// The CallContext of a read (REST GET, an MCP read-only tool): nothing to cancel, so no signal,
// and so one frozen object per principal and surface serves every read — the owner's principal,
// and a JWT's while the verifier remembers the token (runtime/identity/jwt.ts), are the same
// object from call to call, so their reads allocate no context.

import type { CallContext } from "../../model/build-contract.js";
import type { Principal, Surface } from "../../model/principal.js";

const contexts = new Map<Surface, WeakMap<Principal, CallContext>>();

export function readCall(principal: Principal, surface: Surface): CallContext {
  let bySurface = contexts.get(surface);
  if (bySurface === undefined) contexts.set(surface, (bySurface = new WeakMap()));
  let call = bySurface.get(principal);
  if (call === undefined) bySurface.set(principal, (call = Object.freeze({ principal, surface })));
  return call;
}
