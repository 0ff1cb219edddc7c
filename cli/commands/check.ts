// `wo check [dir] [--format text|json]`: parse and check an app. Text: diagnostics to stderr,
// one summary line to stdout. JSON: the diagnostics as one array on stdout, nothing else
// (spec/diagnostics.md). Exit 0 when there is no error (warnings allowed), 1 otherwise, 2 for
// a usage mistake or a bug in wo. Nothing here prints a stack trace for a user error.

import { checkApp, type CheckResult } from "../../compiler/index.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { diagnosticsJson } from "../../compiler/diagnostics/json.js";
import { counted } from "../../model/words.js";
import type { ParsedArgs } from "./args.js";

export async function runCheckCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  let result: CheckResult;
  try {
    result = await checkApp(dir);
  } catch (error) {
    // A throw here is a bug in wo, never the user's mistake: exit 2 (spec/diagnostics.md).
    const detail = process.env.WO_DEBUG === "1" && error instanceof Error ? `\n${error.stack}` : "";
    process.stderr.write(
      `wo check: internal error: ${error instanceof Error ? error.message : String(error)} (this is a bug in wo)${detail}\n`,
    );
    return 2;
  }
  if (args.value("--format") === "json") {
    process.stdout.write(`${JSON.stringify(diagnosticsJson(result.diagnostics, result.sources))}\n`);
  } else {
    for (const d of result.diagnostics) process.stderr.write(`${formatWithSources(d, result.sources)}\n`);
    process.stdout.write(`${summaryLine(dir, result)}\n`);
  }
  return result.catalog ? 0 : 1;
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
