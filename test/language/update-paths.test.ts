// `update … .f += e` / `-= e` and `update … set a.b = e` (a path into a struct field; the rest
// of the struct is kept): spec/language.md, "Statements". Checked in memory, run by `wo test`,
// and served by a real `wo run` over REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { removeApp, runWoCommand, writeApp } from "../support/wo-process.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";
import { post, serveForSuite } from "../methods/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Page {
  slug: Text
  views: Int = 0
  meta: { title: Text, seo: { score: Int = 0, tag: Text = "x" } }

  fn visit() -> Page in txn {
    update Page{ id == self.id }.views += 1
    return Page{ id == self.id }
  }

  fn forget(n: Int) -> Page in txn {
    update self set views -= n
    return self
  }

  fn retitle(t: Text) -> Page in txn {
    update self set meta.title = t, meta.seo.score += 10
    return self
  }

  service rest "/api/pages" expose list, create, visit, forget, retitle
}
`;

describe("update += and struct paths: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  const broken: [string, string, string][] = [
    ["-= on a text field", "update self set ┆slug -= 1", "WO5012"],
    ["a path step that is no field of the struct", "update self set meta.┆nope = 1", "WO5003"],
    ["a path into a field that is no struct", "update self set views.┆x = 1", "WO5025"],
    ["a value that does not fit the inner field", "update self set meta.title = ┆1", "WO5014"],
  ];
  for (const [title, line, code] of broken) {
    it(`${title} → ${code}`, () => {
      const text = source.replace("    update self set views -= n\n", `    ${line}\n`);
      expect(errorsOf(text)[0]).toBe(`${code} ${cursorAt(text)}`);
    });
  }
});

describe("update += and struct paths: wo run", () => {
  const run = serveForSuite("update-paths", { "app.wo": source });
  const page = { slug: "a", meta: { title: "A", seo: { score: 1, tag: "t" } } };

  it("+= and -= change the stored value, over REST and MCP", async () => {
    const made = await post(run.wo.url, "/api/pages", page);
    expect(made.status).toBe(201);
    const id = made.body.id;
    expect((await post(run.wo.url, `/api/pages/${id}/visit`, {})).body).toMatchObject({ views: 1 });
    const mcp = await run.mcp.callTool({ name: "page_visit", arguments: { id } });
    expect(mcp.structuredContent).toMatchObject({ result: { views: 2 } });
    expect((await post(run.wo.url, `/api/pages/${id}/forget`, { n: 5 })).body).toMatchObject({ views: -3 });
  });

  it("set a.b keeps the rest of the struct", async () => {
    const made = await post(run.wo.url, "/api/pages", page);
    const res = await post(run.wo.url, `/api/pages/${made.body.id}/retitle`, { t: "B" });
    expect(res).toMatchObject({ status: 200, body: { meta: { title: "B", seo: { score: 11, tag: "t" } } } });
    const listed: any = await fetch(`${run.wo.url}/api/pages`).then((r) => r.json());
    expect(listed.items.find((p: any) => p.id === made.body.id).meta).toEqual({
      title: "B",
      seo: { score: 11, tag: "t" },
    });
  });
});

describe("update += and struct paths: wo test", () => {
  it("runs in a test block", async () => {
    const dir = writeApp("update-paths-test", {
      "app.wo": source,
      "tests/pages.wo": [
        'test "counts and keeps" {',
        '  let p = insert Page { slug: "s", meta: { title: "T", seo: { score: 2, tag: "k" } } }',
        "  update Page{ id == p.id }.views += 2",
        '  update Page{ id == p.id } set views -= 1, meta.seo.tag = "z"',
        "  let q = Page{ id == p.id }",
        "  assert q.views == 1",
        '  assert q.meta.seo.tag == "z"',
        "  assert q.meta.seo.score == 2",
        '  assert q.meta.title == "T"',
        "}",
        "",
      ].join("\n"),
    });
    try {
      const { code, stdout } = await runWoCommand(["test", dir]);
      expect(stdout).toContain("✔ counts and keeps");
      expect(code).toBe(0);
      expect(stdout).toContain("1 passed, 0 failed");
    } finally {
      removeApp(dir);
    }
  });
});
