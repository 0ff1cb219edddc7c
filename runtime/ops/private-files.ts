// The private runtime directory of an app run in the background (spec/operations.md): where
// its instance state, management key, agent token and log live. Owns where that directory is
// and what "private" means: a real directory (not a symlink) owned by the current user with no
// group/other permission bits (0700), holding regular files of that user with none either
// (0600). Anything else is refused, never repaired: a directory someone else can write or a
// file someone else can read may already have leaked or been swapped, and chmod would hide it.
//
// The checks read the mode bits and the owner themselves rather than relying on EACCES: root
// can open anything, and wo must refuse an unsafe file even then.

import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";
import { createWhole, unlinkQuietly } from "../store/create-whole.js";

export class PrivateFileError extends Error {}

/**
 * `--runtime-dir DIR`, else `$XDG_CACHE_HOME/wo/<app-id>` (`~/.cache/wo/<app-id>`), where the
 * app id is the folder's name and a hash of its real path: two checkouts of one app never
 * share state, and one folder reached through different paths always does.
 */
export function runtimeDirFor(appDir: string, explicit?: string): string {
  if (explicit !== undefined) return resolve(explicit);
  const cacheEnv = process.env.XDG_CACHE_HOME;
  const cache = cacheEnv && isAbsolute(cacheEnv) ? cacheEnv : join(homedir(), ".cache");
  return join(cache, "wo", appId(appDir));
}

export function appId(appDir: string): string {
  let real: string;
  try {
    real = realpathSync(appDir);
  } catch {
    throw new PrivateFileError(`The app folder ${resolve(appDir)} does not exist.`);
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "app";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 16)}`;
}

/** Makes sure `dir` exists and is private; creates it (0700, missing parents too) when missing. */
export function ensurePrivateDir(dir: string): void {
  if (checkPrivateDir(dir) === "ok") return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new PrivateFileError(`Cannot create the runtime directory ${dir} (${(err as NodeJS.ErrnoException).code}).`);
  }
  checkPrivateDir(dir);
}

/** Throws unless `dir` is a private directory; "missing" when it does not exist. */
export function checkPrivateDir(dir: string): "ok" | "missing" {
  const stats = lstatOrUndefined(dir);
  if (stats === undefined) return "missing";
  if (stats.isSymbolicLink()) throw refuse(dir, "is a symbolic link", "use the real directory");
  if (!stats.isDirectory()) throw refuse(dir, "is not a directory", "remove it or pick another --runtime-dir");
  checkOwnerAndMode(dir, stats, 0o700);
  return "ok";
}

/** Throws unless `file` is a private regular file; "missing" when it does not exist. */
export function checkPrivateFile(file: string): "ok" | "missing" {
  const stats = lstatOrUndefined(file);
  if (stats === undefined) return "missing";
  if (stats.isSymbolicLink()) throw refuse(file, "is a symbolic link", "use a regular file");
  if (!stats.isFile()) throw refuse(file, "is not a regular file", "use a regular file");
  checkOwnerAndMode(file, stats, 0o600);
  return "ok";
}

/**
 * The text of a private file, or undefined when there is none. Opened without following a
 * symlink and checked on the open descriptor, so the file read is the file checked.
 */
export function readPrivateFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw refuse(file, "is a symbolic link", "use a regular file");
    throw new PrivateFileError(`Cannot read ${file} (${code}).`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(file, "is not a regular file", "use a regular file");
    checkOwnerAndMode(file, stats, 0o600);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Writes (or replaces) a private file whole: a 0600 temp file renamed over the name. */
export function writePrivateFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, text, { flag: "wx", mode: 0o600 });
    renameSync(temp, file);
  } finally {
    unlinkQuietly(temp);
  }
}

/** Creates a private file whole, only if the name is free (create-whole.ts); false if it exists. */
export function createPrivateFile(file: string, text: string): boolean {
  try {
    return createWhole(file, text, 0o600);
  } catch (err) {
    throw new PrivateFileError(
      `Cannot create ${file} (${(err as NodeJS.ErrnoException).code}); the runtime directory must be on a local disk with hard links.`,
    );
  }
}

function checkOwnerAndMode(path: string, stats: Stats, wanted: number): void {
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw refuse(path, `is owned by uid ${stats.uid}, not by you (uid ${uid})`, "use a file of your own");
  }
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw refuse(
      path,
      `has permissions ${octal(mode)}, open to group or others`,
      `it must be ${octal(wanted)}; check nobody else used it, then chmod ${octal(wanted)} it yourself`,
    );
  }
}

function refuse(path: string, what: string, fix: string): PrivateFileError {
  return new PrivateFileError(`${path} ${what}; wo refuses to use it (and does not repair it): ${fix}.`);
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new PrivateFileError(`Cannot inspect ${path} (${(err as NodeJS.ErrnoException).code}).`);
  }
}
