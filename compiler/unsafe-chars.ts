// Characters that must never reach output raw: line terminators and other control characters
// (C0, DEL, C1, U+2028/U+2029) and the bidirectional formatting controls. Raw, they end a `//`
// comment in generated JavaScript (and run what follows), or make a terminal or editor show
// text other than what is there (spec/security.md, "Generated code").
//
// Owns the set and its one escaped form, `\uXXXX`. The loader refuses file names with these
// characters (WO4006, printed escaped); compiler/emit/js-literal.ts escapes them in comments.

const unsafeCharSource = "[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
const unsafeChar = new RegExp(unsafeCharSource);
const unsafeChars = new RegExp(unsafeCharSource, "g");

export function hasUnsafeChars(text: string): boolean {
  return unsafeChar.test(text);
}

/** `text` with every unsafe character as `\uXXXX`: one line, and it reads as what it is. */
export function escapeUnsafeChars(text: string): string {
  return text.replace(unsafeChars, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
