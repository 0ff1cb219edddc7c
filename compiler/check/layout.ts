// Which folders make a program (spec/language.md, "Workspaces"): the app's own folder, and the
// shared folders its wo.toml names (`[dependencies] shared = ["../../libs/types"]`, relative
// to the app); or, for a workspace root (a wo.toml with `[workspace]`), the root's own `.wo`
// files (tests/) and `[workspace] shared`, with the apps of `[workspace] apps` left out.
//
// Owns: reading those keys from wo.toml (the rest of wo.toml is config.ts's), and finding each
// folder on disk: a shared folder must exist, be a folder and stay inside the workspace root
// (the nearest folder above the app whose wo.toml has `[workspace]`), else WO4008 at the path's
// line in wo.toml. load.ts reads the files; checkApp, build freshness and `--watch` all ask here,
// so the three can never disagree about which files an app has.

import { readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { parse } from "smol-toml";
import type { Span } from "../ast.js";
import { DiagnosticBag as Bag, type Diagnostic, type DiagnosticBag } from "../diagnostics/diagnostic.js";
import { displayFile, displayPathOf } from "../display-path.js";
import { configFileName } from "./config.js";

export interface SharedFolder {
  /** Absolute path of the folder. */
  dir: string;
  /** The folder relative to the app, `/`-separated, as wo.toml writes it (`../../libs/types`; spec/language.md "Workspaces"). */
  rel: string;
}

export interface ProgramLayout {
  /** Shared folders whose `.wo` files join the app's own, in wo.toml's order. */
  shared: SharedFolder[];
  /** Set for a workspace root: its apps, relative to the root, as `[workspace] apps` lists them. */
  workspaceApps?: string[];
}

/**
 * The layout of the app at `root` (absolute) from its wo.toml text (undefined: none). Problems
 * with the folders are WO4008 at `file` (the wo.toml's display path) when `bag` is given; a
 * malformed wo.toml or a wrong-typed key is config.ts's to report, and means no shared folders.
 */
export function programLayout(
  root: string,
  text: string | undefined,
  file: string,
  bag?: DiagnosticBag,
): ProgramLayout {
  const doc = parsed(text);
  if (doc === undefined) return { shared: [] };
  const workspace = table(doc, "workspace");
  if (workspace !== undefined) {
    const apps = strings(workspace.apps) ?? [];
    const inside = (rel: string, key: string, what: "shared folder" | "app") =>
      folderInside(root, root, rel, text!, file, key, what, bag);
    for (const app of apps) {
      const dir = inside(app, "workspace.apps", "app");
      if (dir !== undefined && !isFile(join(dir, configFileName)))
        report(bag, text!, file, "workspace.apps", app, {
          path: app,
          why: `has no ${configFileName}: an app is a folder with one`,
        });
    }
    const shared = (strings(workspace.shared) ?? []).flatMap((rel) => {
      const dir = inside(rel, "workspace.shared", "shared folder");
      return dir === undefined ? [] : [{ dir, rel }];
    });
    return { shared, workspaceApps: apps };
  }
  const wanted = strings(table(doc, "dependencies")?.shared) ?? [];
  if (wanted.length === 0) return { shared: [] };
  const workspaceRoot = enclosingWorkspace(root);
  const shared: SharedFolder[] = [];
  for (const rel of wanted) {
    if (workspaceRoot === undefined) {
      report(bag, text!, file, "dependencies.shared", rel, {
        path: rel,
        why: `is outside any workspace: no folder above the app has a ${configFileName} with [workspace]`,
      });
      continue;
    }
    const dir = folderInside(workspaceRoot, root, rel, text!, file, "dependencies.shared", "shared folder", bag);
    if (dir !== undefined) shared.push({ dir, rel });
  }
  return { shared };
}

/** The layout of the app folder `root` read from disk (build freshness and `--watch`: no diagnostics). */
export function layoutOnDisk(root: string): ProgramLayout {
  return programLayout(root, readText(join(root, configFileName)), configFileName);
}

/** The apps of the workspace at `dir`, relative to it; undefined when `dir` is not a workspace root. */
export function workspaceAppsOf(dir: string): string[] | undefined {
  const doc = parsed(readText(join(resolve(dir), configFileName)));
  const workspace = doc === undefined ? undefined : table(doc, "workspace");
  return workspace === undefined ? undefined : (strings(workspace.apps) ?? []);
}

/** The nearest folder above `root` whose wo.toml has a `[workspace]` table. */
function enclosingWorkspace(root: string): string | undefined {
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const doc = parsed(readText(join(dir, configFileName)));
    if (doc !== undefined && table(doc, "workspace") !== undefined) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** `rel` (relative to `from`) as an absolute folder inside `bound`, or undefined after WO4008. */
function folderInside(
  bound: string,
  from: string,
  rel: string,
  text: string,
  file: string,
  key: string,
  what: "shared folder" | "app",
  bag: DiagnosticBag | undefined,
): string | undefined {
  const dir = resolve(from, rel);
  const up = relative(bound, dir);
  const fail = (why: string) => void report(bag, text, file, key, rel, { path: rel, why });
  if (up === ".." || up.startsWith(`..${sep}`) || resolve(bound, up) !== dir) {
    fail(`is outside the workspace root '${bound.split(sep).join("/")}': a ${what} lies inside it`);
    return undefined;
  }
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    fail("does not exist");
    return undefined;
  }
  if (!isDir) {
    fail("is not a folder");
    return undefined;
  }
  return dir;
}

function report(
  bag: DiagnosticBag | undefined,
  text: string,
  file: string,
  key: string,
  value: string,
  args: { path: string; why: string },
): void {
  bag?.report("WO4008", valueSpan(text, file, key, value), args);
}

/**
 * Where `"value"` is written after `key` (`table.key`) in wo.toml; the table's header (all a
 * key `table.` asks for) or 1:1 otherwise.
 */
function valueSpan(text: string, file: string, key: string, value: string): Span {
  const [tableName, keyName] = key.split(".") as [string, string];
  const lines = text.split("\n");
  let current = "";
  let inKey = false;
  let offset = 0;
  let fallback: Span = { file, offset: 0, end: Math.min(1, text.length), line: 1, col: 1 };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]/.exec(line);
    if (header) {
      current = header[1]!;
      inKey = false;
      if (current === tableName) fallback = { file, offset, end: offset + 1, line: i + 1, col: line.indexOf("[") + 1 };
    } else if (keyName !== "" && current === tableName && new RegExp(`^\\s*${keyName}\\s*=`).test(line)) inKey = true;
    if (inKey) {
      const at = line.indexOf(JSON.stringify(value));
      if (at >= 0) return { file, offset: offset + at, end: offset + at + value.length + 2, line: i + 1, col: at + 1 };
    }
    offset += line.length + 1;
  }
  return fallback;
}

