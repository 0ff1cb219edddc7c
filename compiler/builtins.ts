// The functions every body may call without declaring them (spec/language.md, WO5004). The
// checker, the emitter and the assert-message rule all read this one list.

export const builtinFunctions: ReadonlySet<string> = new Set([
  "now",
  "count",
  "sum",
  "latest",
  "contains",
  "len",
  "words",
  "print",
  "receive",
]);
