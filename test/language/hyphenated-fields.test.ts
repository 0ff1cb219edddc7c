// Hyphenated field names (`first-name: Text`), which the language's reference accepts: the JSON
// key, filter, schema property and SQL column keep the hyphen; generated code quotes it; other
// declared names stay without one (WO1005). spec/language.md, "Identifiers". Served by a real
// `wo run` (REST and the official MCP SDK client) and run by `wo test`.

import { describe, expect, it, vi } from "vitest";
import { dumpDb } from "../support/wo-process.js";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { compileSources, errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Person {
  first-name: Text
  last-name: Text @unique
  nick-names: [Text]
  home-address: { street-name: Text = "main" }

  fn greet() -> Text {
    return "hi " + self.first-name
  }

  fn rename(n: Text) -> Person in txn {
    update self set first-name = n, home-address.street-name = "x"
    return self
  }

  service rest "/api/people" expose list, create, update, greet, rename
}
`;

describe("hyphenated field names: checking", () => {
  it("fields may be hyphenated; a type, method or parameter may not", () => {
    expect(errorsOf(source)).toEqual([]);
    expect(compileSources({ "app.wo": "type Order-Line {\n  x: Int\n}\n" }).diagnostics[0]?.code).toBe("WO1005");
    expect(errorsOf(source.replace("fn greet()", "fn say-hi()"))[0]).toBe("WO1005 7:6");
  });
});

describe("hyphenated field names: wo run", () => {
  const run = serveForSuite("hyphenated-fields", { "app.wo": source });

  it("REST keeps the hyphen in keys, filters and columns; methods read and write the field", async () => {
    const made = await post(run.wo.url, "/api/people", { "first-name": "Ada", "last-name": "L" });
    expect(made).toMatchObject({
      status: 201,
      body: { "first-name": "Ada", "last-name": "L", "nick-names": [], "home-address": { "street-name": "main" } },
    });
    expect((await post(run.wo.url, `/api/people/${made.body.id}/greet`, {})).body).toBe("hi Ada");
    expect((await post(run.wo.url, `/api/people/${made.body.id}/rename`, { n: "Bo" })).body).toMatchObject({
      "first-name": "Bo",
      "home-address": { "street-name": "x" },
    });
    const found: any = await fetch(`${run.wo.url}/api/people?last-name=L`).then((r) => r.json());
    expect(found.items.map((p: any) => p["first-name"])).toEqual(["Bo"]);
    expect(dumpDb(run.dir).person).toEqual([
      expect.objectContaining({ "first-name": "Bo", "last-name": "L", "nick-names": "[]" }),
    ]);
    const bad = await post(run.wo.url, "/api/people", { first_name: "x", "last-name": "y" });
    expect(bad.status).toBe(400);
  });

  it("MCP tools take and give the hyphenated keys", async () => {
    const tool = (await run.mcp.listTools()).tools.find((t) => t.name === "person_create")!;
    expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("first-name");
    const made = await run.mcp.callTool({ name: "person_create", arguments: { "first-name": "Cy", "last-name": "C" } });
    expect(made.structuredContent).toMatchObject({ "first-name": "Cy", "last-name": "C" });
  });
});

describe("hyphenated field names: wo test", () => {
  it("a test block reads them", async () => {
    await expectWoTestPasses(
      "hyphenated-fields-test",
      {
        "app.wo": source,
        "tests/t.wo":
          'test "h" {\n  let p = insert Person { first-name: "a", last-name: "b" }\n  assert p.first-name == "a"\n  assert p.home-address.street-name == "main"\n}\n',
      },
      1,
    );
  });
});
