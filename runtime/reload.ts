// `--watch`: serve the build in a folder from now on, by the instance's swap (runtime/instance.ts),
// printing one line on what changed, or why the previous build keeps serving. `wo run` and
// `wo mcp stdio` reload alike.

import { describeChanges } from "./build-changes.js";
import type { RuntimeInstance } from "./instance.js";
import { BuildLoadError, loadBuild } from "./load-build.js";

/** The new build's input hash once it serves; false when the previous build serves on. */
export async function reloadBuild(
  instance: RuntimeInstance,
  buildDir: string,
  out: (text: string) => void,
): Promise<{ inputHash: string | undefined } | false> {
  let next;
  try {
    next = await loadBuild(buildDir);
  } catch (err) {
    if (!(err instanceof BuildLoadError)) throw err;
    out(`wo: not reloaded: ${err.message}\n`);
    return false;
  }
  const outcome = await instance.swap(next);
  if (!outcome.swapped) {
    out(`wo: not reloaded, the previous build keeps serving: ${outcome.reason}\n`);
    return false;
  }
  for (const change of outcome.migrated) out(`wo: migrated: ${change}\n`);
  out(`wo: reloaded: ${describeChanges(outcome.changes)}\n`);
  if (outcome.changes.settings) out("wo: wo.toml settings changed; they apply when wo starts again\n");
  return { inputHash: next.inputHash };
}
