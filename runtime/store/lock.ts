// The single-writer lock on a data folder: a second `wo run` on the same folder is refused
// with a clear message instead of two servers migrating and writing one database.
//
// The lock file `<dir>/wo.lock` holds the owner's pid. It is stale when that pid is no longer
// alive (a killed server leaves it behind), when it holds garbage, or when it names this very
// process but this process does not hold it (a container restarts with the same pid): then it
// is replaced. Released on close; the file is removed only if it is still ours.
//
// Races between processes starting at the same moment are the point of the lock, so:
// - The lock never exists without its pid: it is created whole (create-whole.ts). (Creating the
//   lock file empty and writing the pid next lets a starter read it empty in between, think it
//   stale and take it too.)
// - Removing a stale lock is serialized by a second lock, `wo.lock.takeover`, taken the same
//   way: reading the lock, finding it stale and removing it are three steps, and two starters
//   doing them at once would otherwise let the slower one remove the faster one's new lock.
//   If a process died holding the takeover lock, that one is stale in turn and is removed the
//   same way (under `wo.lock.takeover.takeover`).

import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createWhole, unlinkQuietly } from "./create-whole.js";
import { DataLockError, folderNotWritable } from "./open-errors.js";
import { StoreOpenError } from "../../model/store.js";

export interface DataLock {
  readonly file: string;
  release(): void;
}

const lockName = "wo.lock";
/** Lock files this process holds: a second acquire in the same process is refused too. */
const held = new Set<string>();
/**
 * Tries before giving up. Each try either wins, is refused by a live owner, or has just seen a
 * stale lock go (or waited a moment for another starter removing it): many starters at once,
 * or a lock released and retaken over and over, can take several.
 */
const maxAttempts = 50;

export function acquireDataLock(dir: string): DataLock {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, lockName);
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (createLockFile(file, `${process.pid}\n`)) return holdLock(file);
    const content = readLock(file);
    if (content === undefined) continue; // released between our attempt and the read: retry
    const owner = pidIn(content);
    if (isHeldByLiveProcess(file, owner)) {
      throw new DataLockError(
        `The data folder ${dir} is in use by another wo process (pid ${owner}). Stop it first, or, if no wo process is running, delete ${file}.`,
        file,
        owner,
      );
    }
    if (!removeStale(file, content)) sleep(2 + Math.random() * 8); // another starter is removing it
  }
  throw new DataLockError(
    `Could not lock the data folder ${dir}: ${file} keeps reappearing (another wo process starting?).`,
    file,
    -1,
  );
}

/** Creates the lock `file` holding `text`, atomically and only if it does not exist; false if it does. */
function createLockFile(file: string, text: string): boolean {
  try {
    return createWhole(file, text, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    // A folder this user may not write (or a read-only file system): say so, and how to fix it.
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") throw folderNotWritable(dirname(file), code);
    // Otherwise link() failed after the temp file was written: most likely a file system
    // without hard links.
    throw new StoreOpenError(
      `Could not lock the data folder ${dirname(file)}: creating ${file} failed (${code}); put the data folder on a local disk.`,
    );
  }
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
      // Nobody else removes a lock whose owner is alive, so it cannot change after this check.
      let content: string | undefined;
      try {
        content = readLock(file);
      } catch {
        return; // unreadable: leave it alone
      }
      if (pidIn(content) === process.pid) unlinkQuietly(file);
    },
  };
}

/**
 * Removes the lock `file` if it still holds `stale` (what was read from it and judged stale).
 * False when another starter is removing it right now: the caller waits a moment and retries.
 */
function removeStale(file: string, stale: string): boolean {
  const takeover = `${file}.takeover`;
  if (!createLockFile(takeover, `${process.pid}\n`)) {
    const holder = readLock(takeover);
    if (holder === undefined) return true; // just finished: look again
    if (isHeldByLiveProcess(takeover, pidIn(holder))) return false;
    return removeStale(takeover, holder); // it died taking over: that lock is stale too
  }
  try {
    // Holding the takeover lock, only we may remove a stale lock, and a lock is only created
    // where none exists: if the file still holds `stale`, it is the file judged stale (a new
    // lock holds a live pid; only a pid reused within this instant could look the same).
    if (readLock(file) === stale) unlinkQuietly(file);
  } finally {
    unlinkQuietly(takeover);
  }
  return true;
}

/** The lock file's text; undefined when there is no file. */
function readLock(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** The pid a lock holds; NaN for garbage (or a lock from an older wo, caught mid-write). */
function pidIn(content: string | undefined): number {
  return content !== undefined && /^\d+\s*$/.test(content) ? Number(content.trim()) : Number.NaN;
}

function isHeldByLiveProcess(file: string, pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return held.has(file);
  try {
    process.kill(pid, 0); // signal 0: existence check only
  } catch (err) {
    // EPERM: it exists but belongs to someone else; only ESRCH means it is gone.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/**
 * A process that has exited but not been reaped still answers signal 0. A killed background
 * server (detached, so its parent is init) stays so where init does not reap — a container
 * whose first process is not an init. It holds nothing. Linux only; elsewhere: not a zombie.
 */
function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Blocks for `ms`: acquiring is synchronous, and the wait is a few milliseconds at most. */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
