// Broken programs → the FIRST diagnostic's code, position and message: the first diagnostic
// sits on the stated line and its message contains the phrase (spec/diagnostics.md). `┆` marks where the
// diagnostic must start; it is removed before parsing.

import { describe, expect, it } from "vitest";
import { parseSource } from "../../compiler/syntax/parse.js";

const broken: [name: string, marked: string, code: string, phrase: string][] = [
  ["unexpected character", "type A {\n  x: Int ┆& 1\n}\n", "WO1001", "'&'"],
  ["lone bang", "type A {\n  ok: Bool = ┆!true\n}\n", "WO1001", "'!'"],
  ["NUL byte", "type A { x: Int }\n┆\u0000\n", "WO1001", "\\u0000"],
  ["unterminated string at the opening quote", 'type A {\n  s: Text = ┆"abc\n  t: Int\n}\n', "WO1002", "unterminated"],
  ["type inside an unclosed body", "type A {\n  x: Int\n┆type B { y: Int }\n", "WO1003", "expected '}'"],
  [
    "unclosed struct: names the line of its '{'",
    "type A {\n  x: Int\n  s: {\n    a: Int\n\n┆type B {\n  y: Int\n}\n",
    "WO1003",
    "the '{' opened at line 3 is never closed",
  ],
  [
    "unclosed body at end of file: names the line of its '{'",
    "class A {\n  fn m() {\n    let a = 1\n  }\n┆",
    "WO1003",
    "the '{' opened at line 1 is never closed",
  ],
  ["missing field type", "type A {\n  x: ┆\n}\n", "WO1003", "expected a type"],
  ["missing closing brace at end of file", "type A {\n  x: Int┆", "WO1003", "but found end of file"],
  ["stray token after a field", "type A {\n  title: Text ┆foo bar\n}\n", "WO1003", "found 'foo'"],
  ["unknown member line", "type A {\n  ┆expose list\n}\n", "WO1003", "expected a member"],
  ["stray top-level token", "┆} type A { x: Int }\n", "WO1003", "expected a declaration"],
  ["optional array element", "type A {\n  xs: [Int┆?]\n}\n", "WO1006", "[T]?"],
  ["hyphenated type name", "type ┆Order-Line { x: Int }\n", "WO1005", "Order_Line"],
  ["hyphenated variant", "type A {\n  s: Draft | ┆In-Review\n}\n", "WO1005", "In_Review"],
  ["hyphenated method", "class A {\n  fn ┆do-it() { }\n}\n", "WO1005", "do_it"],
  ["@table name twice", '@table(name: "a", ┆name: "b")\ntype A { x: Int }\n', "WO1007", "given twice"],
  ["@table name not a string", "@table(name: ┆a)\ntype A { x: Int }\n", "WO1003", "expected a string"],
  ["@table empty index", "@table(index: [┆])\ntype A { x: Int }\n", "WO1003", "expected an index column"],
  ["@table given twice", '@table(name: "a")\n┆@table(index: [x])\ntype A { x: Int }\n', "WO1011", "given twice"],
  ["@table then something else", '@table(name: "a")\n┆fn f() { }\n', "WO1003", "expected 'type' or 'class'"],
  ["service without expose", 'type A {\n  service rest "/a" ┆list\n}\n', "WO1003", "expected 'expose'"],
  ["expose list across lines", 'type A {\n  service rest "/a" expose list,┆\n  get\n}\n', "WO1003", "expected a name"],
  ["policy with junk", "type A {\n  policy read ┆everyone\n}\n", "WO1003", "expected 'anyone'"],
  ["trigger without do", "type A {\n  on update when x == 1┆\n}\n", "WO1003", "expected 'do'"],
  ["chained comparison", "fn f(a: Int) {\n  return 1 < a ┆< 3\n}\n", "WO1008", "chained"],
  [
    "unsupported statement",
    "fn f(a: Int) {\n  ┆emit a\n}\n",
    "WO1003",
    "expected a statement (let, insert, return, assert, if, for, update, delete, link or a call)",
  ],
  ["line break before an operator", "fn f(a: Int) {\n  let x = a\n    ┆+ 1\n}\n", "WO1003", "expected a statement"],
  ["two statements on one line", "fn f() {\n  let a = 1 ┆let b = 2\n}\n", "WO1003", "end of statement"],
  ["missing comma between params", "fn f(a: Int ┆b: Int) { }\n", "WO1003", "',' between parameters"],
  ["list parameter type", "fn f(a: ┆[T]) { }\n", "WO1003", "expected a name but found '['"],
  ["default and @default", "type A {\n  n: Int = 1 ┆@default(2)\n}\n", "WO1009", "both"],
  ["@default not a literal", "type A {\n  n: Int @default(┆a + b)\n}\n", "WO1003", "one literal"],
  ["empty default", "type A {\n  n: Int ┆=\n}\n", "WO1003", "a default value"],
  ["top-level on other than startup", "on ┆create do: f()\n", "WO1003", "'startup'"],
  ["let without value", "fn f() {\n  let a = ┆\n}\n", "WO1003", "expected an expression"],
  ["else without block", "fn f() {\n  if true { } else ┆return\n}\n", "WO1003", "expected"],
  [
    "brackets nested too deep",
    `type A {\n  x: ${"[".repeat(99)}┆[[Int${"]".repeat(101)}\n}\n`,
    "WO1004",
    "deeper than 100",
  ],
  ["expression nested too deep", `┆fn f() {\n  return ${"not ".repeat(20000)}true\n}\n`, "WO1012", "nested too deeply"],
  [
    "assert without a condition",
    "fn f() {\n  assert ┆otherwise abort\n}\n",
    "WO1003",
    "expected an expression but found 'otherwise'",
  ],
  ["if without a condition", "fn f() {\n  if ┆{ }\n}\n", "WO1003", "expected an expression"],
  ["arrow without a return type", "fn f() -> ┆{ }\n", "WO1003", "expected a name or '['"],
  ["@table key without value", "@table(foo┆)\ntype A { a: Int }\n", "WO1003", "expected ':' but found ')'"],
  ["unclosed @table(", '@table(name: "x"┆\ntype A { x: Int }\n', "WO1003", "expected ')' but found end of line"],
  ["multi with a non-edge annotation", "type A {\n  xs: multi T @unique\n  y: ┆}\n", "WO1003", "expected a type"],
];

