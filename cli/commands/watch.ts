// `wo run --watch`: watches the app folder and, after each change to a `.wo` file or wo.toml
// (debounced: an editor's save is often several events), rebuilds in a worker thread as
// `wo run` does at start, but in one worker kept for all rebuilds, so the compiler loads once
// (compiler/build-worker.ts). Errors: the diagnostics are printed and the build serving stays. Success: the
// server migrates its store and swaps the build in (runtime/server.ts reload(), spec/live.md).
// `.wo/` (the build and the data) is never watched for changes: the server writes there itself.

import { watch, type FSWatcher } from "node:fs";
import { resolve, sep } from "node:path";
import type { RunningServer } from "../../runtime/server.js";
import { hashInputs } from "../../compiler/build-info.js";
import { startBuildWorker } from "../../compiler/build-worker.js";
import { configFileName } from "../../compiler/check/config.js";
import { isProgramPath } from "../../compiler/check/load.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";

/** Quiet time after the last event before rebuilding: one save, one build. */
const debounceMillis = 100;

export interface AppWatcher {
  close(): void;
}

export function watchApp(dir: string, server: RunningServer, write: (text: string) => void): AppWatcher {
  const root = resolve(dir);
  let timer: NodeJS.Timeout | undefined;
  let building = false;
  let again = false;
  const builder = startBuildWorker();

  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), debounceMillis);
  };

  // One build at a time; changes that arrive during one start another after it.
  const rebuild = async () => {
    if (building) {
      again = true;
      return;
    }
    building = true;
    try {
      // Hashing the sources is cheap; the compiler starts only when they differ from what serves
      // (a save without changes, an editor's backup file, a revert to the serving text).
      const hash = await hashInputs(root);
      if (hash !== undefined && hash === server.inputHash) return;
      const built = await builder.build(dir);
      for (const d of built.diagnostics) write(`${formatWithSources(d, built.sources)}\n`);
      if (!built.ok) {
        write(`wo: not reloaded, the previous build keeps serving: ${built.error ?? "the app has errors"}.\n`);
        return;
      }
      await server.reload(built.outDir);
    } catch (err) {
      write(`wo: not reloaded: ${err instanceof Error ? err.message : String(err)} (this is a bug in wo)\n`);
    } finally {
      building = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };

  let watcher: FSWatcher;
  try {
    // Recursive watching works on Linux from Node 20 (and natively on macOS and Windows).
    watcher = watch(root, { recursive: true }, (_event, name) => {
      if (name === null || isWatched(name.split(sep).join("/"))) schedule();
    });
  } catch (err) {
    write(`wo: cannot watch ${root}: ${(err as Error).message}; serving without --watch\n`);
    builder.close();
    return { close: () => undefined };
  }
  watcher.on("error", (err) => write(`wo: watching ${root} stopped: ${err.message}; restart wo run to watch again\n`));
  write(`wo: watching ${dir} for changes to .wo files and ${configFileName}\n`);
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
      builder.close();
    },
  };
}

/**
 * A `.wo` file of the program, wo.toml, or a folder that may hold `.wo` files (a folder renamed
 * or removed says nothing about its files). `.wo/`, dot folders and node_modules never are.
 */
function isWatched(path: string): boolean {
  if (path === configFileName || isProgramPath(path)) return true;
  const last = path.slice(path.lastIndexOf("/") + 1);
  return !last.includes(".") && isProgramPath(`${path}/x.wo`);
}
