// Free (top-level) `fn`s: signatures, bodies, and which of them wo executes.
//
// A free fn is checked with the method language (check/methods.ts) without `self`. One whose
// body checks cleanly goes into `catalog.functions`: methods and other functions call it, and
// it runs in the caller's transaction. One whose body has an error is not executed; it gets a
// single warning naming the first error (WO2111), so a program written for the full language
// (whose functions may use what wo does not run yet, such as a live query) still checks, and a call
// of it from code that runs is an error (WO5028). Writes are judged at the entry point: a free
// fn needs no `in txn` to write, and neither do its callers: every call is one transaction.

import type { FnDecl, MainBlock, SourceFileAst, StartupHook, TestBlock } from "../ast.js";
import type { Catalog, CatalogMethod } from "../catalog.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { locationOf, type CheckContext } from "./context.js";
import { buildMethod } from "./methods-catalog.js";
import { typeMethod } from "./methods.js";

/**
 * Why each free fn (`name`) or class method (`Type.name`, check/unexecuted.ts) that is not
 * executed is not (for WO5028 at its call sites).
 */
export type SkippedFunctions = Map<string, string>;

/** `skipped` starts with the class methods that are not executed; the free fns left out join it. */
export function checkFunctions(
  files: SourceFileAst[],
  catalog: Catalog,
  ctx: CheckContext,
  skipped: SkippedFunctions = new Map(),
): SkippedFunctions {
  const decls = files.flatMap((f) => f.items.filter((i): i is FnDecl => i.kind === "FnDecl"));
  const candidates: CatalogMethod[] = [];
  const seen = new Set<string>();
  for (const fn of decls) {
    if (seen.has(fn.name.text)) {
      ctx.bag.report("WO2020", fn.name.span, { name: fn.name.text, type: "the program's top level" });
      continue;
    }
    seen.add(fn.name.text);
    candidates.push(buildMethod(fn, ctx));
  }
  // A function that calls one that is not executed is not executed either: repeat until stable.
  let callable = candidates;
  for (;;) {
    catalog.functions = callable;
    const next: CatalogMethod[] = [];
    for (const fn of callable) {
      const scratch = new DiagnosticBag();
      typeMethod(catalog, undefined, fn, scratch, skipped);
      const first = scratch.sorted().find((d) => d.severity === "error");
      if (!first) {
        next.push(fn);
        continue;
      }
      skipped.set(fn.name, `${first.message} at ${first.span.file}:${first.span.line}:${first.span.col}`);
      ctx.bag.report("WO2111", spanOf(decls, fn), {
        name: fn.name,
        reason: first.message,
        at: `${first.span.file}:${first.span.line}:${first.span.col}`,
      });
    }
    if (next.length === callable.length) break;
    callable = next;
  }
  if (callable.length > 0) catalog.functions = callable;
  else delete catalog.functions;
  return skipped;
}

function spanOf(decls: FnDecl[], fn: CatalogMethod) {
  return decls.find((d) => d.body === fn.body)!.name.span;
}

/**
 * `on startup do: f()` hooks → `catalog.startup`. A hook wo cannot run (another form, an
 * unknown fn, a fn that is not executed or takes parameters) is a warning with the reason.
 */
export function checkStartupHooks(
  files: SourceFileAst[],
  catalog: Catalog,
  skipped: SkippedFunctions,
  ctx: CheckContext,
): void {
  const names: string[] = [];
  for (const hook of files.flatMap((f) => f.items.filter((i): i is StartupHook => i.kind === "StartupHook"))) {
    const m = /^do\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)\s*;?$/.exec(hook.text.trim());
    const name = m?.[1];
    const fn = name === undefined ? undefined : catalog.functions?.find((f) => f.name === name);
    let reason: string | undefined;
    if (name === undefined) reason = "write it as 'do: f()', naming a top-level fn";
    else if (skipped.has(name)) reason = `fn '${name}' is not executed (${skipped.get(name)!})`;
    else if (!fn) reason = `there is no top-level fn '${name}'`;
    else if (fn.params.length > 0) reason = `fn '${name}' takes parameters, and a hook passes none`;
    if (reason !== undefined) ctx.bag.report("WO2112", hook.span, { reason });
    else names.push(name!);
  }
  if (names.length > 0) catalog.startup = names;
}

/** The first `main` block → `catalog.main` (what `wo exec` runs), or a warning saying why not. */
export function checkMain(
  files: SourceFileAst[],
  catalog: Catalog,
  skipped: SkippedFunctions,
  ctx: CheckContext,
): void {
  const blocks = files.flatMap((f) => f.items.filter((i): i is MainBlock => i.kind === "MainBlock"));
  blocks
    .slice(1)
    .forEach((b) => ctx.bag.report("WO2113", b.span, { reason: "only the first 'main' block of the program runs" }));
  const block = blocks[0];
  if (!block) return;
  const main: CatalogMethod = { name: "main", params: [], body: block.body, source: locationOf(block.span) };
  const scratch = new DiagnosticBag();
  typeMethod(catalog, undefined, main, scratch, skipped);
  const first = scratch.sorted().find((d) => d.severity === "error");
  if (first)
    ctx.bag.report("WO2113", block.span, {
      reason: `${first.message} (${first.span.file}:${first.span.line}:${first.span.col})`,
    });
  else catalog.main = main;
}

/**
 * `test "name" { … }` blocks → `catalog.tests`. A test whose body has an error (such as `as
 * session`, which wo has no identities for) is kept as skipped with that error as the reason:
 * `wo test` reports it, never as passed.
 */
export function checkTests(files: SourceFileAst[], catalog: Catalog, skipped: SkippedFunctions): void {
  const tests: NonNullable<Catalog["tests"]> = [];
  for (const block of files.flatMap((f) => f.items.filter((i): i is TestBlock => i.kind === "TestBlock"))) {
    const source = locationOf(block.span);
    const fn: CatalogMethod = { name: block.title.value, params: [], body: block.body, source, isTest: true };
    const scratch = new DiagnosticBag();
    typeMethod(catalog, undefined, fn, scratch, skipped);
    const first = scratch.sorted().find((d) => d.severity === "error");
    if (first)
      tests.push({
        name: fn.name,
        source,
        skipped: `${first.message} (${first.span.file}:${first.span.line}:${first.span.col})`,
      });
    else tests.push({ name: fn.name, source, fn });
  }
  if (tests.length > 0) catalog.tests = tests;
}
