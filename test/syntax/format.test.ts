// formatDiagnostic: header line, source excerpt with line number, caret as wide as the span.

import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../compiler/diagnostics/format.js";
import { parseSource } from "../../compiler/syntax/parse.js";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";

const diag = (over: Partial<Diagnostic> & { span: Diagnostic["span"] }): Diagnostic => ({
  code: "WO1003",
  severity: "error",
  message: "Expected ':' but found 'Int'.",
  ...over,
});

describe("formatDiagnostic", () => {
  it("prints path:line:col, code, message, the line and a caret under the span", () => {
    const text = "type A {\n  name Int\n}\n";
    const { diagnostics } = parseSource("app/a.wo", text);
    expect(formatDiagnostic(diagnostics[0]!, text)).toBe(
      [
        "app/a.wo:2:3: error WO1003: Expected a member (a field 'name: Type', 'service', 'policy', 'on' or 'fn') but found 'name'.",
        "  2 |   name Int",
        "    |   ^^^^",
      ].join("\n"),
    );
  });

  it("says warning for warnings and widens the gutter for long line numbers", () => {
    const text = `${"\n".repeat(99)}  service graphql "/g" expose list\n`;
    const offset = text.indexOf("graphql");
    const d = diag({
      severity: "warning",
      message: "Not served yet.",
      span: { file: "b.wo", offset, end: offset + 7, line: 100, col: 11 },
    });
    expect(formatDiagnostic(d, text)).toBe(
      [
        "b.wo:100:11: warning WO1003: Not served yet.",
        '  100 |   service graphql "/g" expose list',
        "      |           ^^^^^^^",
      ].join("\n"),
    );
  });

  it("an empty span at end of line still gets one caret; a span over several lines is cut at the line end", () => {
    const text = "type A {\n  x: Int\n";
    const end = text.length;
    expect(formatDiagnostic(diag({ span: { file: "c.wo", offset: 8, end: 8, line: 1, col: 9 } }), text)).toBe(
      ["c.wo:1:9: error WO1003: Expected ':' but found 'Int'.", "  1 | type A {", "    |         ^"].join("\n"),
    );
    expect(
      formatDiagnostic(diag({ span: { file: "c.wo", offset: 5, end, line: 1, col: 6 } }), text).split("\n")[2],
    ).toBe("    |      ^^^");
  });

  it("keeps tabs so the caret lines up, and handles CRLF and unterminated strings", () => {
    const text = 'type A {\r\n\ts: Text = "abc\r\n}\r\n';
    const { diagnostics } = parseSource("d.wo", text);
    expect(formatDiagnostic(diagnostics[0]!, text)).toBe(
      ["d.wo:2:12: error WO1002: Unterminated string literal.", '  2 | \ts: Text = "abc', "    | \t          ^"].join(
        "\n",
      ),
    );
  });
});
