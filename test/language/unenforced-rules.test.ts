// Every construct wo does not execute keeps its warning, and `wo check` ends with "N declared
// rules are not enforced", counted from those warnings' codes (compiler/diagnostics/
// declared-rules.ts; spec/diagnostics.md). Plain `--format json` stays a diagnostics array.

import { afterAll, describe, expect, it, vi } from "vitest";
import { unenforcedRuleCodes } from "../../compiler/diagnostics/declared-rules.js";
import { codes } from "../../compiler/diagnostics/codes.js";
import { removeApp, runWoCommand, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 60_000 });

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeApp));

function app(name: string, text: string): string {
  const dir = writeApp(name, { "app.wo": text });
  dirs.push(dir);
  return dir;
}

// `@index` is not enforced, and `between … and …` is no check expression wo reads.
const twoRules = "type A {\n  x: Int @index\n  y: Int @check(between 1 and 5)\n}\n";

describe("wo check: declared rules that are not enforced", () => {
  it("the listed codes are warnings that exist", () => {
    for (const code of unenforcedRuleCodes) expect(codes[code].severity).toBe("warning");
  });

  it("text: the warnings, then the summary, then the count as the last line", async () => {
    const r = await runWoCommand(["check", app("rules-two", twoRules)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning WO2108: '@index' is parsed but not enforced yet.");
    expect(r.stderr).toContain(
      "warning WO2108: '@check(…) with an expression wo cannot read' is parsed but not enforced yet.",
    );
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.at(-2)).toMatch(/ — ok \(2 warnings\)$/);
    expect(lines.at(-1)).toBe("2 declared rules are not enforced (see the warnings above)");
  });

  it("one rule is singular; warnings that are no rule do not count", async () => {
    const one = await runWoCommand(["check", app("rules-one", "type A {\n  x: Int @index\n}\n")]);
    expect(one.stdout.trimEnd().split("\n").at(-1)).toBe("1 declared rule is not enforced (see the warning above)");
    const other = await runWoCommand(["check", app("rules-none", "type A {\n  x: Int @fancy\n}\n")]);
    expect(other.stderr).toContain("WO2105");
    expect(other.stdout).not.toContain("declared rule");
    expect(other.stdout.trimEnd().split("\n")).toHaveLength(1);
  });

  it("a computed field or check using what wo lacks stays inert text with a warning saying why; a mistake stays an error", async () => {
    const program =
      "type Post {\n  body: Text\n  words_in: Int = syllables(body)\n  short: Bool @check(syllables(body) < 10)\n}\n" +
      "type Tag {\n  name: Text\n  posts: Int = count(Post{ tags contains self })\n}\n";
    const r = await runWoCommand(["check", app("rules-lacking", program)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "app.wo:3:19: warning WO2107: Computed default of 'words_in' is not evaluated (wo cannot evaluate it: Unknown function 'syllables'",
    );
    expect(r.stderr).toMatch(
      /app\.wo:4:22: warning WO2108: '@check\(…\) on 'short': wo cannot evaluate it: Unknown function 'syllables'/,
    );
    expect(r.stderr).toMatch(
      /app\.wo:8:16: warning WO2107: Computed default of 'posts' is not evaluated \(wo cannot evaluate it: select Post: 'tags'/,
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("3 declared rules are not enforced (see the warnings above)");
    // A computed field of the wrong type is the program's mistake, not wo's gap.
    const wrong = await runWoCommand(["check", app("rules-wrong", 'type A {\n  x: Int\n  y: Int = "a" + "b"\n}\n')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("error WO5007");
  });

  it("json: still an array; the counted warnings carry unenforcedRule, --policies has the count", async () => {
    const dir = app("rules-json", "type A {\n  x: Int @index @fancy\n}\n");
    const r = await runWoCommand(["check", dir, "--format", "json"]);
    const list = JSON.parse(r.stdout);
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((d: any) => [d.code, d.unenforcedRule])).toEqual([
      ["WO2108", true],
      ["WO2105", undefined],
    ]);
    const withPolicies = JSON.parse((await runWoCommand(["check", dir, "--format", "json", "--policies"])).stdout);
    expect(withPolicies.unenforcedRules).toBe(1);
  });
});
