// Diagnostics as JSON for editors and CI (`wo check --format json`; spec/diagnostics.md,
// "JSON output"). Owns only the shape; positions come from the Span, text from codes.ts.

import { SourceFile } from "../source.js";
import type { Diagnostic, Severity } from "./diagnostic.js";
import { isUnenforcedRule } from "./declared-rules.js";

export interface JsonDiagnostic {
  file: string;
  /** 1-based; columns count UTF-16 code units, as in the text format. */
  line: number;
  column: number;
  /** Where the span ends (exclusive column); absent when the file's text is not at hand. */
  endLine?: number;
  endColumn?: number;
  severity: Severity;
  code: string;
  message: string;
  /** Present (true) on a warning that a declared rule is not enforced (declared-rules.ts); editors may ignore it. */
  unenforcedRule?: true;
}

/** `sources`: display path → text, to turn each span's end offset into a line and column. */
export function diagnosticsJson(
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
): JsonDiagnostic[] {
  const files = new Map<string, SourceFile>();
  return diagnostics.map((d) => {
    const { file, line, col, end } = d.span;
    const out: JsonDiagnostic = { file, line, column: col, severity: d.severity, code: d.code, message: d.message };
    if (isUnenforcedRule(d)) out.unenforcedRule = true;
    const text = sources.get(file);
    if (text !== undefined) {
      let source = files.get(file);
      if (!source) files.set(file, (source = new SourceFile(file, text)));
      const at = source.positionAt(end);
      out.endLine = at.line;
      out.endColumn = at.col;
    }
    return out;
  });
}
