// Integer arithmetic in method bodies (spec/language.md, "Method language"): Int and Money are
// integers, and JavaScript numbers hold integers exactly only within ±(2^53 − 1). A sum,
// difference or product beyond that would be stored rounded, silently; instead the call ends
// like an `abort` (REST 409, MCP isError) before anything is written, since every write of a
// method happens inside the transaction that the error rolls back.
//
// Float is an IEEE double: past ±1.8e308 a result is Infinity, which JSON writes as `null` (and
// PostgreSQL's double precision would store as Infinity); it ends the call the same way.
//
// Generated handlers call these through `rt.checkedInt` and `rt.checkedFloat` (model/build-contract.ts
// OperationRuntime); Float division by `floatDiv` (body-helpers.ts), which checks the same.

import { OperationError } from "../../model/errors.js";

/** `value` when it is an exact integer; otherwise the call ends with an "aborted" error. */
export function checkedInt(value: number, at: string): number {
  if (Number.isSafeInteger(value)) return value;
  throw new OperationError(
    "aborted",
    `Integer overflow at ${at}: the result is beyond ±${Number.MAX_SAFE_INTEGER}, the largest integer wo computes exactly. Nothing was changed.`,
  );
}

/** `value` when it is a finite number; otherwise (Infinity, NaN) the call ends with an "aborted" error. */
export function checkedFloat(value: number, at: string): number {
  if (Number.isFinite(value)) return value;
  throw new OperationError(
    "aborted",
    `Float overflow at ${at}: the result is beyond ±${Number.MAX_VALUE}, the largest Float wo computes. Nothing was changed.`,
  );
}
