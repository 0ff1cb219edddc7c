// `@search` in the checker (compiler/check/search.ts): the text fields it takes, the precise
// errors for the others, and what reaches the storage shape (model/storage-shape.ts `search`).

import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { deriveShape } from "../../model/storage-shape.js";
import { cursorPosition, writeApp } from "../check/app-fixture.js";

const refused: [string, string, string][] = [
  ["WO2080", "a Money field", "type A {\n  price: Money ┆@search\n}\n"],
  ["WO2080", "a union", "type A {\n  s: Draft | Live ┆@search\n}\n"],
  ["WO2081", "a field inside a struct", "type A {\n  meta: {\n    title: Text ┆@search\n  }\n}\n"],
  ["WO2082", "arguments", "type A {\n  title: Text ┆@search(body)\n}\n"],
];

describe("@search in the checker", () => {
  it.each(refused)("%s: %s", async (code, _name, text) => {
    const files = { "app.wo": text };
    const dir = writeApp(files);
    try {
      const result = await checkApp(dir);
      const d = result.diagnostics.find((x) => x.code === code);
      expect(d?.severity).toBe("error");
      expect(`${d!.span.file.slice(dir.length + 1)}:${d!.span.line}:${d!.span.col}`).toBe(cursorPosition(files));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("records the searched text fields of a type, in declaration order, and warns no more", async () => {
    const dir = writeApp({
      "app.wo":
        "type Post {\n  title: Text @search\n  n: Int\n  body: Markdown? @search\n}\ntype Tag {\n  name: Text\n}\n",
    });
    try {
      const result = await checkApp(dir);
      expect(result.diagnostics).toEqual([]);
      const shape = deriveShape(result.catalog!);
      expect(shape.tables.find((t) => t.table === "post")?.search).toEqual({
        sqlName: "post__search",
        columns: ["title", "body"],
      });
      expect(shape.tables.find((t) => t.table === "tag")?.search).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
