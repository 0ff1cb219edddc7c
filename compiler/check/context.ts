// What the checker's passes share while building the catalog of one app.
//
// Owns: the table of declared types (first declaration wins), the scalar names, and turning
// spans into catalog source locations. Each pass (fields.ts, services.ts, storage.ts,
// resolve.ts) reads this and reports into the one DiagnosticBag.

import type { Span, TypeDecl } from "../ast.js";
import type { FieldType, ScalarName, SourceLocation } from "../catalog.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { fieldTypeText } from "../../model/field-type-text.js";

export interface CheckContext {
  bag: DiagnosticBag;
  /** Declared types by name; a duplicate declaration is not in here (resolve.ts reports it). */
  types: Map<string, TypeDecl>;
}

// A Record so that adding a scalar to catalog.ts fails to compile until it is listed here.
const scalarTable: Record<ScalarName, true> = {
  Id: true,
  Int: true,
  Float: true,
  Text: true,
  Bool: true,
  Timestamp: true,
  Url: true,
  Email: true,
  Markdown: true,
  Money: true,
  SKU: true,
  Slug: true,
};
export const scalarNames = Object.keys(scalarTable) as ScalarName[];

export function isScalarName(name: string): name is ScalarName {
  return Object.prototype.hasOwnProperty.call(scalarTable, name);
}

export function locationOf(span: Span): SourceLocation {
  return { file: span.file, line: span.line, col: span.col };
}

/** How a field type reads in a message, as written in `.wo`: `Int`, `A | B`, `ref User`, `[Text]`. */
export function describeType(type: FieldType): string {
  return fieldTypeText(type);
}

export function assertNever(x: never): never {
  throw new Error(`internal error: unhandled kind ${JSON.stringify(x)}`);
}
