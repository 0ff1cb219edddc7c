// Warnings for constructs that parse but that wo does not execute yet (spec/diagnostics.md
// WO21xx): trigger actions wo does not run yet (emit, enqueue), top-level policies with an
// effect other than skip-row-filters (check/policies.ts), `main`/`test` blocks, hooks, `##` blocks,
// unknown type annotations, and class methods whose body uses a statement
// or expression of the full language that wo never runs (`LIVE select`, `as session`, edge
// labels). A warning, not an error, so a program written for the full language still checks;
// the user learns what is inert.

import type { Block, Expr, FnDecl, SourceFileAst, Span, Stmt, TypeDecl } from "../ast.js";
import type { CatalogMethod } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { didYouMean } from "./did-you-mean.js";
import { triggerEvents } from "./triggers.js";
import type { TypeExposure } from "./services.js";

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
        break; // compiled into Catalog.bypassPolicies (check/policies.ts)
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
    if (a.name.text !== "table" && a.name.text !== "renamed_from")
      bag.report("WO2106", a.name.span, { name: a.name.text });
  }
  for (const m of decl.members) {
    // Policy lines are compiled into CatalogType.policies (check/policies.ts).
    if (m.kind === "Trigger") {
      // A known event is built and run (check/triggers.ts); a misspelt one would never fire.
      const event = m.event.text;
      if (!(triggerEvents as readonly string[]).includes(event))
        bag.report("WO2030", m.event.span, {
          event,
          known: triggerEvents.join(", "),
          hint: didYouMean(event, [...triggerEvents]),
        });
    }
  }
}

/** A construct of the full language that no body runs: what it is and why, for WO5025 / WO2114. */
export interface UnexecutedConstruct {
  span: Span;
  what: string;
  why: string;
}

/**
 * The reason wo does not run `node`, when it is one of the constructs no body runs (a `LIVE
 * select`, `as session`); else undefined. The method checker
 * reports these as WO5025 in free fns, `main` and tests, whose callers then skip them.
 */
export function unexecutedConstruct(node: Stmt | Expr): UnexecutedConstruct | undefined {
  switch (node.kind) {
    case "LiveExpr":
      // `subscribe live T{ … }` runs (check/body/queries.ts subscription).
      if (node.form === "subscribe live") return undefined;
      return {
        span: node.span,
        what: "A 'LIVE select' binding",
        why: "subscribe with 'subscribe live T{ … }' and take each delta with 'receive(sub)'",
      };
    case "AsSessionStmt":
      // Tests run these (check/body/statements.ts).
      if (node.principal || node.row || node.identity?.text === "anonymous") return undefined;
      return {
        span: node.span,
        what: `'as session ${node.identity?.text ?? ""}'`,
        why: "name the caller as 'as session { user: …, role: … }', 'as session anonymous' or 'as session $row'",
      };
    default:
      return undefined;
  }
}

/** WO5025 at a construct no body runs, with the reason. */
export function reportUnexecuted(bag: DiagnosticBag, node: Stmt | Expr): void {
  const { span, what, why } = unexecutedConstruct(node)!;
  bag.report("WO5025", span, { what, why });
}

/** The first construct of `body`, in source order, that no body runs. */
export function firstUnexecutedConstruct(body: Block): UnexecutedConstruct | undefined {
  let first: UnexecutedConstruct | undefined;
  // Every statement and expression node has a `kind`; the walk needs no list of their children.
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const found = "kind" in node ? unexecutedConstruct(node as Stmt | Expr) : undefined;
    if (found && (!first || found.span.offset < first.span.offset)) first = found;
    for (const value of Object.values(node)) if (typeof value === "object") visit(value);
  };
  visit(body);
  return first;
}

/**
 * Class methods whose body uses a construct no body runs are not executed: a warning each
 * (WO2114) at the method's name, no route and no tool (their expose entries are dropped), and
 * calls of them are WO5028, like calls of a free fn that is not executed. Returns the methods
 * that remain; `skipped` gains `Type.method` → reason for each one left out.
 */
export function skipUnexecutedMethods(
  decl: TypeDecl,
  methods: CatalogMethod[],
  exposure: TypeExposure,
  skipped: Map<string, string>,
  bag: DiagnosticBag,
): CatalogMethod[] {
  const kept: CatalogMethod[] = [];
  const dropped = new Set<string>();
  for (const method of methods) {
    const construct = firstUnexecutedConstruct(method.body);
    if (!construct) {
      kept.push(method);
      continue;
    }
    const name = `${decl.name.text}.${method.name}`;
    const at = `${construct.span.file}:${construct.span.line}:${construct.span.col}`;
    const span = decl.members.find((m): m is FnDecl => m.kind === "FnDecl" && m.body === method.body)!.name.span;
    bag.report("WO2114", span, { name, what: construct.what, at, why: construct.why });
    skipped.set(name, `${construct.what} is not supported yet: ${construct.why} at ${at}`);
    dropped.add(method.name);
  }
  if (dropped.size > 0) {
    exposure.rest = exposure.rest.map((r) => ({ ...r, ops: r.ops.filter((op) => !dropped.has(op)) }));
    exposure.mcp = exposure.mcp.filter((op) => !dropped.has(op));
  }
  return kept;
}
