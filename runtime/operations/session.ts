// `$session` at run time (spec/language.md, "$session"): the principal of the call whose body
// is running. bind.ts runs every body inside its call's scope; compiled bodies read it with
// `rt.session()`. An AsyncLocalStorage carries it, rather than a parameter, so free fns and
// nested method calls (which take only the transaction) see their caller's session without
// every generated signature growing one. Outside any call (`wo test`, `wo exec`, startup
// hooks) and for the owner, user and role are null.

import { AsyncLocalStorage } from "node:async_hooks";
import type { CallContext } from "../../model/build-contract.js";
import { anonymousPrincipal, isOwner, type Principal } from "../../model/principal.js";

const scope = new AsyncLocalStorage<Principal | undefined>();

/**
 * Runs `fn` with `call`'s principal as `$session`. The owner's session is the empty one, which
 * is also what a body sees outside any scope: owner calls skip the scope and what it costs.
 *
 * An AsyncLocalStorage in use (on Node 20) hooks the creation of every promise in the process,
 * every caller's alike: measured, that made each call about a quarter slower
 * (bench/identity/run.mjs). So the storage is on only while some principal's body runs —
 * `inScope` counts them — and off again when the last one ends.
 */
export function inSession<T>(call: CallContext, fn: () => Promise<T>): Promise<T> {
  if (isOwner(call.principal)) return fn();
  return runAs(call.principal!, fn);
}

/** `fn` in `principal`'s scope, the storage on while it runs. */
function runAs<T>(principal: Principal, fn: () => Promise<T>): Promise<T> {
  inScope++;
  let running: Promise<T>;
  try {
    running = scope.run(principal, fn);
  } catch (err) {
    leaveScope();
    throw err;
  }
  return running.finally(leaveScope);
}

/** Bodies running in a principal's scope now; at 0 the storage is off and every session the owner's. */
let inScope = 0;

function leaveScope(): void {
  // disable() takes the storage's hooks off; the next run() puts them back.
  if (--inScope === 0) scope.disable();
}

/**
 * `fn` run in the session of the code that hands it over. A store runs write callbacks from
 * its queue (the SQLite group commit, the PostgreSQL writer queue), in the async context of
 * whichever call started the queue: each callback must get back its own caller's session.
 * With no principal's body running, every caller is the owner and `fn` needs no scope.
 */
export function keepSession<A, R>(fn: (arg: A) => R): (arg: A) => R {
  if (inScope === 0) return fn;
  const principal = scope.getStore();
  return (arg) => scope.run(principal, () => fn(arg));
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

/**
 * `as session { user, role } { … }` (tests): `fn` with that caller as the principal, a token
 * principal named "session" (spec/policies.md). Policy checks read it through
 * currentPrincipal(), so the block is held to the rules a caller with that token would be.
 */
export function asSession<T>(
  who: { user: string | number | null; role: string | null; anonymous?: boolean },
  fn: () => Promise<T>,
): Promise<T> {
  // `as session anonymous`: a request without credentials, which only `anyone` lines admit.
  const principal: Principal = who.anonymous
    ? Object.freeze({ ...anonymousPrincipal })
    : Object.freeze({
        name: "session",
        user: who.user === null ? null : String(who.user),
        role: who.role,
        via: "token",
      });
  checkedStatements.add(principal);
  return runAs(principal, fn);
}

/** The principals of `as session` blocks: their statements are each held to the policies. */
const checkedStatements = new WeakSet<Principal>();

/**
 * The principal of the `as session` block running now, whose insert, update and delete
 * statements are each checked (runtime/operations/statement-policies.ts); undefined elsewhere,
 * where a body runs with its operation's authority.
 */
export function statementPrincipal(): Principal | undefined {
  const p = scope.getStore();
  return p !== undefined && checkedStatements.has(p) ? p : undefined;
}

/** The principal of the running body: undefined (the owner) outside any caller's scope. */
export function currentPrincipal(): Principal | undefined {
  return scope.getStore();
}
