// A `let` bound in every branch of an `if` (and `else if`/`else`) is visible after it; bound in
// only some branches it may not be read (WO5023). spec/language.md, "Scope and names". Checked
// in memory, run by a real `wo run` over REST and MCP, and by `wo test`.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Item {
  n: Int

  fn size() -> Text {
    if self.n > 10 {
      let label = "big"
    } else if self.n > 5 {
      let label = "mid"
    } else {
      let label = "small"
    }
    return label
  }

  service rest "/api/items" expose list, create, size
}
`;

describe("let in every branch: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("bound in only some branches it may not be read", () => {
    const text = source
      .replace('      let label = "small"\n', "      let other = 1\n")
      .replace("return label", "return ┆label");
    expect(errorsOf(text)[0]).toBe(`WO5023 ${cursorAt(text)}`);
  });
});

describe("let in every branch: wo run and wo test", () => {
  const run = serveForSuite("let-branches", { "app.wo": source });

  it("each branch's value is seen after the if, over REST and MCP", async () => {
    for (const [n, label] of [
      [20, "big"],
      [7, "mid"],
      [1, "small"],
    ] as const) {
      const made = await post(run.wo.url, "/api/items", { n });
      expect(await post(run.wo.url, `/api/items/${made.body.id}/size`, {})).toMatchObject({ status: 200, body: label });
      const tool = await run.mcp.callTool({ name: "item_size", arguments: { id: made.body.id } });
      expect(tool.structuredContent).toMatchObject({ result: label });
    }
  });

  it("in a test block", async () => {
    await expectWoTestPasses(
      "let-branches-test",
      {
        "app.wo": source,
        "tests/t.wo":
          'test "branches" {\n  if 1 > 2 {\n    let r = 2\n  } else {\n    let r = 3\n  }\n  assert r == 3\n}\n',
      },
      1,
    );
  });
});
