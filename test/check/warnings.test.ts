// Constructs that parse but are not executed yet: warnings, never errors, and the catalog
// is still produced.

import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { cursorPosition, writeApp } from "./app-fixture.js";

const cases: [string, string, string][] = [
  [
    "WO2104",
    "top-level policy with another effect",
    "type A {\n  x: Int\n}\npolicy P\n  applies_to: A\n  ┆effect: allow\n",
  ],
  ["WO2103", "fn in a plain type", "type A {\n  x: Int\n  fn ┆go() -> Int {\n    return 1\n  }\n}\n"],
  [
    "WO2111",
    "free fn wo does not run",
    "fn ┆helper(a: Int) {\n  as session e {\n    print(a)\n  }\n}\ntype A {\n  x: Int\n}\n",
  ],
  ["WO2105", "unknown field annotation", "type A {\n  x: Int @┆fancy\n}\n"],
  ["WO2106", "unknown type annotation", "@┆experimental\ntype A {\n  x: Int\n}\n"],
  ["WO2107", "computed default wo cannot read", "type A {\n  x: [Int]\n  y: Int = ┆x between 1 and 5\n}\n"],
  ["WO2108", "@check wo cannot read", "type A {\n  x: Int ┆@check(between 1 and 5)\n}\n"],
  ["WO2110", "multi without a ref back", "type A {\n  bs: multi ┆B\n}\ntype B {\n  x: Int\n}\n"],
  ["WO3101", "service mcp on another path", 'type A {\n  x: Int\n  service mcp ┆"/tools" expose list\n}\n'],
  ["WO3102", "graphql service", 'type A {\n  x: Int\n  service ┆graphql "/graphql" expose list\n}\n'],
  ["WO3103", "op exposed twice", 'type A {\n  x: Int\n  service rest "/api/a" expose list, ┆list\n}\n'],
  [
    "WO3105",
    "method with no rest service and in no mcp list",
    'class A {\n  x: Int\n  fn ┆m() -> Int {\n    return 1\n  }\n  service mcp "/mcp" expose list\n}\n',
  ],
];

describe("warnings for inert constructs", () => {
  it.each(cases)("%s %s", async (code, _name, text) => {
    const files = { "app.wo": text };
    const dir = writeApp(files);
    try {
      const result = await checkApp(dir);
      expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(result.catalog).toBeDefined();
      const d = result.diagnostics.find((x) => x.code === code);
      expect(d?.severity).toBe("warning");
      expect(`${d!.span.file.slice(dir.length + 1)}:${d!.span.line}:${d!.span.col}`).toBe(cursorPosition(files));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
