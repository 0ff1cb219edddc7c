// The scalars of `.wo` (spec/language.md, "Types and names") and everything any part of wo
// needs to know about each: its JSON Schema, how storage keeps it, its TypeScript type, its
// value family in the method language, which filters and defaults fit it, and its one stored
// form. Every consumer reads this table instead of keeping its own list, and the table is a
// Record over ScalarName, so a new scalar does not compile until every column is filled in.

import { utcTimestamp } from "./timestamp.js";

export type ScalarName =
  | "Id"
  | "Int"
  | "Float"
  | "Text"
  | "Bool"
  | "Timestamp"
  | "Url"
  | "Email"
  | "Markdown"
  | "Money"
  | "SKU"
  | "Slug";

/** How a value is written in JSON: the `type` of its schema. */
export type JsonValueType = "integer" | "number" | "boolean" | "string";

/**
 * What storage keeps, independent of any database: a scalar's value kind in the storage shape
 * (model/storage-shape.ts), which each store maps to a column type of its own.
 */
export type StorageKind = "integer" | "float" | "bool" | "text";

/** The method language's value families (compiler/check/method-types.ts). */
export type MethodValueKind = "int" | "float" | "text" | "bool";

/** The kinds of literal a `= …` default may be written as. */
export type LiteralKind = "int" | "float" | "string" | "bool";

export interface Scalar {
  /** JSON Schema (2020-12, and valid draft-07) for one value (spec/schemas.md). */
  schema: { type: JsonValueType; [keyword: string]: unknown };
  storage: StorageKind;
  /** The TypeScript type of a value in generated code. */
  ts: "number" | "string" | "boolean";
  method: MethodValueKind;
  /** `lt`/`gt` filters and sorting mean something (numbers, instants, text in code-point order). */
  isOrdered: boolean;
  /** Text a person searches: the `contains` filter applies. */
  isSearchable: boolean;
  /** Literal kinds a default of this type may be written as. */
  literals: readonly LiteralKind[];
  /**
   * The one stored form of a valid value, where there is more than one way to write it; the
   * store writes, and filters compare, values in that form.
   */
  canonical?: (value: unknown) => unknown;
  /** A text default must parse (to its canonical form) or it is refused; undefined = refused. */
  parseText?: (text: string) => string | undefined;
  /** Unique values compare ignoring ASCII case (addresses are ASCII by their format). */
  uniqueIgnoresCase?: boolean;
}

/**
 * Integers are exact in JSON parsers (JavaScript's among them) and in wo's arithmetic only up to
 * ±(2^53 − 1). Beyond, `9007199254740993` arrives as …992 and `1e300` passes as an "integer", so
 * every integer schema bounds its values: a larger one is refused, never stored rounded.
 */
const maxExactInteger = Number.MAX_SAFE_INTEGER;

/** The schema of a row id (`Id`, and every `ref T`). */
export const idSchema = { type: "integer", minimum: 1, maximum: maxExactInteger } as const;

/** RFC 3339 date or date-time: what a Timestamp default may be written as. */
const timestampText = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

const integer = {
  storage: "integer",
  ts: "number",
  method: "int",
  isOrdered: true,
  isSearchable: false,
  literals: ["int"],
} as const;
const searchableText = {
  storage: "text",
  ts: "string",
  method: "text",
  isOrdered: true,
  isSearchable: true,
  literals: ["string"],
} as const;
const exactInteger = { type: "integer", minimum: -maxExactInteger, maximum: maxExactInteger } as const;

/** The schemes a `Url` value may have unless its field says otherwise (`@schemes`). */
export const defaultUrlSchemes: readonly string[] = ["http", "https", "mailto"];

/** A scheme as RFC 3986 §3.1 spells it: a letter, then letters, digits, `+`, `-` and `.`. */
export const urlSchemeText = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/**
 * The JSON Schema pattern admitting a URL of one of `schemes` (lower case): schemes compare
 * case-insensitively (RFC 3986 §3.1) and a pattern has no flags, so each letter is a class.
 */
export function urlSchemePattern(schemes: readonly string[]): string {
  const either = (c: string) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c.replace(/[+.]/g, "\\$&"));
  return `^(?:${schemes.map((s) => [...s].map(either).join("")).join("|")}):`;
}

export const scalars: Record<ScalarName, Scalar> = {
  // Ids are minted by the store: no default may name one (WO2016).
  Id: { ...integer, schema: { ...idSchema }, literals: [] },
  Int: { ...integer, schema: { ...exactInteger } },
  Float: {
    schema: { type: "number" },
    storage: "float",
    ts: "number",
    method: "float",
    isOrdered: true,
    isSearchable: false,
    literals: ["int", "float"],
  },
  Text: { ...searchableText, schema: { type: "string" } },
  Bool: {
    schema: { type: "boolean" },
    storage: "bool",
    ts: "boolean",
    method: "bool",
    isOrdered: false,
    isSearchable: false,
    literals: ["bool"],
  },
  // Any RFC 3339 offset is accepted; one instant has one text, UTC with milliseconds, or an
  // equality filter written in another offset would miss the row and text order would not be
  // time order (spec/storage.md, "Timestamps").
  Timestamp: {
    schema: { type: "string", format: "date-time" },
    storage: "text",
    ts: "string",
    method: "text",
    isOrdered: true,
    isSearchable: false,
    literals: ["string"],
    canonical: utcTimestamp,
    parseText: (text) => (timestampText.test(text) ? (utcTimestamp(text) as string) : undefined),
  },
  // Only schemes that name a place to go, so no `javascript:` or `data:` link reaches a page
  // that shows one; a field widens or narrows the list with `@schemes("ftp", …)`.
  Url: { ...searchableText, schema: { type: "string", format: "uri", pattern: urlSchemePattern(defaultUrlSchemes) } },
  Email: { ...searchableText, schema: { type: "string", format: "email" }, uniqueIgnoresCase: true },
  Markdown: { ...searchableText, schema: { type: "string", contentMediaType: "text/markdown" } },
  // Minor units (cents): integer arithmetic in methods, no float rounding on the wire.
  Money: {
    ...integer,
    schema: { ...exactInteger, description: "Amount in minor units (e.g. cents): 4999 means 49.99." },
  },
  // No reference pattern exists; this one keeps SKUs to the codes people print on labels.
  SKU: {
    ...searchableText,
    schema: { type: "string", pattern: "^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$", maxLength: 64 },
  },
  Slug: { ...searchableText, schema: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" } },
};

export const scalarNames = Object.keys(scalars) as ScalarName[];

export function isScalarName(name: string): name is ScalarName {
  return Object.hasOwn(scalars, name);
}
