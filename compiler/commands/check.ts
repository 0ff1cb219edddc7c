// `wo check [dir]`: parse and check an app; diagnostics to stderr, one summary line to stdout.
// Exit 0 when there is no error (warnings allowed), 1 otherwise, 2 for a usage mistake.
// Nothing here prints a stack trace for a user error.

import { checkApp, type CheckResult } from "../index.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { formatDiagnostic } from "../diagnostics/format.js";

export async function runCheckCommand(args: string[]): Promise<number> {
  const flags = args.filter((a) => a.startsWith("-"));
  const dirs = args.filter((a) => !a.startsWith("-"));
  if (flags.length > 0 || dirs.length > 1) {
    const what = flags.length > 0 ? `unknown option '${flags[0]}'` : `one directory expected, got ${dirs.length}`;
    process.stderr.write(`wo check: ${what}\nusage: wo check [dir]\n`);
    return 2;
  }
  let result: CheckResult;
  try {
    result = await checkApp(dirs[0] ?? ".");
  } catch (error) {
    // A throw here is a bug in wo, never the user's mistake (STYLE.md §5).
    const detail = process.env.WO_DEBUG === "1" && error instanceof Error ? `\n${error.stack}` : "";
    process.stderr.write(`wo check: internal error: ${error instanceof Error ? error.message : String(error)} (this is a bug in wo)${detail}\n`);
    return 2;
  }
  for (const d of result.diagnostics) process.stderr.write(formatOne(d, result) + "\n");
  process.stdout.write(summaryLine(dirs[0] ?? ".", result) + "\n");
  return result.catalog ? 0 : 1;
}

function formatOne(d: Diagnostic, result: CheckResult): string {
  const text = result.sources.get(d.span.file);
  // Diagnostics about a directory or an unreadable file have no source to excerpt.
  if (text === undefined) return `${d.span.file}: ${d.severity} ${d.code}: ${d.message}`;
  return formatDiagnostic(d, text).replace(/\n+$/, "");
}

/** `samples/blog: 5 types, 6 services, 2 methods, 14 tools — ok (3 warnings)`. */
export function summaryLine(dir: string, result: CheckResult): string {
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  const name = dir.replace(/\/+$/, "") || dir;
  const warned = warnings > 0 ? ` (${plural(warnings, "warning")})` : "";
  if (!result.catalog) return `${name}: ${plural(errors, "error")}${warned} — not ok`;
  const s = result.summary;
  const counts = [plural(s.types, "type"), plural(s.services, "service"), plural(s.methods, "method"), plural(s.tools, "tool")].join(", ");
  return `${name}: ${counts} — ok${warned}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
