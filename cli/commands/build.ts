// `wo build [dir] [--out DIR] [--force]`: check, then generate the build folder (spec/schemas.md,
// "The build folder"). Diagnostics to stderr; a summary or "up to date" to stdout. Exit 0 on
// success, 1 on source errors or an unwritable output, 2 for a usage mistake or a bug in wo.
import { relative } from "node:path";
import { buildApp, type BuildResult } from "../../compiler/build.js";
import { workspaceRefusal } from "../../compiler/check/layout.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { counted } from "../../model/words.js";
import type { ParsedArgs } from "./args.js";

export async function runBuildCommand(args: ParsedArgs): Promise<number> {
  const out = args.value("--out");
  const started = performance.now();
  let result: BuildResult;
  const refused = workspaceRefusal(args.first ?? ".", "build");
  if (refused) {
    for (const d of refused.diagnostics) process.stderr.write(`${formatWithSources(d, refused.sources)}\n`);
    return 1;
  }
  try {
    result = await buildApp(args.first ?? ".", { ...(out !== undefined ? { out } : {}), force: args.has("--force") });
  } catch (error) {
    // A throw here is a bug in wo, never the user's mistake: exit 2 (spec/diagnostics.md).
    const detail = process.env.WO_DEBUG === "1" && error instanceof Error ? `\n${error.stack}` : "";
    process.stderr.write(
      `wo build: internal error: ${error instanceof Error ? error.message : String(error)} (this is a bug in wo)${detail}\n`,
    );
    return 2;
  }
  for (const d of result.diagnostics) process.stderr.write(`${formatWithSources(d, result.sources)}\n`);
  const where = displayPath(result.outDir);
  if (result.error) {
    process.stderr.write(`wo build: ${result.error}\n`);
    return 1;
  }
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    process.stderr.write(`wo build: ${counted(errors, "error")}; nothing written (${where} unchanged)\n`);
    return 1;
  }
  if (result.skipped) {
    process.stdout.write(`${where}: up to date\n`);
    return 0;
  }
  const ms = Math.round(performance.now() - started);
  const s = result.summary ?? { tools: 0, routes: 0 };
  process.stdout.write(
    `${where}: ${s.tools} tools, ${s.routes} routes, ${result.files.length} files written in ${ms} ms\n`,
  );
  return 0;
}

function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}
