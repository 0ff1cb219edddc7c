// `@renamed_from("old")` on a type or a top-level field: the name it had, so that the next
// migration renames its table or column and keeps the stored rows and values, where it would
// otherwise drop the old one and add a new, empty one (model/shape-diff.ts, spec/storage.md
// "Migrations"). The argument is one string holding a plain name.

import type { Annotation } from "../ast.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";

const nameString = /^\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*$/;

/** The old name `a` gives, or undefined (reported) when its argument is not one plain name. */
export function renamedFrom(
  a: Annotation,
  what: "a type" | "a field",
  example: string,
  bag: DiagnosticBag,
): string | undefined {
  const m = nameString.exec(a.argsText ?? "");
  if (m) return m[1];
  const why = a.argsText === undefined ? "" : ` (got ${a.argsText.trim() === "" ? "nothing" : a.argsText.trim()})`;
  bag.report("WO2041", a.span, { what, example, why });
  return undefined;
}
