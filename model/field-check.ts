// `@check(op value)` on a field (spec/language.md, "Checks"): the comparison form, which every
// part of wo reads from here — the checker parses it into a FieldCheck, the schema emitter
// states it in JSON Schema keywords, the operation runtime refuses method writes that break it,
// and migrations count the stored rows that break it. One table of operators, so the four agree.

// `==` is left out: a field that can hold one value only is a constant, not a check.
export type CheckOp = ">" | ">=" | "<" | "<=" | "!=";

/** A field's check: its value, when present (not null), must compare to `value` by `op`. */
export interface FieldCheck {
  op: CheckOp;
  /** A number for numeric fields, a string for text fields (the field's own kind). */
  value: number | string;
}

/** The operators, longest first so `>=` is not read as `>`. */
export const checkOps: readonly CheckOp[] = [">=", "<=", "!=", ">", "<"];

/** Operators that order values: only numeric fields take them (JSON Schema cannot order text). */
export function isOrderingOp(op: CheckOp): boolean {
  return op !== "!=";
}

/** "> 0", "!= \"\"": how messages and docs write the check. */
export function describeCheck(check: FieldCheck): string {
  return `${check.op} ${JSON.stringify(check.value)}`;
}

/** What an input or a row that breaks the check is told, after its JSON pointer. */
export function checkMessage(check: FieldCheck): string {
  return `must be ${describeCheck(check)} (@check)`;
}

/** Whether `value` passes: null and absent always do (an optional field's check is on its value). */
export function checkHolds(check: FieldCheck, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  const v = check.value;
  switch (check.op) {
    case "!=":
      return value !== v;
    case ">":
      return typeof value === "number" && value > (v as number);
    case ">=":
      return typeof value === "number" && value >= (v as number);
    case "<":
      return typeof value === "number" && value < (v as number);
    case "<=":
      return typeof value === "number" && value <= (v as number);
  }
}

/** The JSON Schema keyword that says the check (spec/schemas.md, "Checks"), and its value. */
export function checkSchemaKeyword(check: FieldCheck): { keyword: string; value: unknown } {
  switch (check.op) {
    case ">":
      return { keyword: "exclusiveMinimum", value: check.value };
    case ">=":
      return { keyword: "minimum", value: check.value };
    case "<":
      return { keyword: "exclusiveMaximum", value: check.value };
    case "<=":
      return { keyword: "maximum", value: check.value };
    case "!=":
      return { keyword: "not", value: { const: check.value } };
  }
}

/** The SQL operator under which a stored value *breaks* the check (its negation). */
export function violatingSqlOp(op: CheckOp): string {
  return { ">": "<=", ">=": "<", "<": ">=", "<=": ">", "!=": "=" }[op];
}
