// A row given where a `ref T` is expected is its id, in `insert` and `update … set` fields as
// already for parameters (spec/language.md, "Statements"). Checked in memory, run by `wo test`,
// and served by a real `wo run` over REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Author {
  name: Text

  fn write(t: Text) -> Post in txn {
    let p = insert Post { author: self, title: t }
    return p
  }

  service rest "/api/authors" expose list, create, write
}

class Post {
  author: ref Author
  title: Text

  fn hand_to(a: ref Author) -> Post in txn {
    let other = Author{ id == a }
    update self set author = other
    return self
  }

  service rest "/api/posts" expose list, hand_to
}
`;

describe("a row as a ref: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("a row of another type is still refused", () => {
    const text = source.replace("    return p\n", "    let q = insert Post { author: ┆p, title: t }\n    return q\n");
    expect(errorsOf(text)[0]).toBe(`WO5014 ${cursorAt(text)}`);
  });
});

describe("a row as a ref: wo run", () => {
  const run = serveForSuite("row-as-ref", { "app.wo": source });

  it("insert and update store the row's id, over REST and MCP", async () => {
    const ada = await post(run.wo.url, "/api/authors", { name: "Ada" });
    const bob = await post(run.wo.url, "/api/authors", { name: "Bob" });
    const written = await post(run.wo.url, `/api/authors/${ada.body.id}/write`, { t: "hello" });
    expect(written).toMatchObject({ status: 200, body: { author: ada.body.id, title: "hello" } });
    const moved = await run.mcp.callTool({ name: "post_hand_to", arguments: { id: written.body.id, a: bob.body.id } });
    expect(moved.structuredContent).toMatchObject({ result: { author: bob.body.id } });
    const posts: any = await fetch(`${run.wo.url}/api/posts`).then((r) => r.json());
    expect(posts.items).toEqual([{ id: written.body.id, author: bob.body.id, title: "hello" }]);
  });
});

describe("a row as a ref: wo test", () => {
  it("is the id in a test block", async () => {
    await expectWoTestPasses(
      "row-as-ref-test",
      {
        "app.wo": source,
        "tests/posts.wo": [
          'test "row as ref" {',
          '  let a = insert Author { name: "Cy" }',
          '  let p = insert Post { author: a, title: "t" }',
          "  assert p.author == a.id",
          "}",
          "",
        ].join("\n"),
      },
      1,
    );
  });
});
