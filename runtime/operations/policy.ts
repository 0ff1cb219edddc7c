// The policy seam: the one place that decides whether a caller may run an operation, asked for
// every operation (REST and MCP alike, table-driven and generated) after its input has passed
// its schema and before it takes a concurrency slot or opens a transaction
// (runtime/operations/bind.ts). `policy` blocks in `.wo` files are parsed but not enforced yet,
// so the policy wo runs today admits everything; a future one refuses by throwing an
// OperationError, which the adapters answer like any other (nothing ran, nothing changed).

import type { CallContext, OperationEntry } from "../../model/build-contract.js";

export interface OperationPolicy {
  /** Returns to admit the call; throws an OperationError to refuse it. `input` has passed the operation's schema. */
  admit(operation: OperationEntry, input: unknown, call: CallContext): void;
}

/** What wo enforces today: no access rules, every call admitted. */
export const admitEverything: OperationPolicy = { admit() {} };
