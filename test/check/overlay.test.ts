// checkApp with an overlay: an editor's unsaved buffers laid over the app folder
// (compiler/index.ts, used by `wo lsp`). The disk is never written.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach } from "./app-fixture.js";

const app = appsDeletedAfterEach();

describe("checkApp overlay", () => {
  it("an overlaid text replaces the file on disk, for the whole program", async () => {
    const dir = app({
      "author.wo": "type Author {\n  name: Text\n}\n",
      "post.wo": "type Post {\n  author: ref Author\n}\n",
    });
    const result = await checkApp(dir, { overlay: new Map([["author.wo", "type Writer {\n  name: Text\n}\n"]]) });
    expect(result.diagnostics.map((d) => [d.code, d.span.file.slice(dir.length + 1), d.span.line, d.span.col])).toEqual(
      [["WO2001", "post.wo", 2, 15]],
    );
    expect(result.sources.get(`${dir}/author.wo`)).toBe("type Writer {\n  name: Text\n}\n");
    expect(readFileSync(join(dir, "author.wo"), "utf8")).toBe("type Author {\n  name: Text\n}\n");
  });

  it("adds a file the disk does not have, in path order, with its ASTs returned in program order", async () => {
    const dir = app({ "b.wo": "type B {\n  a: ref A\n}\n" });
    const result = await checkApp(dir, { overlay: new Map([["a.wo", "type A {\n  x: Int\n}\n"]]) });
    expect(result.diagnostics).toEqual([]);
    expect(result.catalog!.types.map((t) => t.name)).toEqual(["A", "B"]);
    expect(result.asts.map((a) => a.file)).toEqual(["a.wo", "b.wo"]);
  });

  it("ignores overlaid paths the loader would skip", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Int\n}\n" });
    const broken = "type A {\n";
    const overlay = new Map([
      ["node_modules/x.wo", broken],
      [".wo/build/y.wo", broken],
      ["data/z.wo", broken],
      ["../outside.wo", broken],
      ["notes.txt", broken],
    ]);
    const result = await checkApp(dir, { overlay });
    expect(result.diagnostics).toEqual([]);
    expect(result.asts.map((a) => a.file)).toEqual(["a.wo"]);
  });

  it("an app whose only file exists in the overlay checks", async () => {
    const dir = app({ "wo.toml": 'name = "draft"\n' });
    const result = await checkApp(dir, { overlay: new Map([["first.wo", "type First {\n  x: Int\n}\n"]]) });
    expect(result.diagnostics).toEqual([]);
    expect(result.catalog!.app.name).toBe("draft");
  });
});