function extract(marked: string): { source: string; offset: number } {
  const offset = marked.indexOf("┆");
  if (offset < 0) throw new Error("case has no ┆ marker");
  return { source: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

describe("broken programs: first diagnostic", () => {
  it.each(broken)("%s", (_name, marked, code, phrase) => {
    const { source, offset } = extract(marked);
    const { diagnostics } = parseSource("bad.wo", source);
    expect(diagnostics.length).toBeGreaterThan(0);
    const first = diagnostics[0]!;
    const before = source.slice(0, offset);
    const line = before.split("\n").length;
    const col = offset - (before.lastIndexOf("\n") + 1) + 1;
    expect({ code: first.code, at: `${first.span.line}:${first.span.col}`, message: first.message }).toMatchObject({
      code,
      at: `${line}:${col}`,
    });
    expect(first.message.toLowerCase()).toContain(phrase.toLowerCase());
  });
});

describe("recovery: one run reports every error", () => {
  it("reports errors in several declarations and still builds the good ones", () => {
    const source = [
      "type A {",
      "  x: ",
      "}",
      "type B {",
      "  y: Int",
      "}",
      "type C {",
      "  z: [Int?]",
      "  w: Text",
      "}",
      "type D {",
      "  bad line here",
      "  ok: Int",
      "}",
    ].join("\n");
    const { ast, diagnostics } = parseSource("multi.wo", source);
    expect(diagnostics.map((d) => `${d.span.line}:${d.code}`)).toEqual(["2:WO1003", "8:WO1006", "12:WO1003"]);
    const names = ast.items.map((i) => (i.kind === "TypeDecl" ? i.name.text : i.kind));
    expect(names).toEqual(["A", "B", "C", "D"]);
    const d = ast.items[3]!;
    expect(d.kind === "TypeDecl" && d.members.map((m) => m.kind === "FieldDecl" && m.name.text)).toEqual(["ok"]);
  });

  it("an error inside a method body costs one statement, not the method or the class", () => {
    const source =
      "class A {\n  fn f() {\n    assert otherwise abort\n    let y = (1 + )\n    return 2\n  }\n  fn g() { return 1 }\n  x: Int\n}\n";
    const { ast, diagnostics } = parseSource("m.wo", source);
    expect(diagnostics.map((d) => `${d.span.line}:${d.span.col}`)).toEqual(["3:12", "4:18"]);
    const a = ast.items[0]!;
    if (a.kind !== "TypeDecl") throw new Error("expected a type");
    expect(a.members.map((m) => (m.kind === "FieldDecl" || m.kind === "FnDecl" ? m.name.text : m.kind))).toEqual([
      "f",
      "g",
      "x",
    ]);
    const f = a.members[0]!;
    expect(f.kind === "FnDecl" && f.body.statements.map((s) => s.kind)).toEqual(["ReturnStmt"]);
  });

  it("an unclosed body is reported at the next declaration, which still parses", () => {
    const { ast, diagnostics } = parseSource("u.wo", "type A {\n  x: Int\n\ntype B { y: Int }\n");
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.span.line).toBe(4);
    expect(ast.items.map((i) => i.kind === "TypeDecl" && i.name.text)).toEqual(["A", "B"]);
  });
});
