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

/** `$session.user` as an id; a user id that is not a decimal integer ends the call with `abort`. */
export function currentSessionUser(at: string, abort: (message: string) => never): number | null {
  const user = scope.getStore()?.user ?? null;
  if (user === null) return null;
  if (/^[1-9][0-9]{0,15}$/.test(user) && Number.isSafeInteger(Number(user))) return Number(user);
  const shown = user.length > 40 ? `${user.slice(0, 40)}…` : user;
  return abort(`$session.user is ${JSON.stringify(shown)}, which is not a row id, where ${at} needs one.`);
}
