// `$session.user` and `$session.role` in bodies (spec/language.md, "$session"): who is calling.
// The user is an id (`Id?`): it compares with and is stored into `Id`, `ref` and `Int` values
// like any id; written straight into a Text field it is the user's text as the caller's
// credentials give it (a JWT subject need not be a number). The role is `Text?`. Both are null
// for the owner and anonymous callers, in `wo test` and in `wo exec`.

import type { Expr, MemberExpr } from "../../ast.js";
import { didYouMean } from "../did-you-mean.js";
import { unknownType, type ValueType } from "../method-types.js";
import type { BodyCheck } from "./context.js";

export const sessionName = "$session";
/** The members of `$session` and their types (policy conditions read them too, check/policies.ts). */
export const sessionMembers: Readonly<Record<string, ValueType>> = {
  user: { k: "int", name: "Id", nullable: true },
  role: { k: "text", name: "Text", nullable: true },
};

/** `$session.user` / `$session.role`: which one `e` reads, if it is one. */
export function sessionMember(e: Expr): "user" | "role" | undefined {
  if (e.kind !== "MemberExpr" || e.object.kind !== "NameExpr" || e.object.name.text !== sessionName) return undefined;
  const m = e.member.text;
  return m === "user" || m === "role" ? m : undefined;
}

/** Whether `e` is `$session.user` itself: stored into a Text field it is the user's text. */
export function isSessionUser(e: Expr): boolean {
  return sessionMember(e) === "user";
}

/** Types `$session.x`; an unknown member is WO5030. */
export function sessionMemberType(check: BodyCheck, e: MemberExpr): ValueType {
  const t = sessionMembers[e.member.text];
  if (t) return t;
  check.bag.report("WO5030", e.member.span, {
    member: e.member.text,
    hint: didYouMean(e.member.text, Object.keys(sessionMembers)),
  });
  return unknownType;
}

/** A `$name` anywhere but as `$session.user`/`.role` (a bare `$session`, `$user`): WO5031. */
export function reportLoneParam(check: BodyCheck, name: { text: string; span: Expr["span"] }): ValueType {
  check.bag.report("WO5031", name.span, {
    name: name.text,
    hint: name.text === sessionName ? "" : didYouMean(name.text, [sessionName]),
  });
  return unknownType;
}
