// Bad input never crashes the method checker or emitter: random token-level mutations of the
// samples' method bodies either yield diagnostics or a catalog the emitter compiles.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emitOperations } from "../../compiler/emit/operations.js";
import { compileSources, sampleSources } from "./compile-fixture.js";

const fragments = [
  "self",
  ".",
  "id",
  "balance",
  "amount",
  "to",
  "+",
  "-",
  "*",
  "/",
  "%",
  "==",
  "<",
  "and",
  "or",
  "not",
  "(",
  ")",
  "{",
  "}",
  "0",
  "1",
  '"x"',
  "null",
  "true",
  "let x =",
  "x",
  "return",
  "assert",
  'otherwise abort "m"',
  "insert Entry {",
  "select Account {",
  "update self set",
  "delete self",
  "count(",
  "latest(",
  "now()",
  "if",
  "else",
  "\n",
];

describe("method checker and emitter never throw", () => {
  const base = sampleSources("ledger");
  const text = base["account.wo"]!;
  const bodyStart = text.indexOf("fn deposit");
  const bodyEnd = text.indexOf("service rest");

  it("on random edits inside method bodies", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.integer({ min: bodyStart, max: bodyEnd }),
            cut: fc.integer({ min: 0, max: 12 }),
            insert: fc.constantFrom(...fragments),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (edits) => {
          let t = text;
          for (const e of edits) t = `${t.slice(0, e.at)} ${e.insert} ${t.slice(e.at + e.cut)}`;
          const { catalog, diagnostics } = compileSources({ ...base, "account.wo": t }, "ledger");
          if (catalog) expect(emitOperations(catalog).text).toContain("createOperations");
          else expect(diagnostics.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
