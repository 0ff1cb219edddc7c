// `$session` at run time (spec/language.md, "$session"): the principal of the call whose body
// is running. bind.ts runs every body inside its call's scope; compiled bodies read it with
// `rt.session()`. An AsyncLocalStorage carries it, rather than a parameter, so free fns and
// nested method calls (which take only the transaction) see their caller's session without
// every generated signature growing one. Outside any call (`wo test`, `wo exec`, startup
// hooks) and for the owner, user and role are null.

import { AsyncLocalStorage } from "node:async_hooks";
import type { CallContext } from "../../model/build-contract.js";
import type { Principal } from "../../model/principal.js";

const scope = new AsyncLocalStorage<Principal | undefined>();

/** Runs `fn` with `call`'s principal as `$session`. */
export function inSession<T>(call: CallContext, fn: () => Promise<T>): Promise<T> {
  return scope.run(call.principal, fn);
}

/** `$session.user` and `$session.role` of the running call: null for the owner and anonymous. */
export function currentSession(): { user: string | null; role: string | null } {
  const p = scope.getStore();
  return { user: p?.user ?? null, role: p?.role ?? null };
}
