// policy-compile: each `policy` line's `when` is typed against its type's fields and becomes a
// PolicyGrant on CatalogType.policies; top-level `policy NAME` blocks become
// Catalog.bypassPolicies (model/policy.ts, spec/policies.md). Errors carry file:line:col and
// a did-you-mean.

import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach, cursorPosition } from "../check/app-fixture.js";

const writeApp = appsDeletedAfterEach();

const types = `type Author {
  name: Text
  level: Writer | Editor = Writer
  bio: { short: Text? }?
  posts: multi Post
}
type Post {
  title: Text
  author: ref Author
  status: Draft | Published = Draft
  views: Int = 0
  published: Bool = false
`;

async function check(body: string, tail = "") {
  const files = { "app.wo": `${types}${body}\n}\n${tail}` };
  const dir = writeApp(files);
  const result = await checkApp(dir);
  return { result, dir, at: cursorPosition(files) };
}

/** [code, what, policy lines (with ┆ where the error is), the message's expected text]. */
const errors: [string, string, string, RegExp][] = [
  ["WO2050", "an unknown action", "  policy ┆reed anyone", /'policy reed'.*Did you mean 'read'\?/],
  ["WO2050", "a fourth action", "  policy ┆create anyone", /grants read, write or delete/],
  [
    "WO2051",
    "an unknown field",
    '  policy read when ┆titel == "x"',
    /'titel' .* not a field of Post\. Did you mean 'title'\?/,
  ],
  [
    "WO2051",
    "an unknown field after a ref",
    '  policy read when ┆author.nam == "x"',
    /'nam' .* not a field of Author\. Did you mean 'name'\?/,
  ],
  [
    "WO2052",
    "a path through a non-ref",
    "  policy read when ┆title.x == 1",
    /'title\.x' cannot be followed: 'title' is Text/,
  ],
  ["WO2053", "Text with Int", "  policy read when ┆title == 3", /cannot compare Text with Int \('=='\)/],
  ["WO2053", "the user with Text", "  policy read when ┆$session.user == title", /cannot compare Id\? with Text/],
  ["WO2053", "an ordering on Bool", "  policy read when ┆published < true", /cannot compare Bool with Bool \('<'\)/],
  ["WO2054", "a non-Bool on its own", "  policy read when ┆views", /must be true or false, but 'views' is Int/],
  ["WO2054", "arithmetic", "  policy read when ┆views + 1 > 2", /cannot use '\+'/],
  ["WO2054", "a call", "  policy read when ┆count(views) > 2", /not calls/],
  ["WO2054", "a relation to many rows", "  policy read when ┆author.posts == 1", /a list of values or rows/],
  ["WO2052", "a struct member", '  policy read when ┆author.bio.short == "x"', /cannot be followed|a struct/],
  ["WO2054", "anyone with a role", "  policy read anyone for role ┆Editor", /'anyone' already includes every role/],
  [
    "WO2056",
    "a misspelt variant",
    "  policy read when status == ┆Publishd",
    /neither a field of Post nor a variant of Draft \| Published\. Did you mean 'Published'\?/,
  ],
  [
    "WO5020",
    "a string that is no variant",
    '  policy read when status == ┆"Gone"',
    /'Gone' is not a variant of Draft \| Published/,
  ],
  [
    "WO5030",
    "an unknown $session member",
    "  policy read when author == $session.┆usr",
    /no member 'usr'.*Did you mean 'user'\?/,
  ],
  ["WO5031", "a bare $session", "  policy read when author == ┆$session", /is not a value/],
  ["WO1003", "nothing after when", "  policy read ┆when", /a condition after 'when'/],
];

describe("policy conditions: errors", () => {
  it.each(errors)("%s %s", async (code, _what, lines, message) => {
    const { result, dir, at } = await check(lines);
    expect(result.catalog).toBeUndefined();
    const found = result.diagnostics.filter((d) => d.severity === "error");
    expect(found.map((d) => d.code)).toEqual([code]);
    const d = found[0]!;
    expect(`${d.span.file.slice(dir.length + 1)}:${d.span.line}:${d.span.col}`).toBe(at);
    expect(d.message).toMatch(message);
  });
});

const blocks: [string, string, RegExp][] = [
  [
    "an unknown type",
    "policy Editors\n  ┆applies_to: Post, Auhtor\n  effect: skip-row-filters\n",
    /'Auhtor' in applies_to is not a type\. Did you mean 'Author'\?/,
  ],
  [
    "a row field",
    'policy Editors\n  applies_to: *\n  when: ┆title == "x"\n  effect: skip-row-filters\n',
    /reads session values only/,
  ],
  ["no effect", "policy ┆Editors\n  applies_to: Post\n", /needs 'effect: skip-row-filters'/],
  [
    "an unknown key",
    "policy Editors\n  applies_to: Post\n  ┆efect: skip-row-filters\n  effect: skip-row-filters\n",
    /'efect' is not a key.*Did you mean 'effect'\?/,
  ],
];

