// The one table of diagnostic codes. Call sites name a code and its parameters; the message
// text lives only here. spec/diagnostics.md documents every code, and a test checks that the
// table and the document agree. Never reuse a retired code.
//
//   WO1xxx  lexing and parsing          WO2xxx  declarations, fields and types
//   WO3xxx  services and exposure       WO4xxx  project files and wo.toml
//   WO5xxx  method bodies

export interface DiagnosticDef<P extends string = string> {
  severity: "error" | "warning";
  message: (params: Record<P, string>) => string;
}

/** Tagged template: msg`Unknown type '${"name"}'.` builds a typed message function. */
function msg<const P extends string>(strings: TemplateStringsArray, ...keys: P[]): (params: Record<P, string>) => string {
  return (params) => strings.reduce((out, s, i) => out + s + (i < keys.length ? params[keys[i]!] : ""), "");
}

export const codes = {
  // WO1xxx: lexing and parsing
  WO1001: { severity: "error", message: msg`Unexpected character '${"char"}'.` },
  WO1002: { severity: "error", message: msg`Unterminated string literal.` },
  WO1003: { severity: "error", message: msg`Expected ${"expected"} but found ${"found"}.` },
  // WO2xxx: declarations, fields and types
  WO2001: { severity: "error", message: msg`Unknown type '${"name"}'.` },
  // WO3xxx: services and exposure
  WO3001: { severity: "error", message: msg`'${"name"}' is not an operation or method of '${"type"}'.` },
  // WO4xxx: project files and wo.toml
  WO4001: { severity: "error", message: msg`No .wo files found in '${"dir"}'.` },
  // WO5xxx: method bodies
  WO5001: { severity: "error", message: msg`Unknown name '${"name"}'.` },
} as const satisfies Record<`WO${number}`, DiagnosticDef<any>>;

export type DiagnosticCode = keyof typeof codes;
export type DiagnosticParams<C extends DiagnosticCode> = Parameters<(typeof codes)[C]["message"]>[0];
