// The VS Code grammar (editors/vscode/syntaxes/wo.tmLanguage.json): valid JSON, every regex
// compiles (the Oniguruma features it uses — lookarounds, classes, anchors — read the same in
// JavaScript), and every keyword of the lexer is highlighted as a keyword, also when written
// next to the hyphen rule (`order-type` is one identifier, spec/language.md).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allTokens, Identifier } from "../../compiler/syntax/tokens.js";
import { repoRoot } from "../support/wo-process.js";

interface Rule {
  name?: string;
  match?: string;
  begin?: string;
  end?: string;
  [key: string]: unknown;
}

const grammarPath = join(repoRoot, "editors/vscode/syntaxes/wo.tmLanguage.json");
const grammar = JSON.parse(readFileSync(grammarPath, "utf8")) as {
  scopeName: string;
  patterns: Rule[];
  repository: Record<string, Rule>;
};

function rules(node: unknown, out: Rule[] = []): Rule[] {
  if (Array.isArray(node)) for (const n of node) rules(n, out);
  else if (node && typeof node === "object") {
    const rule = node as Rule;
    if (typeof rule.match === "string" || typeof rule.begin === "string") out.push(rule);
    for (const value of Object.values(rule)) rules(value, out);
  }
  return out;
}

/** Every word the lexer reserves: keyword tokens are the ones that fall back to Identifier. */
const lexerKeywords = allTokens
  .filter((t) => (t as { LONGER_ALT?: unknown }).LONGER_ALT === Identifier)
  .flatMap((t) => (t.PATTERN as RegExp).source.split("|"));

const keywordRules = rules(grammar).filter(
  (r) => r.match !== undefined && /^(keyword|storage|constant\.language)\./.test(r.name ?? ""),
);
const highlights = (rule: Rule, text: string, word: string) => {
  const m = new RegExp(rule.match!, "g");
  return [...text.matchAll(m)].some((found) => found[0] === word);
};

describe("the TextMate grammar", () => {
  it("is JSON for the source.wo scope and every match/begin/end compiles", () => {
    expect(grammar.scopeName).toBe("source.wo");
    const all = rules(grammar);
    expect(all.length).toBeGreaterThan(30);
    for (const rule of all) {
      for (const key of ["match", "begin", "end"] as const) {
        if (rule[key] !== undefined) expect(() => new RegExp(rule[key]!), `${key}: ${rule[key]}`).not.toThrow();
      }
    }
    // Every #name a rule includes exists.
    for (const include of JSON.stringify(grammar).matchAll(/"include": ?"#([^"]+)"/g))
      expect(grammar.repository).toHaveProperty(include[1]!);
  });

  it("highlights every keyword of the lexer, and none inside a longer or hyphenated name", () => {
    expect(lexerKeywords).toEqual(
      expect.arrayContaining(["abort", "type", "class", "expose", "AND", "RETURNING", "SELECT", "WHERE"]),
    );
    expect(lexerKeywords.length).toBeGreaterThanOrEqual(49 + 7 + 15);
    for (const word of lexerKeywords) {
      expect(
        keywordRules.some((r) => highlights(r, ` ${word} `, word)),
        word,
      ).toBe(true);
      for (const longer of [`${word}s`, `order-${word}`, `${word}-x`]) {
        expect(
          keywordRules.some((r) => highlights(r, ` ${longer} `, word)),
          longer,
        ).toBe(false);
      }
    }
  });

  it("gives strings with escapes, numbers, annotations and service lines their scopes", () => {
    const byName = (name: string) => rules(grammar).find((r) => r.name === name || (r.begin && r.name === name))!;
    expect(byName("string.quoted.double.wo").begin).toBe('"');
    expect('\\n \\t \\"'.match(new RegExp(byName("constant.character.escape.wo").match!, "g"))).toEqual(["\\n", "\\t"]);
    expect("1.5 x1 42".match(new RegExp(byName("constant.numeric.float.wo").match!, "g"))).toEqual(["1.5"]);
    expect("1.5 x1 42".match(new RegExp(byName("constant.numeric.integer.wo").match!, "g"))).toEqual(["42"]);

    const service = rules(grammar).find((r) => r.match?.includes("(service)"))!;
    expect(' service rest "/api/posts" expose list'.match(new RegExp(service.match!))!.slice(1, 4)).toEqual([
      "service",
      "rest",
      '"/api/posts"',
    ]);
    const annotation = rules(grammar).find((r) => r.begin?.startsWith("(@)"))!;
    expect('@table(name: "posts")'.match(new RegExp(annotation.begin!))![2]).toBe("table");
    const typeDecl = rules(grammar).find((r) => r.match?.includes("(type|class)"))!;
    expect(
      "type Enrolment link Student -> Course {"
        .match(new RegExp(typeDecl.match!))!
        .filter((_, i) => [2, 4, 6].includes(i)),
    ).toEqual(["Enrolment", "Student", "Course"]);
  });
});