describe("top-level policy blocks: errors (WO2055)", () => {
  it.each(blocks)("%s", async (_what, block, message) => {
    const { result, dir, at } = await check("", block);
    const found = result.diagnostics.filter((d) => d.severity === "error");
    expect(found.map((d) => d.code)).toEqual(["WO2055"]);
    const d = found[0]!;
    expect(`${d.span.file.slice(dir.length + 1)}:${d.span.line}:${d.span.col}`).toBe(at);
    expect(d.message).toMatch(message);
  });
});

describe("the catalog's grants and bypass blocks", () => {
  it("emits one PolicyGrant per line, typed, with its text and source", async () => {
    const { result } = await check(
      [
        "  policy read anyone when status == Published or author == $session.user",
        "  policy read for role Editor",
        "  policy write when author == $session.user and not published",
        "  policy delete for role Editor when author.level == Editor and self != 0",
      ].join("\n"),
      [
        "policy Editors",
        "  applies_to: Post, Author",
        "  when: $session.role == Chief",
        "  effect: skip-row-filters",
        "policy Everyone",
        "  applies_to: *",
        "  effect: skip-row-filters",
        "",
      ].join("\n"),
    );
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // No "parsed but not enforced" warning for what compiles.
    expect(result.diagnostics.map((d) => d.code)).toEqual([]);
    const post = result.catalog!.types.find((t) => t.name === "Post")!;
    const author = result.catalog!.types.find((t) => t.name === "Author")!;
    expect(author.policies).toBeUndefined();
    expect(post.policies).toEqual([
      {
        action: "read",
        grantee: { kind: "anyone" },
        when: {
          kind: "or",
          items: [
            {
              kind: "compare",
              op: "==",
              left: { kind: "field", path: ["status"] },
              right: { kind: "literal", value: "Published" },
            },
            {
              kind: "compare",
              op: "==",
              left: { kind: "field", path: ["author"] },
              right: { kind: "session", member: "user" },
            },
          ],
        },
        text: "policy read anyone when status == Published or author == $session.user",
        source: { file: "app.wo", line: 13, col: 3 },
      },
      {
        action: "read",
        grantee: { kind: "role", role: "Editor" },
        text: "policy read for role Editor",
        source: { file: "app.wo", line: 14, col: 3 },
      },
      {
        action: "write",
        grantee: { kind: "authenticated" },
        when: {
          kind: "and",
          items: [
            {
              kind: "compare",
              op: "==",
              left: { kind: "field", path: ["author"] },
              right: { kind: "session", member: "user" },
            },
            { kind: "not", item: { kind: "truthy", value: { kind: "field", path: ["published"] } } },
          ],
        },
        text: "policy write when author == $session.user and not published",
        source: { file: "app.wo", line: 15, col: 3 },
      },
      {
        action: "delete",
        grantee: { kind: "role", role: "Editor" },
        when: {
          kind: "and",
          items: [
            {
              kind: "compare",
              op: "==",
              left: { kind: "field", path: ["author", "level"] },
              right: { kind: "literal", value: "Editor" },
            },
            { kind: "compare", op: "!=", left: { kind: "self" }, right: { kind: "literal", value: 0 } },
          ],
        },
        text: "policy delete for role Editor when author.level == Editor and self != 0",
        source: { file: "app.wo", line: 16, col: 3 },
      },
    ]);
    expect(result.catalog!.bypassPolicies).toEqual([
      {
        name: "Editors",
        appliesTo: ["Post", "Author"],
        when: {
          kind: "compare",
          op: "==",
          left: { kind: "session", member: "role" },
          right: { kind: "literal", value: "Chief" },
        },
        effect: "skip-row-filters",
        source: { file: "app.wo", line: 18, col: 8 },
      },
      { name: "Everyone", appliesTo: ["*"], effect: "skip-row-filters", source: { file: "app.wo", line: 22, col: 8 } },
    ]);
  });

  it("a block with another effect is kept as a warning (WO2104), not compiled", async () => {
    const { result } = await check("", "policy Open\n  applies_to: *\n  effect: allow\n");
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([["WO2104", "warning"]]);
    expect(result.catalog!.bypassPolicies).toBeUndefined();
  });
});
