// A select with `==` on a `@unique` field names one row or none (`T?`), as the language
// defines (spec/language.md, "Expressions"). Checked in memory, run by `wo test`, and served by
// a real `wo run` over REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Author {
  email: Text @unique
  name: Text

  fn named(e: Text) -> Text {
    let a = Author{ email == e }
    if a == null {
      return "nobody"
    }
    return a.name
  }

  fn known(e: Text) -> Int {
    return count(Author{ email == e })
  }

  fn found(e: Text) -> Int {
    let a = Author{ email == e }
    return len(a)
  }

  service rest "/api/authors" expose list, create, named, known, found
}
`;

describe("a select on a unique field: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("its value is one row, not a list: indexing it is an error", () => {
    const text = source.replace("    return a.name\n", "    return ┆a[0].name\n");
    expect(errorsOf(text)[0]).toBe(`WO5026 ${cursorAt(text)}`);
  });
});

describe("a select on a unique field: wo run", () => {
  const run = serveForSuite("unique-select", { "app.wo": source });

  it("yields the row or null, over REST and MCP", async () => {
    const made = await post(run.wo.url, "/api/authors", { email: "a@x", name: "Ada" });
    expect(made.status).toBe(201);
    expect(await post(run.wo.url, `/api/authors/${made.body.id}/named`, { e: "a@x" })).toMatchObject({
      status: 200,
      body: "Ada",
    });
    expect(await post(run.wo.url, `/api/authors/${made.body.id}/named`, { e: "b@x" })).toMatchObject({
      status: 200,
      body: "nobody",
    });
    // Bound to a name, the one row or none still counts 1 or 0.
    expect(await post(run.wo.url, `/api/authors/${made.body.id}/found`, { e: "a@x" })).toMatchObject({ body: 1 });
    expect(await post(run.wo.url, `/api/authors/${made.body.id}/found`, { e: "b@x" })).toMatchObject({ body: 0 });
    const known = await run.mcp.callTool({ name: "author_known", arguments: { id: made.body.id, e: "a@x" } });
    expect(known.structuredContent).toMatchObject({ result: 1 });
  });
});

describe("a select on a unique field: wo test", () => {
  it("is the row in a test block", async () => {
    await expectWoTestPasses(
      "unique-select-test",
      {
        "app.wo": source,
        "tests/authors.wo": [
          'test "one row" {',
          '  insert Author { email: "c@x", name: "Cy" }',
          '  let a = Author{ email == "c@x" }',
          '  assert a.name == "Cy"',
          '  assert Author{ email == "none" } == null',
          "}",
          "",
        ].join("\n"),
      },
      1,
    );
  });
});
