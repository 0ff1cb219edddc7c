// Finding and reading an app's `.wo` files (spec/language.md "Semantics", programs and files).
//
// Owns: which files belong to a program (every `.wo` below the app directory, skipping
// `.`-prefixed entries and `target`, `data`, `node_modules`; refusing paths with control
// characters, WO4006), their order (sorted by path relative to the root) and decoding them as
// UTF-8. Leaves parsing to compiler/syntax/ and `wo.toml` to config.ts. A missing directory or
// one without `.wo` files is a diagnostic. So is a folder holding more than one app (WO4007):
// a folder below the root with a wo.toml of its own is another app (the repository's samples,
// an `apps/` folder, test fixtures), and merging its files into this one is never what was meant. An overlay (an editor's unsaved buffers) replaces or
// adds files under the same rules. The shared folders of a workspace (layout.ts) add their
// `.wo` files under the same rules, named by their path from the app (`../../libs/types/a.wo`; spec/language.md "Workspaces").

import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Span } from "../ast.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { escapeUnsafeChars, hasUnsafeChars } from "../unsafe-chars.js";
import { configFileName } from "./config.js";
import type { SharedFolder } from "./layout.js";

export interface LoadedFile {
  /**
   * Path relative to the app root, `/`-separated: what spans and the catalog carry. A shared
   * folder's file outside the app starts with `../`.
   */
  path: string;
  text: string;
}

const skippedNames = new Set(["target", "data", "node_modules"]);

function isSkipped(name: string): boolean {
  return name.startsWith(".") || skippedNames.has(name);
}

/** Whether an app-relative, `/`-separated path names a file of the program. */
export function isProgramPath(path: string): boolean {
  const parts = path.split("/");
  return path.endsWith(".wo") && !hasUnsafeChars(path) && parts.every((part) => part !== "" && !isSkipped(part));
}

/** A span for a diagnostic about a file or directory as a whole. */
export function wholeFileSpan(file: string): Span {
  return { file, offset: 0, end: 0, line: 1, col: 1 };
}

/**
 * Reads every `.wo` file of the app at `rootDir`. `displayDir` names the directory in
 * diagnostics about the directory itself (as the user typed it). `overlay` (app-relative path
 * → text) wins over the disk and may add files the disk does not have yet. `otherApps`: a
 * folder below with its own wo.toml is refused (WO4007) or skipped with its files. `shared`:
 * folders whose `.wo` files join the program (layout.ts), each file once.
 */
export async function loadSources(
  rootDir: string,
  displayDir: string,
  bag: DiagnosticBag,
  overlay?: ReadonlyMap<string, string>,
  otherApps: "refuse" | "skip" = "refuse",
  shared: readonly SharedFolder[] = [],
): Promise<LoadedFile[]> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(rootDir)).isDirectory();
  } catch {
    bag.report("WO4002", wholeFileSpan(displayDir), { dir: displayDir, why: "does not exist" });
    return [];
  }
  if (!isDirectory) {
    bag.report("WO4002", wholeFileSpan(displayDir), { dir: displayDir, why: "is not a directory" });
    return [];
  }
  const paths: string[] = [];
  const appsBelow: string[] = [];
  await collect(rootDir, "", displayDir, paths, appsBelow, bag);
  if (appsBelow.length > 0 && otherApps === "refuse") {
    bag.report("WO4007", wholeFileSpan(displayDir), {
      dir: displayDir,
      apps: await appsFound(rootDir, displayDir, paths, appsBelow),
    });
    return [];
  }
  const reached = new Set(paths);
  for (const folder of shared) {
    const found: string[] = [];
    await collect(folder.dir, "", join(displayDir, folder.rel).split("\\").join("/"), found, [], bag);
    for (const rel of found) {
      const path = relative(rootDir, join(folder.dir, rel)).split("\\").join("/");
      if (!reached.has(path)) {
        reached.add(path);
        paths.push(path);
      }
    }
  }
  const onDisk = new Set(paths);
  const inAppBelow = (path: string) => appsBelow.some((app) => path.startsWith(`${app}/`));
  for (const path of overlay?.keys() ?? [])
    if (isProgramPath(path) && !onDisk.has(path) && !inAppBelow(path)) paths.push(path);
  // Code-unit order of the relative path, so the order never depends on the file system.
  paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (paths.length === 0) {
    // Every file refused (WO4006) is already said; "no .wo files" would contradict it.
    if (!bag.items.some((d) => d.code === "WO4006"))
      bag.report("WO4001", wholeFileSpan(displayDir), { dir: displayDir });
    return [];
  }
  const files: LoadedFile[] = [];
  for (const path of paths) {
    const unsaved = overlay?.get(path);
    if (unsaved !== undefined) {
      files.push({ path, text: unsaved });
      continue;
    }
    try {
      files.push({ path, text: decodeUtf8(await readFile(join(rootDir, path))) });
    } catch (error) {
      bag.report("WO4003", wholeFileSpan(path), { file: path, why: reasonOf(error) });
    }
  }
  return files;
}

async function collect(
  rootDir: string,
  relDir: string,
  displayDir: string,
  out: string[],
  otherApps: string[],
  bag: DiagnosticBag,
): Promise<void> {
  let entries;
  try {
    entries = await readdir(join(rootDir, relDir), { withFileTypes: true });
  } catch (error) {
    bag.report("WO4003", wholeFileSpan(relDir || "."), { file: relDir || ".", why: reasonOf(error) });
    return;
  }
  if (relDir !== "" && entries.some((e) => e.name === configFileName && !e.isDirectory())) {
    otherApps.push(relDir);
    return;
  }
  for (const entry of entries) {
    if (isSkipped(entry.name)) continue;
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    // Symbolic links are not followed: a link cycle would otherwise never end.
    if (entry.isDirectory()) await collect(rootDir, rel, displayDir, out, otherApps, bag);
    else if (entry.isFile() && entry.name.endsWith(".wo")) {
      // A path is printed in diagnostics and generated code (spec/security.md, "Generated
      // code"); one with a line terminator or control character is refused, never read, and
      // named only escaped.
      if (hasUnsafeChars(rel)) {
        const where = escapeUnsafeChars(displayDir === "." ? rel : `${displayDir}/${rel}`);
        bag.report("WO4006", wholeFileSpan(where), { path: escapeUnsafeChars(rel) });
      } else out.push(rel);
    }
  }
}

/**
 * The apps a folder holds, for WO4007: the root itself when it has a wo.toml or `.wo` files
 * outside the other apps, then each folder with a wo.toml of its own.
 */
async function appsFound(rootDir: string, displayDir: string, ownFiles: string[], otherApps: string[]) {
  const shown = (rel: string) => (displayDir === "." ? rel : `${displayDir}/${rel}`);
  const found: string[] = [];
  const hasConfig = await stat(join(rootDir, configFileName)).then(
    (s) => s.isFile(),
    () => false,
  );
  if (hasConfig || ownFiles.length > 0) {
    const files = ownFiles.length === 0 ? "" : `${ownFiles.length} .wo file${ownFiles.length === 1 ? "" : "s"}`;
    const what = hasConfig
      ? files
        ? `${configFileName}, ${files}`
        : configFileName
      : `${files} without a ${configFileName}, e.g. ${shown(ownFiles[0]!)}`;
    found.push(`${displayDir} (${what})`);
  }
  for (const rel of otherApps.sort()) found.push(shown(rel));
  return found.join(", ");
}

/** UTF-8 without a byte-order mark; invalid bytes become U+FFFD (the lexer then reports them). */
function decodeUtf8(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8").decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: string } | null)?.code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return code ?? "unreadable";
}
