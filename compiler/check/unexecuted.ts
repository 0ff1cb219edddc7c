// Warnings for constructs that parse but that wo does not execute yet (spec/diagnostics.md
// WO21xx): policies, triggers, `main`/`test` blocks, top-level policies and
// hooks, `##` blocks, unknown type annotations. A warning, not an error, so a program written
// for the full language still checks; the user learns what is inert.

import type { SourceFileAst, TypeDecl } from "../ast.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { didYouMean } from "./did-you-mean.js";

export function warnTopLevel(file: SourceFileAst, bag: DiagnosticBag): void {
  for (const item of file.items) {
    switch (item.kind) {
      case "TypeDecl":
        break;
      case "FnDecl":
        break; // checked, and executed when called (check/functions.ts)
      case "MainBlock":
        break; // `wo exec` runs it (check/functions.ts)
      case "TestBlock":
        break; // `wo test` runs it, or reports it skipped with the reason (check/functions.ts)
      case "TopPolicy":
        bag.report("WO2104", item.name.span, { what: `policy '${item.name.text}'` });
        break;
      case "StartupHook":
        break; // run at start when it names a free fn (check/functions.ts)
      case "AppManifest":
        bag.report("WO2109", item.span, { marker: "##app" });
        break;
      case "OpaqueBlock":
        bag.report("WO2109", item.marker.span, { marker: item.marker.text });
        break;
    }
  }
}

export function warnTypeMembers(decl: TypeDecl, bag: DiagnosticBag): void {
  for (const a of decl.annotations) {
    if (a.name.text !== "table") bag.report("WO2106", a.name.span, { name: a.name.text });
  }
  for (const m of decl.members) {
    if (m.kind === "PolicyLine") bag.report("WO2101", m.span, { action: m.action.text });
    else if (m.kind === "Trigger") {
      // Inert, but a misspelt event would never fire even once triggers run: an error now.
      const event = m.event.text;
      if (triggerEvents.includes(event)) bag.report("WO2102", m.span, { event });
      else bag.report("WO2030", m.event.span, { event, known: triggerEvents.join(", "), hint: didYouMean(event, triggerEvents) });
    }
  }
}

/** The row events a type-level trigger may name (the reference's `on create|update|delete`). */
export const triggerEvents = ["create", "update", "delete"];
