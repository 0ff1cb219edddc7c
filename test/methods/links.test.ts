// `link a -[L { … }]-> b` and `unlink a -[L]-> b` in method and fn bodies (spec/language.md,
// "Method language"): checked in memory; executed by a real `wo run` over REST and the
// official MCP SDK client, with the relation route `GET /api/posts/:id/tags` as the witness.

import { describe, expect, it, vi } from "vitest";
import { dumpDb } from "../support/wo-process.js";
import { compileSources, cursorAt, errorsOf } from "./compile-fixture.js";
import { post, serveForSuite } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** The blog's shape; `fn` is one more method of Post. */
function blog(fn = ""): string {
  return `class Post {
  title: Text
  featured: ref Tag?
  tags: multi Tag via Tagging

  fn tag(t: ref Tag) in txn {
    link self -[Tagging { note: "by tag" }]-> t
  }

  fn untag(t: ref Tag) {
    unlink self -[Tagging]-> t
  }

  fn add_tag(label: Text) -> Tag {
    let t = insert Tag { label: label }
    link self
      -[Tagging]->
      t
    return t
  }

  fn tag_then_abort(t: ref Tag) {
    link self -[Tagging]-> t
    assert false otherwise abort "changed my mind"
  }

  fn tag_by_fn(t: ref Tag) {
    attach(self.id, t)
  }
${fn}
  service rest "/api/posts" expose list, get, create, tag, untag, add_tag, tag_then_abort, tag_by_fn
  service mcp "/mcp" expose get, tag, untag
}

class Tag {
  label: Text
  posts: multi Post via Tagging

  service rest "/api/tags" expose list, get, create
}

type Tagging link Post -> Tag {
  note: Text = "none"
  weight: Int?
}

type Plain {
  x: Int
}

fn attach(p: ref Post, t: ref Tag) {
  link p -[Tagging]-> t
}
`;
}

describe("link/unlink: checking", () => {
  it("the blog's links check cleanly", () => {
    expect(errorsOf(blog())).toEqual([]);
  });

  const broken: [title: string, fn: string, code: string][] = [
    ["source of the wrong type", `  fn m(t: ref Tag) {\n    link ┆t -[Tagging]-> t\n  }`, "WO5026"],
    ["target row of the wrong type", `  fn m() {\n    link self -[Tagging]-> ┆self\n  }`, "WO5026"],
    ["a text end", `  fn m(t: ref Tag) {\n    link self -[Tagging]-> ┆self.title\n  }`, "WO5026"],
    ["an end that may be null", `  fn m() {\n    link self -[Tagging]-> ┆self.featured\n  }`, "WO5026"],
    ["unknown link type", `  fn m(t: ref Tag) {\n    link self -[┆Taging]-> t\n  }`, "WO5002"],
    ["a type that is not a link", `  fn m(t: ref Tag) {\n    link self -[┆Plain]-> t\n  }`, "WO5026"],
    ["fields in unlink", `  fn m(t: ref Tag) {\n    unlink self -[Tagging { ┆note: "x" }]-> t\n  }`, "WO5025"],
    ["an endpoint given as a field", `  fn m(t: ref Tag) {\n    link self -[Tagging { ┆tag: t }]-> t\n  }`, "WO5016"],
    ["unknown field of the link", `  fn m(t: ref Tag) {\n    link self -[Tagging { ┆nope: 1 }]-> t\n  }`, "WO5003"],
    [
      "field value of the wrong type",
      `  fn m(t: ref Tag) {\n    link self -[Tagging { weight: ┆"heavy" }]-> t\n  }`,
      "WO5014",
    ],
  ];
  for (const [title, fn, code] of broken) {
    it(`${title} → ${code}`, () => {
      const app = blog(fn);
      expect(errorsOf(app)).toEqual([`${code} ${cursorAt(app)}`]);
    });
  }

  it("says which end is wrong, what it needs and what it got", () => {
    const messages = (fn: string) =>
      compileSources({ "app.wo": blog(fn) })
        .diagnostics.filter((d) => d.severity === "error")
        .map((d) => d.message);
    expect(messages(`  fn m(t: ref Tag) {\n    link t -[Tagging]-> self\n  }`)).toEqual([
      "The source of 'link … -[Tagging]->' needs a Post row or its id but was given ref Tag.",
      "The target of 'link … -[Tagging]->' needs a Tag row or its id but was given a Post row.",
    ]);
    expect(messages(`  fn m(t: ref Tag) {\n    link self -[Plain]-> t\n  }`)).toEqual([
      "'link' needs a link type (type L link A -> B) but was given 'Plain', which is not a link type.",
    ]);
  });

  it("a link field without a default must be given", () => {
    const app = blog().replace("weight: Int?", "weight: Int");
    const { diagnostics } = compileSources({ "app.wo": app });
    const errors = diagnostics.filter((d) => d.severity === "error");
    const missing =
      "'link … -[Tagging]->' does not fit Tagging: required field 'weight' is not given (-[Tagging { weight: … }]->).";
    // Three methods; the free fn is not executed (a warning), so its caller cannot call it.
    expect(errors.map((d) => d.message)).toEqual([
      missing,
      missing,
      missing,
      `fn 'attach' cannot be called: it is not executed (${missing} at app.wo:52:12).`,
    ]);
  });
});

