// A list field left out is `[]`, and a struct field left out whose fields all have a value when
// omitted gets them (spec/language.md, "Field flags and the create-required rule"): over REST,
// MCP (the official SDK client) and `insert`, in a real `wo run` and in `wo test`.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Note {
  title: Text
  tags: [Text]
  opts: { size: Int = 1, color: Text = "red", extra: Text?, seo: { score: Int = 5 } }

  fn copy() -> Note in txn {
    let n = insert Note { title: "copy" }
    return n
  }

  service rest "/api/notes" expose list, create, copy
}
`;

const filled = { tags: [], opts: { size: 1, color: "red", extra: null, seo: { score: 5 } } };

describe("omitted list and struct fields: checking", () => {
  it("insert may leave them out", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("a struct with a field that has no value when omitted stays required", () => {
    const text = source.replace("seo: { score: Int = 5 }", "seo: { score: Int }");
    expect(errorsOf(text)).toEqual(["WO5015 7:20"]);
  });
});

describe("omitted list and struct fields: wo run", () => {
  const run = serveForSuite("omitted-fields", { "app.wo": source });

  it("REST create fills them, and a partly given struct gets the rest", async () => {
    expect(await post(run.wo.url, "/api/notes", { title: "a" })).toMatchObject({
      status: 201,
      body: { title: "a", ...filled },
    });
    const partial = await post(run.wo.url, "/api/notes", { title: "b", opts: { size: 3, seo: {} } });
    expect(partial.body.opts).toEqual({ size: 3, color: "red", extra: null, seo: { score: 5 } });
  });

  it("MCP create fills them; its input schema does not require them", async () => {
    const tool = (await run.mcp.listTools()).tools.find((t) => t.name === "note_create")!;
    expect(tool.inputSchema.required).toEqual(["title"]);
    const made = await run.mcp.callTool({ name: "note_create", arguments: { title: "c" } });
    expect(made.structuredContent).toMatchObject({ title: "c", ...filled });
  });

  it("insert in a method fills them", async () => {
    const made = await post(run.wo.url, "/api/notes", { title: "d" });
    expect(await post(run.wo.url, `/api/notes/${made.body.id}/copy`, {})).toMatchObject({
      status: 200,
      body: { title: "copy", ...filled },
    });
  });
});

describe("omitted list and struct fields: wo test", () => {
  it("insert fills them in a test block", async () => {
    await expectWoTestPasses(
      "omitted-fields-test",
      {
        "app.wo": source,
        "tests/notes.wo": [
          'test "filled" {',
          '  let n = insert Note { title: "t" }',
          "  assert count(n.tags) == 0",
          "  assert n.opts.size == 1",
          "  assert n.opts.seo.score == 5",
          "}",
          "",
        ].join("\n"),
      },
      1,
    );
  });
});
