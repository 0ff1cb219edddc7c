// Creating a file complete or not at all, and only if its name is free: the text goes to a temp
// file of our own, which is then hard-linked to the name. link() fails with EEXIST if the name
// exists and otherwise creates it whole, atomically — a reader never sees it empty or half
// written. Shared by the data folder's lock (lock.ts) and the private runtime files
// (runtime/ops/private-files.ts: the agent token, the instance claim). It lives with the store
// because the lock came first and the store is loaded on its own (test/store/durability.test.ts).

import { linkSync, unlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

/**
 * Creates `file` holding `text` with `mode`, only if it does not exist; false if it does. Any
 * other failure of link() (most likely a file system without hard links) is thrown as is.
 */
export function createWhole(file: string, text: string, mode: number): boolean {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, text, { flag: "wx", mode });
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    }
    return true;
  } finally {
    unlinkQuietly(temp);
  }
}

export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}
