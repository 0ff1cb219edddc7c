// The warnings that mean "the program declares a rule wo does not enforce or execute yet":
// policies that are not executed, computed fields whose expression wo cannot read,
// annotations not enforced (`@index`, `@check(…)` text that is no expression wo reads,
// `@default(…)` without a literal). `wo check` counts them ("N declared rules are not enforced", spec/
// diagnostics.md), so when a construct starts to run and its check stops reporting the
// warning, the count goes down by itself. One list, here, and nowhere else.

import type { Diagnostic } from "./diagnostic.js";
import type { DiagnosticCode } from "./codes.js";

export const unenforcedRuleCodes: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  "WO2104", // a top-level policy with an effect that is not executed
  "WO2107", // a computed field that is not evaluated
  "WO2108", // an annotation that is parsed but not enforced
]);

export function isUnenforcedRule(d: Pick<Diagnostic, "code">): boolean {
  return unenforcedRuleCodes.has(d.code);
}

/** How many declared rules the diagnostics say are not enforced. */
export function countUnenforcedRules(diagnostics: readonly Pick<Diagnostic, "code">[]): number {
  return diagnostics.filter(isUnenforcedRule).length;
}

/** `2 declared rules are not enforced`, or undefined when there are none. */
export function unenforcedRulesLine(diagnostics: readonly Pick<Diagnostic, "code">[]): string | undefined {
  const n = countUnenforcedRules(diagnostics);
  if (n === 0) return undefined;
  return n === 1
    ? "1 declared rule is not enforced (see the warning above)"
    : `${n} declared rules are not enforced (see the warnings above)`;
}
