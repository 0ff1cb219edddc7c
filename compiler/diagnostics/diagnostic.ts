// Diagnostics are values: phases collect them in a DiagnosticBag and return them; nothing
// throws for a user error. The message text comes from the code table (codes.ts), never from
// call sites.

import type { Span } from "../ast.js";
import { codes, type DiagnosticCode, type DiagnosticParams } from "./codes.js";

export type Severity = "error" | "warning";

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  span: Span;
}

export class DiagnosticBag {
  readonly items: Diagnostic[] = [];

  report<C extends DiagnosticCode>(code: C, span: Span, params: DiagnosticParams<C>): void {
    const def = codes[code];
    this.items.push({ code, severity: def.severity, message: def.message(params as never), span });
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === "error");
  }

  /** By file, then position; identical diagnostics (same code and place) reported once. */
  sorted(): Diagnostic[] {
    const seen = new Set<string>();
    return [...this.items]
      .sort((a, b) => (a.span.file < b.span.file ? -1 : a.span.file > b.span.file ? 1 : a.span.offset - b.span.offset))
      .filter((d) => {
        const key = `${d.span.file}:${d.span.offset}:${d.code}:${d.message}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
  }
}
