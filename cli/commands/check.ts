// `wo check [dir] [--format text|json] [--policies]`: parse and check an app (a workspace root:
// its own program and each of its apps, spec/language.md "Workspaces"). Text:
// diagnostics to stderr; on stdout each type's policy grants (when the app has any), then one
// summary line, and "N declared rules are not enforced" when warnings say so. JSON: the diagnostics as one array on stdout, nothing else (spec/diagnostics.md);
// with --policies an object with the diagnostics and every type's grants (spec/policies.md). Exit 0 when there is no error (warnings allowed), 1 otherwise, 2 for
// a usage mistake or a bug in wo. Nothing here prints a stack trace for a user error.

import { join, resolve } from "node:path";
import { checkApp, type CheckResult } from "../../compiler/index.js";
import { displayFile, displayPathOf } from "../../compiler/display-path.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { diagnosticsJson } from "../../compiler/diagnostics/json.js";
import { countUnenforcedRules, unenforcedRulesLine } from "../../compiler/diagnostics/declared-rules.js";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import type { SourceLocation } from "../../model/app.js";
import { bypassText, policySummary } from "../../model/policy-text.js";
import { counted } from "../../model/words.js";
import type { ParsedArgs } from "./args.js";

export async function runCheckCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  let result: CheckResult;
  // A workspace root: its own program (shared folders, tests/), then each of its apps.
  const checked: { dir: string; result: CheckResult }[] = [];
  try {
    result = await checkApp(dir);
    checked.push({ dir, result });
    for (const app of result.workspaceApps ?? []) {
      const appDir = join(dir, app).split("\\").join("/");
      checked.push({ dir: appDir, result: await checkApp(appDir) });
    }
  } catch (error) {
    // A throw here is a bug in wo, never the user's mistake: exit 2 (spec/diagnostics.md).
    const detail = process.env.WO_DEBUG === "1" && error instanceof Error ? `\n${error.stack}` : "";
    process.stderr.write(
      `wo check: internal error: ${error instanceof Error ? error.message : String(error)} (this is a bug in wo)${detail}\n`,
    );
    return 2;
  }
  if (checked.length > 1) return reportWorkspace(args, checked);
  if (args.value("--format") === "json") {
    const diagnostics = diagnosticsJson(result.diagnostics, result.sources);
    const out = args.has("--policies")
      ? { diagnostics, unenforcedRules: countUnenforcedRules(result.diagnostics), ...policiesJson(dir, result) }
      : diagnostics;
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else {
    for (const d of result.diagnostics) process.stderr.write(`${formatWithSources(d, result.sources)}\n`);
    for (const line of policyLines(result)) process.stdout.write(`${line}\n`);
    process.stdout.write(`${summaryLine(dir, result)}\n`);
    const unenforced = unenforcedRulesLine(result.diagnostics);
    if (unenforced !== undefined) process.stdout.write(`${unenforced}\n`);
  }
  return result.catalog ? 0 : 1;
}

/**
 * A workspace's programs: each diagnostic once (a shared file's is found by the root and every
 * app that includes it), then one summary line per program. Exit 0 only when every one is ok.
 */
function reportWorkspace(args: ParsedArgs, checked: { dir: string; result: CheckResult }[]): number {
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, string>();
  for (const { result } of checked) {
    for (const [file, text] of result.sources) sources.set(file, text);
    for (const d of result.diagnostics) {
      const key = `${d.span.file}\0${d.span.offset}\0${d.code}`;
      if (!seen.has(key)) {
        seen.add(key);
        diagnostics.push(d);
      }
    }
  }
  if (args.value("--format") === "json")
    process.stdout.write(`${JSON.stringify(diagnosticsJson(diagnostics, sources))}\n`);
  else {
    for (const d of diagnostics) process.stderr.write(`${formatWithSources(d, sources)}\n`);
    for (const { dir, result } of checked) process.stdout.write(`${summaryLine(dir, result)}\n`);
    const unenforced = unenforcedRulesLine(diagnostics);
    if (unenforced !== undefined) process.stdout.write(`${unenforced}\n`);
  }
  return checked.every((c) => c.result.catalog) ? 0 : 1;
}

/** Each type with policy lines, its grants per action; then the top-level bypass blocks. */
function policyLines(result: CheckResult): string[] {
  const catalog = result.catalog;
  if (!catalog) return [];
  const lines: string[] = [];
  for (const type of catalog.types) {
    const summary = policySummary(type.policies);
    if (summary.length > 0) lines.push(`${type.name}:`, ...summary.map((s) => `  ${s}`));
  }
  for (const b of catalog.bypassPolicies ?? []) lines.push(bypassText(b));
  return lines;
}

/** `--format json --policies`: every type's grants (an empty list: no policy lines) and the bypass blocks. */
function policiesJson(dir: string, result: CheckResult) {
  const catalog = result.catalog;
  // Files as the diagnostics show them: from the current directory.
  const shown = displayPathOf(dir, resolve(dir));
  const at = <T extends { source: SourceLocation }>(x: T): T => ({
    ...x,
    source: { ...x.source, file: displayFile(shown, x.source.file) },
  });
  return {
    types: (catalog?.types ?? []).map((t) => ({ name: t.name, grants: (t.policies ?? []).map(at) })),
    bypassPolicies: (catalog?.bypassPolicies ?? []).map(at),
  };
}

/** `samples/blog: 5 types, 6 services, 2 methods, 14 tools — ok (3 warnings)`. */
export function summaryLine(dir: string, result: CheckResult): string {
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  const name = dir.replace(/\/+$/, "") || dir;
  const warned = warnings > 0 ? ` (${counted(warnings, "warning")})` : "";
  if (!result.catalog) return `${name}: ${counted(errors, "error")}${warned} — not ok`;
  const s = result.summary;
  const counts = [
    counted(s.types, "type"),
    counted(s.services, "service"),
    counted(s.methods, "method"),
    counted(s.tools, "tool"),
  ].join(", ");
  return `${name}: ${counts} — ok${warned}`;
}
