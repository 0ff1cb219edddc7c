// `wo run --watch`: watches the app folder and its shared folders (every folder of them, cli/commands/tree-watcher.ts, so
// that a save by rename is seen like any other) and, after each change to a `.wo` file or
// wo.toml (debounced: an editor's save is often several events), rebuilds in a worker thread as
// `wo run` does at start, but in one worker kept for all rebuilds, so the compiler loads once
// (compiler/build-worker.ts). Errors: the diagnostics are printed and the build serving stays. Success: the
// server migrates its store and swaps the build in (runtime/server.ts reload(), spec/live.md).
// `.wo/` (the build and the data) is never watched for changes: the server writes there itself.

import { statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { RunningServer } from "../../runtime/server.js";
import { hashInputs } from "../../compiler/build-info.js";
import { startBuildWorker } from "../../compiler/build-worker.js";
import { configFileName } from "../../compiler/check/config.js";
import { layoutOnDisk } from "../../compiler/check/layout.js";
import { isProgramPath } from "../../compiler/check/load.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { watchTree, type TreeWatcher } from "./tree-watcher.js";

/**
 * Quiet time after the last event before rebuilding: one save, one build. A save by rename is
 * several events within a millisecond or two; a `git checkout` of many files, within tens.
 */
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
  builder.rehearse(dir);

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
      // Folders created, removed or replaced since the last build are watched (or dropped)
      // before the sources are read: a save into a new folder after this point is an event.
      tree.sync();
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

  const watchesFolder = (relDir: string) => isProgramPath(`${relDir}/x.wo`);
  // The app's folder, then each shared folder outside it (compiler/check/layout.ts): a save in
  // `../../libs/types` (spec/language.md "Workspaces") rebuilds the app like a save in its own folder.
  const folders = [
    root,
    ...layoutOnDisk(root)
      .shared.map((f) => f.dir)
      .filter((d) => !isInside(root, d)),
  ];
  const trees: TreeWatcher[] = [];
  for (const folder of folders) {
    try {
      trees.push(
        watchTree(folder, {
          watchesFolder,
          onEvent: (path) => {
            if (path === undefined || isWatched(path) || (watchesFolder(path) && isFolder(join(folder, path))))
              schedule();
          },
          onError: (relDir, err) =>
            write(`wo: cannot watch ${join(folder, relDir)}: ${err.message}; changes in it are not seen\n`),
        }),
      );
    } catch (err) {
      write(`wo: cannot watch ${folder}: ${(err as Error).message}; serving without --watch\n`);
      for (const t of trees) t.close();
      builder.close();
      return { close: () => undefined };
    }
  }
  const tree = { sync: () => trees.forEach((t) => t.sync()), close: () => trees.forEach((t) => t.close()) };
  write(`wo: watching ${dir} for changes to .wo files and ${configFileName}\n`);
  // A save between the start's build and this point made no event: compare the sources with
  // what serves once now (a hash, no build when they match), so it is not missed until the next.
  schedule();
  return {
    close() {
      if (timer) clearTimeout(timer);
      tree.close();
      builder.close();
    },
  };
}

/**
 * A `.wo` file of the program, wo.toml, or a name that may be a folder holding `.wo` files (a
 * folder renamed or removed says nothing about its files). `.wo/`, dot folders and
 * node_modules never are. Editors' temp files (`note.wo~`, `#note.wo#`, `.note.wo.swp`) are not.
 */
function isWatched(path: string): boolean {
  if (path === configFileName || isProgramPath(path)) return true;
  const last = path.slice(path.lastIndexOf("/") + 1);
  return !last.includes(".") && isProgramPath(`${path}/x.wo`);
}

/** Whether `dir` is `root` or below it. */
function isInside(root: string, dir: string): boolean {
  const rel = relative(root, dir);
  return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`));
}

/** A folder now (one created or renamed in, whatever its name). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