describe("link/unlink: wo run", () => {
  const served = serveForSuite("links", { "app.wo": blog() });

  const tagsOf = async (p: number) => {
    const res = await fetch(`${served.wo.url}/api/posts/${p}/tags`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { items: { label: string }[] }).items.map((t) => t.label);
  };
  const make = async (path: string, body: object) => {
    const r = await post(served.wo.url, path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as number;
  };
  const links = () => (dumpDb(served.dir).tagging ?? []) as { post: number; tag: number; note: string }[];

  it("a method links over REST, a second link of the pair is the same link, unlink removes it", async () => {
    const p = await make("/api/posts", { title: "a" });
    const news = await make("/api/tags", { label: "news" });
    expect((await post(served.wo.url, `/api/posts/${p}/tag`, { t: news })).status).toBe(200);
    expect(await post(served.wo.url, `/api/posts/${p}/tag`, { t: news })).toMatchObject({ status: 200 });
    expect(await tagsOf(p)).toEqual(["news"]);
    expect(links().filter((l) => l.post === p)).toMatchObject([{ post: p, tag: news, note: "by tag" }]);

    expect((await post(served.wo.url, `/api/posts/${p}/untag`, { t: news })).status).toBe(200);
    expect(await tagsOf(p)).toEqual([]);
    // Unlinking a pair that is not linked changes nothing and is no error.
    expect((await post(served.wo.url, `/api/posts/${p}/untag`, { t: news })).status).toBe(200);
    expect(links().filter((l) => l.post === p)).toEqual([]);
  });

  it("links and unlinks over MCP", async () => {
    const p = await make("/api/posts", { title: "b" });
    const tech = await make("/api/tags", { label: "tech" });
    const linked = await served.mcp.callTool({ name: "post_tag", arguments: { id: p, t: tech } });
    expect(linked.isError, JSON.stringify(linked)).toBeFalsy();
    expect(await tagsOf(p)).toEqual(["tech"]);
    const unlinked = await served.mcp.callTool({ name: "post_untag", arguments: { id: p, t: tech } });
    expect(unlinked.isError, JSON.stringify(unlinked)).toBeFalsy();
    expect(await tagsOf(p)).toEqual([]);
  });

  it("links a row the call just inserted, and links from a free fn", async () => {
    const p = await make("/api/posts", { title: "c" });
    const r = await post(served.wo.url, `/api/posts/${p}/add_tag`, { label: "fresh" });
    expect(r).toMatchObject({ status: 200, body: { label: "fresh" } });
    const other = await make("/api/tags", { label: "other" });
    expect((await post(served.wo.url, `/api/posts/${p}/tag_by_fn`, { t: other })).status).toBe(200);
    expect(await tagsOf(p)).toEqual(["fresh", "other"]);
    expect(
      links()
        .filter((l) => l.post === p)
        .map((l) => l.note),
    ).toEqual(["none", "none"]);
  });

  it("an abort after the link rolls it back; a missing tag is a 422 and links nothing", async () => {
    const p = await make("/api/posts", { title: "d" });
    const t = await make("/api/tags", { label: "kept-out" });
    const before = links();
    const aborted = await post(served.wo.url, `/api/posts/${p}/tag_then_abort`, { t });
    expect(aborted.status).toBe(409);
    expect(JSON.stringify(aborted.body)).toContain("changed my mind");
    const missing = await post(served.wo.url, `/api/posts/${p}/tag`, { t: 999_999 });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: "/t", message: "no Tag with id 999999 exists" }]);
    expect(await tagsOf(p)).toEqual([]);
    expect(links()).toEqual(before);
  });
});
