// compiler/parse-cache.ts: `wo run --watch`'s worker keeps each file's parse between builds. That
// is sound only while nothing after the parser changes an AST, and while a kept parse is dropped
// when its file's text changes. Every sample is checked with its kept ASTs frozen (a write to
// one throws in strict code), and the catalog must be the one an uncached check makes, before
// and after an edit of one file.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { emitBuild } from "../../compiler/emit/index.js";
import { ParseCache } from "../../compiler/parse-cache.js";
import { copyApp, removeApp, repoRoot } from "../support/wo-process.js";

function deepFreeze(value: unknown, seen = new Set<unknown>()): void {
  if (value === null || typeof value !== "object" || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v, seen);
}

/** The check's result as a build would use it: the catalog's emitted files and the diagnostics. */
async function built(dir: string, parses?: ParseCache) {
  const checked = await checkApp(dir, parses ? { parses } : {});
  return {
    checked,
    diagnostics: checked.diagnostics,
    files: checked.catalog ? emitBuild(checked.catalog) : undefined,
  };
}

const samples = readdirSync(join(repoRoot, "samples"));
const copies: string[] = [];
afterAll(() => copies.forEach(removeApp));

describe.each(samples)("samples/%s checked with kept parses", (sample) => {
  it("gives the uncached check's build, its ASTs frozen, before and after an edit", async () => {
    const app = copyApp(`samples/${sample}`);
    copies.push(app);
    const parses = new ParseCache();
    const first = await built(app, parses);
    expect(first.files, "the sample checks").toBeDefined();
    for (const ast of first.checked.asts) deepFreeze(ast);
    for (const d of first.diagnostics) deepFreeze(d);

    const again = await built(app, parses);
    expect(again.checked.asts[0]).toBe(first.checked.asts[0]); // kept, not parsed again
    expect(again.files).toEqual((await built(app)).files);

    // An edit of one file: that file is parsed again, the others are kept.
    const file = readdirSync(app).find((f) => f.endsWith(".wo"))!;
    const text = readFileSync(join(app, file), "utf8");
    writeFileSync(join(app, file), `${text}\n-- edited\ntype Added${sample} {\n  label: Text\n}\n`);
    const edited = await built(app, parses);
    const uncached = await built(app);
    expect(edited.files).toEqual(uncached.files);
    expect(edited.diagnostics).toEqual(uncached.diagnostics);
    expect(edited.files!.map((f) => f.text).join("")).toContain(`Added${sample}`);
  }, 60_000);
});
