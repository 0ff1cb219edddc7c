// SourceFile: offset → 1-based line:col, and the text of a line (without CR/LF).

import { describe, expect, it } from "vitest";
import { SourceFile } from "../../compiler/source.js";

describe("SourceFile", () => {
  const file = new SourceFile("a.wo", "type A {\r\n  x: Int\n}\n");

  it("maps offsets to 1-based positions; CR is a column, LF ends the line", () => {
    expect(file.positionAt(0)).toEqual({ line: 1, col: 1 });
    expect(file.positionAt(8)).toEqual({ line: 1, col: 9 }); // the CR
    expect(file.positionAt(10)).toEqual({ line: 2, col: 1 });
    expect(file.positionAt(12)).toEqual({ line: 2, col: 3 });
    expect(file.positionAt(file.text.length)).toEqual({ line: 4, col: 1 });
  });

  it("clamps offsets outside the text instead of failing", () => {
    expect(file.positionAt(-5)).toEqual({ line: 1, col: 1 });
    expect(file.positionAt(10_000)).toEqual({ line: 4, col: 1 });
    expect(file.positionAt(Number.NaN)).toEqual({ line: 1, col: 1 });
  });

  it("returns a line's text without its terminator, and '' past the end", () => {
    expect(file.lineText(1)).toBe("type A {");
    expect(file.lineText(2)).toBe("  x: Int");
    expect(file.lineText(4)).toBe("");
    expect(file.lineText(9)).toBe("");
  });
});
