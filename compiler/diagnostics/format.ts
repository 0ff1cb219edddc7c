// formatDiagnostic: one diagnostic as a person reads it in a terminal (spec/diagnostics.md):
//
//   samples/blog/post.wo:14:50: error WO3001: 'publsh' is not an operation or method of 'Post'.
//     14 |   service rest "/api/posts" expose list, get, publsh
//        |                                                  ^^^^^^
//
// Owns only presentation; message text comes from codes.ts, positions from the Span.

import { SourceFile } from "../source.js";
import type { Diagnostic } from "./diagnostic.js";

export function formatDiagnostic(d: Diagnostic, sourceText: string): string {
  const { file, line, col, end } = d.span;
  const header = `${file}:${line}:${col}: ${d.severity} ${d.code}: ${d.message}`;
  const source = new SourceFile(file, sourceText);
  if (line < 1 || line > source.lineStarts.length) return header;
  const text = source.lineText(line);
  const lineStart = source.lineStarts[line - 1]!;
  const startCol = Math.min(Math.max(col - 1, 0), text.length);
  // The caret covers the span's part on its first line; at least one column (an empty span
  // at end of line still points somewhere).
  const width = Math.max(1, Math.min(end, lineStart + text.length) - (lineStart + startCol));
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  // Copy tabs from the source so the caret lines up under them.
  const lead = text.slice(0, startCol).replace(/[^\t]/g, " ");
  return `${header}\n  ${gutter} | ${text}\n  ${pad} | ${lead}${"^".repeat(width)}`;
}

/** formatDiagnostic when the file's text is among `sources`; the header alone otherwise (a
 *  diagnostic about a folder or an unreadable file has no line to show). No trailing newline. */
export function formatWithSources(d: Diagnostic, sources: ReadonlyMap<string, string> | undefined): string {
  const text = sources?.get(d.span.file);
  if (text === undefined) return `${d.span.file}: ${d.severity} ${d.code}: ${d.message}`;
  return formatDiagnostic(d, text).replace(/\n+$/, "");
}