function parsed(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    return parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function table(doc: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const t = doc[name];
  return typeof t === "object" && t !== null && !Array.isArray(t) ? (t as Record<string, unknown>) : undefined;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * WO4009 when `dir` is a workspace root, for a command that needs one app (`wo run`, `wo
 * build`, …), with the wo.toml text to quote under the display path; undefined for an app.
 */
export function workspaceRefusal(
  dir: string,
  command: string,
): { diagnostics: Diagnostic[]; sources: Map<string, string> } | undefined {
  const root = resolve(dir);
  const text = readText(join(root, configFileName));
  const doc = parsed(text);
  const workspace = doc === undefined ? undefined : table(doc, "workspace");
  if (workspace === undefined) return undefined;
  const displayDir = displayPathOf(dir, root);
  const file = displayFile(displayDir, configFileName);
  const bag = new Bag();
  const apps = (strings(workspace.apps) ?? []).map((a) => displayFile(displayDir, a.replace(/^\.\/|\/+$/g, "")));
  bag.report("WO4009", valueSpan(text!, file, "workspace.", ""), {
    dir: displayDir,
    apps: apps.length > 0 ? apps.join(", ") : "none listed in [workspace] apps",
    command,
  });
  return { diagnostics: bag.items, sources: new Map([[file, text!]]) };
}
