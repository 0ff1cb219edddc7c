// What the checker's passes share while building the catalog of one app.
//
// Owns: the table of declared types (first declaration wins) and turning spans into catalog
// source locations; scalar names are model/scalars.ts. Each pass (fields.ts, services.ts,
// storage.ts, resolve.ts) reads this and reports into the one DiagnosticBag.

import type { Span, TypeDecl } from "../ast.js";
import type { FieldType, SourceLocation } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { fieldTypeText } from "../../model/field-type-text.js";

export interface CheckContext {
  bag: DiagnosticBag;
  /** Declared types by name; a duplicate declaration is not in here (resolve.ts reports it). */
  types: Map<string, TypeDecl>;
}

export function locationOf(span: Span): SourceLocation {
  return { file: span.file, line: span.line, col: span.col };
}

/** How a field type reads in a message, as written in `.wo`: `Int`, `A | B`, `ref User`, `[Text]`. */
export function describeType(type: FieldType): string {
  return fieldTypeText(type);
}
