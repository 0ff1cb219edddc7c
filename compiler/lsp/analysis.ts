// One app as the language server sees it: the result of checking the app folder with the
// editor's unsaved buffers laid over the disk (compiler/index.ts `checkApp` with `overlay`),
// plus what hover, definition and completion look things up in.
//
// Owns: finding the app folder of a document, running the check, mapping spans to LSP ranges
// and file URIs. Leaves the meaning of the program to the checker: diagnostics are exactly
// those of `wo check`.

import { existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Range } from "vscode-languageserver/node";
import type { Span, SourceFileAst, TypeDecl } from "../ast.js";
import { declareTypes } from "../check/resolve.js";
import { configFileName } from "../check/config.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { checkApp, type CheckResult } from "../index.js";
import { SourceFile } from "../source.js";

export interface AnalysedFile {
  ast: SourceFileAst;
  source: SourceFile;
}

export interface AppAnalysis {
  /** Absolute path of the app folder. */
  root: string;
  result: CheckResult;
  /** Declared types by name, first declaration winning as in the checker. */
  types: Map<string, TypeDecl>;
  /** App-relative path (`posts.wo`) → its AST and text. */
  files: Map<string, AnalysedFile>;
}

/**
 * The app a `.wo` file belongs to: the nearest folder holding `wo.toml`, looking no higher
 * than the workspace folder that contains the file; else that workspace folder; else the
 * file's own folder (a file opened outside any workspace).
 */
export function appRootOf(file: string, workspaceFolders: readonly string[]): string {
  const workspace = workspaceFolders.filter((w) => isInside(file, w)).sort((a, b) => b.length - a.length)[0];
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, configFileName))) return dir;
    if (workspace === undefined || dir === workspace || dirname(dir) === dir) break;
  }
  return workspace ?? dirname(file);
}

export function isInside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
}

/** `file` relative to `root`, `/`-separated, as the loader and spans name it. */
export function appRelative(root: string, file: string): string {
  return relative(root, file).split(sep).join("/");
}

/** Checks the app at `root`; `overlay` maps absolute paths to unsaved text. */
export async function analyseApp(root: string, overlay: ReadonlyMap<string, string>): Promise<AppAnalysis> {
  const relOverlay = new Map<string, string>();
  for (const [file, text] of overlay) if (isInside(file, root)) relOverlay.set(appRelative(root, file), text);
  // A folder below with its own wo.toml is checked as its own app (appRootOf), never refused.
  const result = await checkApp(root, { overlay: relOverlay, otherApps: "skip" });
  const files = new Map<string, AnalysedFile>();
  result.asts.forEach((ast, i) => {
    // asts and files are both in program order; `files` holds display paths, keys of `sources`.
    files.set(ast.file, { ast, source: new SourceFile(ast.file, result.sources.get(result.files[i]!) ?? "") });
  });
  return { root, result, types: declareTypes(result.asts, new DiagnosticBag()), files };
}

/** Absolute path of a diagnostic's display path (relative to the current directory or absolute). */
export function displayPathToFile(displayPath: string): string {
  return resolve(displayPath);
}

export function rangeOf(span: Span, source: SourceFile): Range {
  const start = source.positionAt(span.offset);
  const end = source.positionAt(Math.max(span.offset, span.end));
  return {
    start: { line: start.line - 1, character: start.col - 1 },
    end: { line: end.line - 1, character: end.col - 1 },
  };
}

/** A `file:` URI → absolute path, or undefined for other schemes (untitled buffers, …). */
export function uriToFile(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function fileToUri(file: string): string {
  return pathToFileURL(file).href;
}
