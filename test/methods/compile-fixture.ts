// Test fixture: check `.wo` sources in memory (parse → checkProgram) without a temp folder,
// and find the ┆ cursor that marks where a diagnostic is expected.

import type { Catalog } from "../../compiler/catalog.js";
import { readConfig } from "../../compiler/check/config.js";
import { checkProgram } from "../../compiler/check/program.js";
import { DiagnosticBag, type Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import { parseSource } from "../../compiler/syntax/parse.js";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const cursor = "┆";

export interface Compiled {
  catalog?: Catalog;
  diagnostics: Diagnostic[];
}

/** Parse and check `files` (path → text, cursors removed) as one app named "app". */
export function compileSources(files: Record<string, string>, name = "app"): Compiled {
  const bag = new DiagnosticBag();
  const config = readConfig(undefined, "wo.toml", name, bag);
  const asts = Object.entries(files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, text]) => {
      const { ast, diagnostics } = parseSource(path, text.split(cursor).join(""));
      bag.items.push(...diagnostics);
      return ast;
    });
  const program = checkProgram(asts, config, bag);
  const diagnostics = bag.sorted();
  const hasErrors = diagnostics.some((d) => d.severity === "error");
  return hasErrors ? { diagnostics } : { catalog: program.catalog, diagnostics };
}

/** The `.wo` files of a sample folder, by relative path. */
export function sampleSources(sample: string): Record<string, string> {
  const dir = join(import.meta.dirname, "../../samples", sample);
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith(".wo"))
    .sort())
    out[f] = readFileSync(join(dir, f), "utf8");
  return out;
}

/** `line:col` of the first cursor in `text`. */
export function cursorAt(text: string): string {
  const at = text.indexOf(cursor);
  const before = text.slice(0, at);
  return `${before.split("\n").length}:${at - (before.lastIndexOf("\n") + 1) + 1}`;
}

/** `CODE line:col` of each error a one-file app gets: what the checking tests compare. */
export function errorsOf(text: string): string[] {
  const { diagnostics } = compileSources({ "app.wo": text });
  return diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.span.line}:${d.span.col}`);
}
