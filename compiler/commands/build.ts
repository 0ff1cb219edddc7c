// `wo build [dir] [--out DIR] [--force]`: check, then generate the build folder (DESIGN.md
// "Command line"). Diagnostics to stderr; a summary or "up to date" to stdout. Exit 0 on
// success, 1 on source errors or an unwritable output, 2 for a usage mistake or a bug in wo.
import { relative } from "node:path";
import { buildApp, type BuildResult } from "../build.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { formatDiagnostic } from "../diagnostics/format.js";

const usage = "usage: wo build [dir] [--out DIR] [--force]";

export async function runBuildCommand(args: string[]): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === "string") {
    process.stderr.write(`wo build: ${parsed}\n${usage}\n`);
    return 2;
  }
  const started = performance.now();
  let result: BuildResult;
  try {
    result = await buildApp(parsed.dir, { ...(parsed.out ? { out: parsed.out } : {}), force: parsed.force });
  } catch (error) {
    // A throw here is a bug in wo, never the user's mistake (STYLE.md §5).
    const detail = process.env.WO_DEBUG === "1" && error instanceof Error ? `\n${error.stack}` : "";
    process.stderr.write(`wo build: internal error: ${error instanceof Error ? error.message : String(error)} (this is a bug in wo)${detail}\n`);
    return 2;
  }
  for (const d of result.diagnostics) process.stderr.write(formatOne(d, result) + "\n");
  const where = displayPath(result.outDir);
  if (result.error) {
    process.stderr.write(`wo build: ${result.error}\n`);
    return 1;
  }
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    process.stderr.write(`wo build: ${errors} error${errors === 1 ? "" : "s"}; nothing written (${where} unchanged)\n`);
    return 1;
  }
  if (result.skipped) {
    process.stdout.write(`${where}: up to date\n`);
    return 0;
  }
  const ms = Math.round(performance.now() - started);
  const s = result.summary ?? { tools: 0, routes: 0 };
  process.stdout.write(`${where}: ${s.tools} tools, ${s.routes} routes, ${result.files.length} files written in ${ms} ms\n`);
  return 0;
}

function parseArgs(args: string[]): { dir: string; out?: string; force: boolean } | string {
  const dirs: string[] = [];
  let out: string | undefined;
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--out" || a === "-o") {
      const value = args[++i];
      if (value === undefined || value === "") return `${a} needs a folder`;
      out = value;
    } else if (a.startsWith("--out=")) {
      out = a.slice("--out=".length);
      if (out === "") return "--out needs a folder";
    } else if (a === "--force") {
      force = true;
    } else if (a.startsWith("-")) {
      return `unknown option '${a}'`;
    } else {
      dirs.push(a);
    }
  }
  if (dirs.length > 1) return `one directory expected, got ${dirs.length}`;
  return out === undefined ? { dir: dirs[0] ?? ".", force } : { dir: dirs[0] ?? ".", out, force };
}

function formatOne(d: Diagnostic, result: BuildResult): string {
  const text = result.sources.get(d.span.file);
  if (text === undefined) return `${d.span.file}: ${d.severity} ${d.code}: ${d.message}`;
  return formatDiagnostic(d, text).replace(/\n+$/, "");
}

function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}
