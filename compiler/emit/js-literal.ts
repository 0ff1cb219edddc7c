// The one way source-derived text enters generated code (spec/security.md, "Generated code").
// Names, paths, defaults, messages and doc comments come from `.wo` files, `wo.toml` and the
// file system; every emitter prints them through these functions and never interpolates them
// raw, so no input can end a string or comment early and run as code.
//
//   jsString / jsJson   a literal: JSON.stringify, plus U+2028/U+2029 escaped (legal raw in
//                       strings since ES2019, but line terminators to older tools and readers)
//   jsComment           comment text: one line (every control character escaped) that never
//                       contains `*/`, so it can close neither a `//` nor a `/* */` comment
//   jsIdentifier        a name printed as an identifier: its shape checked, never repaired
//   objectKey / prop    a property: bare when it is an identifier, else a string literal

import { escapeUnsafeChars } from "../unsafe-chars.js";

const lineSeparators = /[\u2028\u2029]/g;

/** A JavaScript/TypeScript string literal with the value `text`. */
export function jsString(text: string): string {
  return jsJson(text);
}

/** A JSON value (string, number, boolean, null, arrays and objects of them) as a literal. */
export function jsJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`not a JSON value: ${String(value)}`);
  return text.replace(lineSeparators, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"));
}

/** Text safe inside any comment: a single line without `*` followed by `/`. */
export function jsComment(text: string): string {
  return escapeUnsafeChars(text).replace(/\*\//g, "*\\/");
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `name` printed as an identifier: asserts it has an identifier's shape (ASCII letters, digits,
 * `_`, `$`), so it holds nothing that could end or escape it. Callers build names that are
 * valid by construction — bindings are `v_` + a lexer name and tool names hold a `_`, so
 * neither can be a reserved word; this is the check at the emit boundary that they are.
 */
export function jsIdentifier(name: string): string {
  if (!identifier.test(name)) throw new Error(`internal error: '${jsComment(name)}' is not an identifier`);
  return name;
}

/**
 * A property name in an object literal or type: bare when it is an identifier. `__proto__`,
 * bare or quoted, would set the object's prototype instead of a property; computed, it is a
 * property like any other.
 */
export function objectKey(name: string): string {
  if (name === "__proto__") return `[${jsString(name)}]`;
  return identifier.test(name) ? name : jsString(name);
}

/** `obj.name`, or `obj["name"]` for a name that is not an identifier (`?.` when `optional`). */
export function prop(obj: string, name: string, optional = false): string {
  if (identifier.test(name)) return `${obj}${optional ? "?." : "."}${name}`;
  return `${obj}${optional ? "?." : ""}[${jsString(name)}]`;
}
