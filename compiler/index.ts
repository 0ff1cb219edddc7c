// The compiler's public API (named exports only).
//
// checkApp(dir): load the app's `.wo` files and `wo.toml`, parse each file, check the whole
// program, and return the catalog (only when there is no error) with every diagnostic.
// Diagnostics name files as the user would type them relative to the current directory
// (`samples/blog/post.wo`); the catalog names them relative to the app root (`post.wo`), so
// builds do not depend on where `wo` was started.
//
// An editor checks the same way with its unsaved buffers laid over the files on disk
// (`overlay`, used by the language server in compiler/lsp/), so the editor and `wo check`
// never disagree about a saved program.

import { basename, join, resolve } from "node:path";
import type { SourceFileAst } from "./ast.js";
import type { Catalog } from "./catalog.js";
import { configFileName, readConfig } from "./check/config.js";
import { programLayout } from "./check/layout.js";
import { loadSources } from "./check/load.js";
import { checkProgram } from "./check/program.js";
import { DiagnosticBag, type Diagnostic } from "./diagnostics/diagnostic.js";
import { displayFile, displayPathOf } from "./display-path.js";
import { readOptional } from "./read-optional.js";
import { parseSource } from "./syntax/parse.js";
import type { ParseCache } from "./parse-cache.js";

export interface CheckResult {
  /** Undefined when any error was reported. */
  catalog?: Catalog;
  /** Sorted by file and position, duplicates removed. */
  diagnostics: Diagnostic[];
  /** Display path → source text, for formatting diagnostics (wo.toml included when present). */
  sources: Map<string, string>;
  /** Display paths of the `.wo` files, in program order. */
  files: string[];
  /** Counts for a one-line summary. */
  summary: { types: number; services: number; methods: number; tools: number };
  /** Every parsed `.wo` file, in program order; spans carry app-relative paths (`post.wo`). */
  asts: SourceFileAst[];
  /** Set when `dir` is a workspace root: its apps, relative to it (spec/language.md, "Workspaces"). */
  workspaceApps?: string[];
}

export interface CheckOptions {
  /**
   * App-relative path (`/`-separated) → text that replaces the file on disk, or adds it when
   * the disk has none: an editor's unsaved buffers. Paths the loader would skip are ignored.
   */
  overlay?: ReadonlyMap<string, string>;
  /**
   * What a folder below with a wo.toml of its own (another app) does: "refuse" (WO4007, the
   * commands) or "skip" it (the language server, which checks each such folder as its own app).
   */
  otherApps?: "refuse" | "skip";
  /** Parses kept from the previous check of this app in this process (compiler/parse-cache.ts). */
  parses?: ParseCache;
}

export async function checkApp(dir: string, options: CheckOptions = {}): Promise<CheckResult> {
  const root = resolve(dir);
  const displayDir = displayPathOf(dir, root);
  const toDisplay = (rel: string) => displayFile(displayDir, rel);
  const bag = new DiagnosticBag();
  const sources = new Map<string, string>();

  const configText = await readOptional(join(root, configFileName));
  if (configText !== undefined) sources.set(toDisplay(configFileName), configText);
  const config = readConfig(configText, configFileName, basename(root), bag);
  const layout = programLayout(root, configText, configFileName, bag);
  // A workspace root's program leaves its apps out (each is checked on its own).
  const otherApps = layout.workspaceApps ? "skip" : options.otherApps;
  const loaded = await loadSources(root, displayDir, bag, options.overlay, otherApps, layout.shared);

  const asts: SourceFileAst[] = [];
  for (const file of loaded) {
    sources.set(toDisplay(file.path), file.text);
    // Spans carry the app-relative path; they are turned into display paths below.
    const { ast, diagnostics } = options.parses
      ? options.parses.parse(file.path, file.text)
      : parseSource(file.path, file.text);
    bag.items.push(...diagnostics);
    asts.push(ast);
  }
  options.parses?.endCheck();
  const program = loaded.length > 0 ? checkProgram(asts, config, bag) : undefined;

  const relativeFiles = new Set([...loaded.map((f) => f.path), configFileName]);
  const diagnostics = bag
    .sorted()
    .map((d) => (relativeFiles.has(d.span.file) ? { ...d, span: { ...d.span, file: toDisplay(d.span.file) } } : d));
  const catalog = program?.catalog;
  const result: CheckResult = {
    ...(layout.workspaceApps ? { workspaceApps: layout.workspaceApps } : {}),
    diagnostics,
    sources,
    files: loaded.map((f) => toDisplay(f.path)),
    asts,
    summary: {
      // The declared ones: an edge relation's implicit link type (check/edges.ts) is not one.
      types: catalog?.types.filter((t) => !t.edge).length ?? 0,
      services: catalog?.types.reduce((n, t) => n + t.services.length, 0) ?? 0,
      methods: catalog?.types.reduce((n, t) => n + t.methods.length, 0) ?? 0,
      tools: program?.toolCount ?? 0,
    },
  };
  if (catalog && !diagnostics.some((d) => d.severity === "error")) result.catalog = catalog;
  return result;
}

export type { SourceFileAst } from "./ast.js";
export type { Catalog } from "./catalog.js";
export type { Diagnostic } from "./diagnostics/diagnostic.js";
