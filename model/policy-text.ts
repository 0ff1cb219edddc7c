// Policies in words, for people: `wo check`, the language server's hover and the startup
// banner say the same thing the same way (spec/policies.md).

import type { BypassPolicy, Grantee, PolicyAction, PolicyExpr, PolicyGrant, PolicyValue } from "./policy.js";

export const policyActionsInOrder: readonly PolicyAction[] = ["read", "write", "delete"];

export function granteeText(g: Grantee): string {
  switch (g.kind) {
    case "anyone":
      return "anyone";
    case "authenticated":
      return "any signed-in caller";
    case "role":
      return `role ${g.role}`;
  }
}

/** A condition as it would be written in `.wo` (parenthesised where precedence needs it). */
export function policyExprText(e: PolicyExpr): string {
  switch (e.kind) {
    case "compare":
      return `${valueText(e.left)} ${e.op} ${valueText(e.right)}`;
    case "truthy":
      return valueText(e.value);
    case "not":
      return `not ${e.item.kind === "truthy" ? policyExprText(e.item) : `(${policyExprText(e.item)})`}`;
    case "and":
      return e.items.map((i) => (i.kind === "or" ? `(${policyExprText(i)})` : policyExprText(i))).join(" and ");
    case "or":
      return e.items.map(policyExprText).join(" or ");
  }
}

function valueText(v: PolicyValue): string {
  switch (v.kind) {
    case "field":
      return v.path.join(".");
    case "self":
      return "self";
    case "session":
      return `$session.${v.member}`;
    case "literal":
      // A variant is written bare; other text quoted.
      return typeof v.value === "string" && /^[A-Z][A-Za-z0-9_]*$/.test(v.value) ? v.value : JSON.stringify(v.value);
  }
}

/** `anyone when status == Published`: one grant without its action. */
export function grantText(g: PolicyGrant): string {
  return g.when ? `${granteeText(g.grantee)} when ${policyExprText(g.when)}` : granteeText(g.grantee);
}

/**
 * One line per action of a type with policies: `read: anyone when status == Published; or role
 * Editor`, `delete: owner only`. Empty for a type without policy lines (no rule narrows it).
 */
export function policySummary(grants: readonly PolicyGrant[] | undefined): string[] {
  if (!grants || grants.length === 0) return [];
  return policyActionsInOrder.map((action) => {
    const lines = grants.filter((g) => g.action === action);
    return `${action}: ${lines.length === 0 ? "owner only" : lines.map(grantText).join("; or ")}`;
  });
}

/** `policy Editors: every row of Post, Comment for role Editor callers` style line. */
export function bypassText(b: BypassPolicy): string {
  const types = b.appliesTo.includes("*") ? "every type" : b.appliesTo.join(", ");
  const who = b.when ? `signed-in callers when ${policyExprText(b.when)}` : "every signed-in caller";
  return `policy ${b.name}: ${who} read every row of ${types} they may read at all (skip-row-filters)`;
}
