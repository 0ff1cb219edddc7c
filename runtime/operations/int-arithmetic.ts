// Integer arithmetic in method bodies (spec/language.md, "Method language"): Int and Money are
// integers, and JavaScript numbers hold integers exactly only within ±(2^53 − 1). A sum,
// difference or product beyond that would be stored rounded, silently; instead the call ends
// like an `abort` (REST 409, MCP isError) before anything is written, since every write of a
// method happens inside the transaction that the error rolls back.
//
// Generated handlers call this through `rt.checkedInt` (model/build-contract.ts OperationRuntime).

import { OperationError } from "../../model/errors.js";

/** `value` when it is an exact integer; otherwise the call ends with an "aborted" error. */
export function checkedInt(value: number, at: string): number {
  if (Number.isSafeInteger(value)) return value;
  throw new OperationError(
    "aborted",
    `Integer overflow at ${at}: the result is beyond ±${Number.MAX_SAFE_INTEGER}, the largest integer wo computes exactly. Nothing was changed.`,
  );
}
