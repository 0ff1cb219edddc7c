// parseSource never throws, never hangs: random strings, random token soup and mutations of
// valid programs all end in an AST plus diagnostics. Also the fixed worst cases of the brief:
// empty file, binary garbage, 10,000 nested brackets, a 10 MB file.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSource } from "../../compiler/syntax/parse.js";

const valid = `-- A post.
@table(name: "posts", index: [author])
class Post {
  title: Text @unique
  status: Draft | Published = Draft
  author: ref Author
  tags: multi Tag @edge(:TAGGED)
  meta: { words: Int = 0, lines: [{ a: Text, b: Url? }]? }
  score: Float = -1.5 @check(>= 0)
  service rest "/api/posts" expose list, get, publish
  policy read anyone when visible == true
  on update when old.status != new.status do set updated = now()
  fn publish(by: Int) -> Post in txn snapshot {
    let n = count(select Post { author == self.author, status == "Published" })
    assert n < 10 otherwise abort "too many"
    if not n == 0 and by >= 1 { return self } else { insert Log { msg: "x" } }
    update self set status = "Published"
    delete Tag{ id == by }
  }
}
type L link Post -> Tag { w: Int }
fn f(a: Int) -> [Int] { return (a + 1) * 2 }
main { let x = 1 }
test "t" { assert 1 == 1 }
##app
name: "shop"
##ui
#board { x }
policy P
  effect: allow
on startup
  do: seed()
`;

const pieces = [
  "type",
  "class",
  "fn",
  "main",
  "test",
  "service",
  "rest",
  "mcp",
  "expose",
  "policy",
  "on",
  "do",
  "when",
  "let",
  "insert",
  "update",
  "delete",
  "select",
  "set",
  "return",
  "assert",
  "otherwise",
  "abort",
  "if",
  "else",
  "in",
  "txn",
  "snapshot",
  "ref",
  "multi",
  "via",
  "backlink",
  "link",
  "not",
  "and",
  "or",
  "now()",
  "A",
  "b",
  "x-y",
  "self",
  "{",
  "}",
  "(",
  ")",
  "[",
  "]",
  ",",
  ";",
  ":",
  ".",
  "?",
  "@",
  "@table",
  "@edge",
  "|",
  "->",
  "=",
  "==",
  "!=",
  "<",
  ">=",
  "-",
  "+",
  "*",
  "/",
  "%",
  "1",
  "1.5",
  '"s"',
  "'t'",
  '"open',
  "\n",
  "\n\n",
  " ",
  "--c\n",
  "##app",
  "##ui",
  "#x",
  "$p",
  "&",
  "!",
  "\u0000",
  "é",
];

const bound = (text: string) => {
  const started = performance.now();
  const { ast, diagnostics } = parseSource("fuzz.wo", text);
  const elapsed = performance.now() - started;
  expect(ast.kind).toBe("SourceFileAst");
  for (const d of diagnostics) {
    expect(d.span.line).toBeGreaterThanOrEqual(1);
    expect(d.span.col).toBeGreaterThanOrEqual(1);
    expect(d.span.offset).toBeLessThanOrEqual(text.length);
  }
  // Generous: a hang shows up as seconds, not milliseconds, even on a loaded machine.
  expect(elapsed).toBeLessThan(5000);
};

describe("parseSource never throws", () => {
  it("the seed program parses cleanly", () => {
    expect(parseSource("seed.wo", valid).diagnostics).toEqual([]);
  });

  it("random strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), bound), { numRuns: 200 });
  });

  it("random token soup", () => {
    const soup = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((xs) => xs.join(" "));
    fc.assert(fc.property(soup, bound), { numRuns: 400 });
  });

  it("mutations of a valid program (delete, insert, swap)", () => {
    const mutation = fc.array(
      fc.tuple(
        fc.constantFrom("delete", "insert", "swap"),
        fc.nat({ max: valid.length - 1 }),
        fc.constantFrom(...pieces),
      ),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(mutation, (ops) => {
        let text = valid;
        for (const [op, at, piece] of ops) {
          const i = Math.min(at, text.length - 1);
          if (op === "delete") text = text.slice(0, i) + text.slice(i + 1 + (at % 5));
          else if (op === "insert") text = text.slice(0, i) + piece + text.slice(i);
          else text = text.slice(0, i) + text.slice(i + 1, i + 2) + text.slice(i, i + 1) + text.slice(i + 2);
        }
        bound(text);
      }),
      { numRuns: 250 },
    );
  });

  it.each([
    ["empty file", ""],
    ["only newlines and comments", "\n\n-- x\n\n"],
    ["10,000 nested [", `type A { x: ${"[".repeat(10_000)}Int${"]".repeat(10_000)} }`],
    ["10,000 nested (", `fn f() { return ${"(".repeat(10_000)}1${")".repeat(10_000)} }`],
    ["10,000 unclosed {", `type A { x: ${"{ a: ".repeat(10_000)}`],
    ["20,000 nested not", `fn f() { return ${"not ".repeat(20_000)}1 }`],
    ["binary garbage", Array.from({ length: 50_000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join("")],
    ["1 MB of one unclosed string", `type A { s: Text = "${"x".repeat(1 << 20)}`],
    ["1 MB of '&'", "&".repeat(1 << 20)],
  ])("%s", (_name, text) => {
    const { diagnostics } = parseSource("edge.wo", text);
    expect(diagnostics.length).toBeLessThanOrEqual(201);
  });

  // The full 10 MB of declarations is measured by bench/parse.mjs (seconds, not test material);
  // here: 10 MB that is mostly comments and one string, plus 1 MB of real declarations.
  it("a 10 MB file", () => {
    const filler = `-- ${"c".repeat(1000)}\n`.repeat(5000);
    const text = `${filler}type A {\n  s: Text = "${"x".repeat(5 * 1024 * 1024)}"\n}\n`;
    const { ast, diagnostics } = parseSource("big.wo", text);
    expect(diagnostics).toEqual([]);
    expect(ast.items).toHaveLength(1);
  });

  it("1 MB of declarations", () => {
    let text = "";
    for (let n = 0; text.length < 1024 * 1024; n++) text += `type T${n} {\n  a: Int = 1\n  b: Text?\n  c: ref T0\n}\n`;
    const { ast, diagnostics } = parseSource("big.wo", text);
    expect(diagnostics).toEqual([]);
    expect(ast.items.length).toBeGreaterThan(20_000);
  }, 60_000);

  it("too many errors are cut off with WO1010", () => {
    const { diagnostics } = parseSource("many.wo", `type A {\n${"  ? ?\n".repeat(500)}}\n`);
    expect(diagnostics.length).toBe(201);
    expect(diagnostics[200]!.code).toBe("WO1010");
  });
});
