// Class methods that use a construct of the full language wo never runs — a `LIVE select`,
// `as session` with a bare name — are not executed: one warning (WO2114) naming the
// construct, no route, no tool, and the rest of the class works (spec/language.md,
// "Constructs of the full language"). Checked in memory, then served by a real `wo run`
// over REST and the official MCP SDK client.

import { describe, expect, it, vi } from "vitest";
import { compileSources, cursorAt, errorsOf } from "./compile-fixture.js";
import { post, serveForSuite } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Post {
  title: Text
  tags: multi Tag via Tagging

  fn rename(to: Text) -> Post {
    update self set title = to
    return self
  }

  fn watch() -> [Tag] {
    let feed = LIVE select Tag { label == self.title }
    return feed
  }

  fn as_editor() {
    as session editor {
      update self set title = "edited"
    }
  }

  fn label(t: ref Tag) {
    as session tagger {
      link self -[Tagging]-> t
    }
  }

  service rest "/api/posts" expose create, get, rename, watch, as_editor, label
  service mcp "/mcp" expose create, get, rename, watch, as_editor, label
}

type Tag {
  label: Text
  service rest "/api/tags" expose create
}

type Tagging link Post -> Tag {
}
`;

describe("class methods wo does not run: checking", () => {
  it("each is one warning naming the construct and where it is, not an error", () => {
    const { catalog, diagnostics } = compileSources({ "app.wo": source });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const skipped = diagnostics.filter((d) => d.code === "WO2114");
    expect(skipped.map((d) => `${d.span.line}:${d.span.col}`)).toEqual(["10:6", "15:6", "21:6"]);
    expect(skipped.map((d) => d.message)).toEqual([
      "Method 'Post.watch' is not executed, so it has no route and no tool: A 'LIVE select' binding (app.wo:11:16) is not supported yet: subscribe with 'subscribe live T{ … }' and take each delta with 'receive(sub)'.",
      "Method 'Post.as_editor' is not executed, so it has no route and no tool: 'as session editor' (app.wo:16:5) is not supported yet: name the caller as 'as session { user: …, role: … }', 'as session anonymous' or 'as session $row'.",
      "Method 'Post.label' is not executed, so it has no route and no tool: 'as session tagger' (app.wo:22:5) is not supported yet: name the caller as 'as session { user: …, role: … }', 'as session anonymous' or 'as session $row'.",
    ]);
    const post = catalog!.types.find((t) => t.name === "Post")!;
    expect(post.methods.map((m) => m.name)).toEqual(["rename"]);
    expect(post.rest[0]!.ops).toEqual(["create", "get", "rename"]);
    expect(post.mcp).toEqual(["create", "get", "rename"]);
  });

  it("a call of such a method from code that runs is WO5028, with the reason", () => {
    const app = source.replace(
      "  fn rename(to: Text) -> Post {\n",
      "  fn rename(to: Text) -> Post {\n    self.┆label(1)\n",
    );
    expect(errorsOf(app)).toEqual([`WO5028 ${cursorAt(app)}`]);
    const error = compileSources({ "app.wo": app }).diagnostics.find((d) => d.code === "WO5028")!;
    expect(error.message).toContain(
      "'Post.label' cannot be called: it is not executed ('as session tagger' is not supported yet",
    );
  });

  it("its other mistakes are not reported: the method is not checked further, like a fn that is not executed", () => {
    const app = source.replace(
      "    let feed = LIVE select Tag { label == self.title }\n",
      "    let feed = LIVE select Tag { label == self.nope }\n",
    );
    expect(errorsOf(app)).toEqual([]);
  });
});

describe("class methods wo does not run: wo run", () => {
  const served = serveForSuite("unexecuted-methods", { "app.wo": source });

  it("have no route and no tool; the class's other methods run", async () => {
    const id = (await post(served.wo.url, "/api/posts", { title: "a" })).body.id;
    for (const name of ["watch", "as_editor", "label"]) {
      expect((await post(served.wo.url, `/api/posts/${id}/${name}`, { t: 1 })).status, name).toBe(404);
    }
    expect((await post(served.wo.url, `/api/posts/${id}/rename`, { to: "b" })).body).toMatchObject({ id, title: "b" });
    const { tools } = await served.mcp.listTools();
    expect(
      tools
        .map((t) => t.name)
        .filter((n) => n.startsWith("post_"))
        .sort(),
    ).toEqual(["post_create", "post_get", "post_rename", "post_tags"]);
    const called = await served.mcp.callTool({ name: "post_rename", arguments: { id, to: "c" } });
    expect(called.isError).toBeFalsy();
  });
});
