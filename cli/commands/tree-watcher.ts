// Watching a folder tree so that no save is missed (spec/live.md, "Watching and hot swap").
//
// Node's recursive `fs.watch` on Linux follows files: after an editor saves by rename (write a
// temp file, rename it over: JetBrains' safe write, Emacs, gedit, `sed -i`) it no longer sees
// the file and later saves go unnoticed. This watches every folder instead, one non-recursive
// watcher each: a folder's watcher reports what happens to the names in it (written, created,
// renamed over, deleted) whatever the file's inode. Folders come and go, so after each burst of
// events `sync()` walks the tree again and arms new folders, drops removed ones and re-arms a
// folder deleted and created again (a new inode under the same name).

import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";

export interface TreeWatcherOptions {
  /** Whether a folder (app-relative, `/`-separated, "" for the root) is watched at all. */
  watchesFolder: (relDir: string) => boolean;
  /** Called for every event: the app-relative path it names, undefined when the OS gave none. */
  onEvent: (relPath: string | undefined) => void;
  /** A folder could not be watched (e.g. out of inotify watches). */
  onError: (relDir: string, err: Error) => void;
}

export interface TreeWatcher {
  /** Brings the watched folders in line with the tree on disk; cheap (one readdir per folder). */
  sync(): void;
  /** How many folders are watched now. */
  readonly size: number;
  close(): void;
}

interface Armed {
  watcher: FSWatcher;
  ino: number;
}

/** Watches `root` and the folders below it that `watchesFolder` accepts; throws if `root` cannot be watched. */
export function watchTree(root: string, options: TreeWatcherOptions): TreeWatcher {
  const armed = new Map<string, Armed>();
  const reported = new Set<string>();

  const disarm = (relDir: string) => {
    armed.get(relDir)?.watcher.close();
    armed.delete(relDir);
  };

  const arm = (relDir: string, ino: number) => {
    const watcher = watch(join(root, relDir), (_event, name) => {
      options.onEvent(name === null ? undefined : relDir ? `${relDir}/${name}` : name);
    });
    // A removed folder's watcher may end with an error; sync() re-arms it if it comes back.
    watcher.on("error", () => disarm(relDir));
    armed.set(relDir, { watcher, ino });
  };

  /** Every watched folder below (and including) relDir with its inode. */
  const walk = (relDir: string, found: Map<string, number>) => {
    let ino: number;
    let names;
    try {
      ino = statSync(join(root, relDir)).ino;
      names = readdirSync(join(root, relDir), { withFileTypes: true });
    } catch {
      return; // Gone between the parent's listing and now: the parent's watcher reports it.
    }
    found.set(relDir, ino);
    for (const entry of names) {
      const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
      // Symbolic links are not followed, as the loader does not follow them.
      if (entry.isDirectory() && options.watchesFolder(rel)) walk(rel, found);
    }
  };

  const sync = (throwForRoot = false) => {
    const found = new Map<string, number>();
    walk("", found);
    for (const relDir of [...armed.keys()]) if (found.get(relDir) !== armed.get(relDir)!.ino) disarm(relDir);
    for (const [relDir, ino] of found) {
      if (armed.has(relDir)) continue;
      try {
        arm(relDir, ino);
        reported.delete(relDir);
      } catch (err) {
        if (throwForRoot && relDir === "") throw err;
        // Said once per folder, not at every burst of events.
        if (!reported.has(relDir)) options.onError(relDir, err as Error);
        reported.add(relDir);
      }
    }
    if (throwForRoot && !armed.has("")) throw new Error(`${root} is not a readable folder`);
  };

  sync(true);
  return {
    sync: () => sync(),
    get size() {
      return armed.size;
    },
    close() {
      for (const relDir of [...armed.keys()]) disarm(relDir);
    },
  };
}
