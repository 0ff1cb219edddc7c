// The app's build as every command but `wo run` starts from it: built if stale (as wo run
// does), its errors printed with their source lines, then loaded. A command gets the loaded
// build, or the exit code 1 after `wo <command>: <why>` was printed.

import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { BuildLoadError, loadBuild, type LoadedBuild } from "../../runtime/load-build.js";
import { buildIfStale } from "./run.js";

export interface AppBuildOptions {
  /** Print warnings too, not only errors (`wo mcp stdio`, whose stderr is its only terminal). */
  warnings?: boolean;
  /** A workspace root builds its own program (shared folders and tests) instead of refusing (`wo test`). */
  workspace?: "refuse" | "allow";
}

export async function loadAppBuild(
  dir: string,
  command: string,
  options: AppBuildOptions = {},
): Promise<LoadedBuild | 1> {
  const built = await buildIfStale(dir, command, options.workspace);
  for (const d of built.diagnostics)
    if (options.warnings || d.severity === "error") process.stderr.write(`${formatWithSources(d, built.sources)}\n`);
  if (!built.ok) return fail(command, `${built.error ?? "the app has errors; fix them and run again"}.`);
  try {
    return await loadBuild(built.outDir);
  } catch (err) {
    if (err instanceof BuildLoadError) return fail(command, err.message);
    throw err;
  }
}

function fail(command: string, message: string): 1 {
  process.stderr.write(`wo ${command}: ${message}\n`);
  return 1;
}
