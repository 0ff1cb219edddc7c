// The single-writer lock on a data folder: a second `wo run` on the same folder is refused
// with a clear message instead of two servers migrating and writing one database.
//
// A lock file `<dir>/wo.lock` created with O_EXCL ("wx") holds the owner's pid. It is stale
// when that pid is no longer alive (a killed server leaves it behind), or when it names this
// very process but this process does not hold it (a container restarts with the same pid):
// then it is replaced. Released on close; the file is removed only if it is still ours.

import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DataLockError } from "./open-errors.js";

export interface DataLock {
  readonly file: string;
  release(): void;
}

const lockName = "wo.lock";
/** Lock files this process holds: a second acquire in the same process is refused too. */
const held = new Set<string>();

export function acquireDataLock(dir: string): DataLock {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, lockName);
  // Two attempts: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(file)) return holdLock(file);
    const owner = readOwner(file);
    if (owner === undefined) continue; // vanished between our attempt and the read: retry
    if (isHeldByLiveProcess(file, owner)) {
      throw new DataLockError(
        `The data folder ${dir} is in use by another wo process (pid ${owner}). Stop it first, or, if no wo process is running, delete ${file}.`,
        file,
        owner,
      );
    }
    removeStale(file, owner);
  }
  throw new DataLockError(`Could not lock the data folder ${dir}: ${file} keeps reappearing (another wo process starting?).`, file, -1);
}

function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function holdLock(file: string): DataLock {
  held.add(file);
  let isReleased = false;
  return {
    file,
    release() {
      if (isReleased) return;
      isReleased = true;
      held.delete(file);
      if (readOwner(file) === process.pid) {
        try {
          unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      }
    },
  };
}

/** The pid in the file; NaN for garbage (a crash mid-write), undefined when there is no file. */
function readOwner(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return /^\d+\s*$/.test(text) ? Number(text.trim()) : Number.NaN;
}

function isHeldByLiveProcess(file: string, pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return held.has(file);
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else; only ESRCH means it is gone.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// Rename first, then check what we moved: if another starter replaced the stale file in the
// meantime we moved a live lock, and put it back.
function removeStale(file: string, stalePid: number): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else removed it first
  }
  const moved = readOwner(aside);
  if (moved !== stalePid && !(Number.isNaN(moved) && Number.isNaN(stalePid))) {
    try {
      renameSync(aside, file);
    } catch {
      // Best effort; the next attempt reports what it finds.
    }
    return;
  }
  try {
    unlinkSync(aside);
  } catch {
    // Gone already.
  }
}
