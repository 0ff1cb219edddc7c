// The scalar table (model/scalars.ts) is what the compiler and the runtime read; the specs and
// the editor grammar are written by hand. Each must name every scalar and say what the table
// says, so a scalar added or changed in the table fails here until the docs follow.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scalarNames, scalars } from "../../model/scalars.js";
import { sqlTypeOf } from "../../runtime/store/ddl.js";
import { repoRoot } from "../support/wo-process.js";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");

/** The rows of the markdown table under `heading`: first cell → the other cells. */
function tableUnder(text: string, heading: string): string[][] {
  const start = text.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of text.slice(start).split("\n").slice(1)) {
    if (rows.length > 0 && !line.startsWith("|")) break;
    if (!line.startsWith("|") || /^\|\s*-/.test(line)) continue;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(1);
}

/** The scalars a cell names: `Id`, `Int`, `Money`, `ref T` → Id, Int, Money. */
function namedScalars(cell: string): string[] {
  return [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!).filter((n) => (scalarNames as string[]).includes(n));
}

describe("the scalar table and what is written about it", () => {
  it("spec/schemas.md gives each scalar the JSON Schema the table gives it", () => {
    const rows = tableUnder(read("spec/schemas.md"), "## Scalars → JSON Schema");
    const documented = new Map(
      rows.filter((r) => namedScalars(r[0]!).length === 1).map((r) => [namedScalars(r[0]!)[0]!, r[1]!]),
    );
    expect([...documented.keys()].sort()).toEqual([...scalarNames].sort());
    for (const name of scalarNames) {
      const cell = documented.get(name)!;
      if (cell.startsWith("as `Int`")) {
        const { description: _description, ...schema } = scalars[name].schema;
        expect(schema, name).toEqual(scalars.Int.schema);
      } else expect(JSON.parse(cell.replace(/^`|`$/g, "").replaceAll("\\|", "|")), name).toEqual(scalars[name].schema);
    }
  });

  it("spec/storage.md puts each scalar in the SQLite column its storage kind maps to", () => {
    const rows = tableUnder(read("spec/storage.md"), "### Type → column");
    const columnOf = new Map<string, string>();
    for (const [types, column] of rows) for (const name of namedScalars(types!)) columnOf.set(name, column!);
    expect([...columnOf.keys()].sort()).toEqual([...scalarNames].sort());
    for (const name of scalarNames)
      expect(columnOf.get(name), name).toContain(
        `\`${sqlTypeOf({ name, type: { kind: "scalar", scalar: name }, isOptional: false, isUnique: false })}\``,
      );
  });

  it("spec/language.md and the editor grammar list exactly the scalars", () => {
    const listed = /must be a scalar \(([^)]*)\)/.exec(read("spec/language.md").replace(/\s+/g, " "))![1]!;
    expect(listed.replace(/`/g, "").split(" ").sort()).toEqual([...scalarNames].sort());
    const grammar = JSON.parse(read("editors/vscode/syntaxes/wo.tmLanguage.json"));
    const primitive = grammar.repository["type-name"].patterns.find(
      (p: { name: string }) => p.name === "support.type.primitive.wo",
    ).match as string;
    expect(/\(\?:([A-Za-z|]+)\)/.exec(primitive)![1]!.split("|").sort()).toEqual([...scalarNames].sort());
  });
});
