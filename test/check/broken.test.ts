// Broken programs → the first error's code, position (┆) and a message substring
// (the first diagnostic sits on the stated place and names the culprit: spec/diagnostics.md).

import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { cursorPosition, writeApp } from "./app-fixture.js";

export interface BrokenCase {
  name: string;
  files: Record<string, string>;
  code: string;
  message: string;
}

const one = (text: string) => ({ "app.wo": text });

export const brokenCases: BrokenCase[] = [
  // WO2xxx: declarations, fields and types
  { name: "unknown scalar", files: one("type A {\n  title: ┆Strng\n}\n"), code: "WO2001", message: "Strng" },
  {
    name: "misspelt scalar: did you mean",
    files: one("type A {\n  at: ┆Timestmp\n}\n"),
    code: "WO2001",
    message: "Unknown type 'Timestmp'. Did you mean 'Timestamp'?",
  },
  {
    name: "String, another language's name: did you mean Text",
    files: one("type A {\n  x: ┆String?\n}\n"),
    code: "WO2001",
    message: "Unknown type 'String'. Did you mean 'Text'?",
  },
  {
    name: "Integer, another language's name: did you mean Int",
    files: one("type A {\n  x: ┆Integer?\n}\n"),
    code: "WO2001",
    message: "Unknown type 'Integer'. Did you mean 'Int'?",
  },
  {
    name: "Boolean, another language's name: did you mean Bool",
    files: one("type A {\n  x: ┆Boolean?\n}\n"),
    code: "WO2001",
    message: "Unknown type 'Boolean'. Did you mean 'Bool'?",
  },
  {
    name: "DateTime, another language's name: did you mean Timestamp",
    files: one("type A {\n  x: ┆DateTime?\n}\n"),
    code: "WO2001",
    message: "Unknown type 'DateTime'. Did you mean 'Timestamp'?",
  },
  {
    name: "a // comment: a comment in wo starts with --",
    files: one("type A {\n  ┆// the title\n  title: Text\n}\n"),
    code: "WO1003",
    message: "but found '//' (a comment in wo starts with '--')",
  },
  {
    name: "a // comment between declarations",
    files: one("type A {\n  title: Text\n}\n┆// more\n"),
    code: "WO1003",
    message: "but found '//' (a comment in wo starts with '--')",
  },
  {
    name: "misspelt ref target: did you mean",
    files: one("type Author {\n  name: Text\n}\ntype Post {\n  by: ref ┆Autor\n}\n"),
    code: "WO2001",
    message: "Did you mean 'Author'?",
  },
  {
    name: "misspelt method param type: did you mean",
    files: one("class A {\n  x: Int\n  fn m(p: ┆Mony) -> Int {\n    return 1\n  }\n}\n"),
    code: "WO2001",
    message: "Did you mean 'Money'?",
  },
  {
    name: "misspelt backlink field: did you mean",
    files: one("type A {\n  bs: backlink B.┆ownr\n}\ntype B {\n  owner: ref A\n}\n"),
    code: "WO2004",
    message: "Did you mean 'owner'?",
  },
  {
    name: "misspelt index column: did you mean",
    files: one("@table(index: [┆titel])\ntype A {\n  title: Text\n}\n"),
    code: "WO2009",
    message: "Did you mean 'title'?",
  },
  { name: "unknown ref target", files: one("type A {\n  b: ref ┆Bee\n}\n"), code: "WO2001", message: "'Bee'" },
  {
    name: "unknown multi via",
    files: one("type A {\n  bs: multi B via ┆Nope\n}\ntype B {\n  a: ref A\n}\n"),
    code: "WO2001",
    message: "Nope",
  },
  { name: "unknown type in array", files: one("type A {\n  xs: [┆Thing]\n}\n"), code: "WO2001", message: "Thing" },
  {
    name: "unknown method param type",
    files: one("class A {\n  x: Int\n  fn m(p: ┆Nope) -> Int {\n    return 1\n  }\n}\n"),
    code: "WO2001",
    message: "Nope",
  },
  {
    name: "duplicate type in one file",
    files: one("type A {\n  x: Int\n}\ntype ┆A {\n  y: Int\n}\n"),
    code: "WO2002",
    message: "duplicate",
  },
  {
    name: "duplicate field",
    files: one("type A {\n  x: Int\n  ┆x: Text\n}\n"),
    code: "WO2003",
    message: "duplicate field 'x'",
  },
  {
    name: "duplicate field in struct",
    files: one("type A {\n  s: { a: Int, ┆a: Text }\n}\n"),
    code: "WO2003",
    message: "duplicate",
  },
  {
    name: "backlink to a missing field",
    files: one("type A {\n  bs: backlink B.┆a\n}\ntype B {\n  x: Int\n}\n"),
    code: "WO2004",
    message: "'a'",
  },
  {
    name: "backlink that does not point back",
    files: one("type A {\n  bs: backlink B.┆x\n}\ntype B {\n  x: Int\n}\n"),
    code: "WO2005",
    message: "'x'",
  },
  {
    name: "multi via a plain type",
    files: one("type A {\n  bs: multi B via ┆C\n}\ntype B {\n  x: Int\n}\ntype C {\n  y: Int\n}\n"),
    code: "WO2006",
    message: "not a link type",
  },
  {
    name: "multi via a link between other types",
    files: one(
      "type A {\n  bs: multi B via ┆L\n}\ntype B {\n  x: Int\n}\ntype C {\n  y: Int\n}\ntype L link A -> C {\n  n: Int\n}\n",
    ),
    code: "WO2007",
    message: "'L'",
  },
  {
    name: "unknown link endpoint",
    files: one("type A {\n  x: Int\n}\ntype L link A -> ┆Nope {\n  n: Int\n}\n"),
    code: "WO2001",
    message: "Nope",
  },
  {
    name: "link to itself",
    files: one("type A {\n  x: Int\n}\ntype L link A -> ┆L {\n  n: Int\n}\n"),
    code: "WO2023",
    message: "'L'",
  },
  {
    name: "unknown @table key",
    files: one('@table(┆shard_key: "x")\ntype A {\n  x: Int\n}\n'),
    code: "WO2008",
    message: "shard_key",
  },
  {
    name: "index on an unknown column",
    files: one("@table(index: [┆nope])\ntype A {\n  x: Int\n}\n"),
    code: "WO2009",
    message: "nope",
  },
  {
    name: "index on an array",
    files: one("@table(index: [┆tags])\ntype A {\n  tags: [Text]\n}\n"),
    code: "WO2010",
    message: "tags",
  },
  {
    name: "index on a relation",
    files: one("@table(index: [┆bs])\ntype A {\n  bs: multi B\n}\ntype B {\n  a: ref A\n}\n"),
    code: "WO2010",
    message: "relation",
  },
  {
    name: "storage name used twice",
    files: one('@table(name: "things")\ntype A {\n  x: Int\n}\n@table(name: ┆"things")\ntype B {\n  y: Int\n}\n'),
    code: "WO2011",
    message: "things",
  },
  {
    name: "storage name equal to another type's default",
    files: one('type Post {\n  x: Int\n}\n@table(name: ┆"post")\ntype Article {\n  y: Int\n}\n'),
    code: "WO2011",
    message: "post",
  },
  { name: "Int default on Text", files: one("type A {\n  x: Text = ┆5\n}\n"), code: "WO2012", message: "5" },
  { name: "float default on Int", files: one("type A {\n  x: Int = ┆1.5\n}\n"), code: "WO2012", message: "1.5" },
  { name: "string default on Bool", files: one('type A {\n  x: Bool = ┆"yes"\n}\n'), code: "WO2012", message: '"yes"' },
  { name: "now() on Int", files: one("type A {\n  x: Int = ┆now()\n}\n"), code: "WO2012", message: "now()" },
  // A default is held to the field's schema, as a client's value would be.
  {
    name: "Slug default off its pattern",
    files: one('type A {\n  s: Slug = ┆"Not A Slug"\n}\n'),
    code: "WO2012",
    message: '"Not A Slug"',
  },
  {
    name: "SKU default off its pattern",
    files: one('type A {\n  s: SKU = ┆"bad sku!"\n}\n'),
    code: "WO2012",
    message: '"bad sku!"',
  },
  {
    name: "Email default not an address",
    files: one('type A {\n  e: Email = ┆"nope"\n}\n'),
    code: "WO2012",
    message: '"nope"',
  },
  {
    name: "Url default with a scheme the default schemes leave out",
    files: one('type A {\n  u: Url = ┆"javascript:alert(1)"\n}\n'),
    code: "WO2012",
    message: '"javascript:alert(1)"',
  },
  {
    name: "Url default with a scheme its @schemes leaves out",
    files: one('type A {\n  u: Url = ┆"https://example.org" @schemes("ftp")\n}\n'),
    code: "WO2012",
    message: '"https://example.org"',
  },
  {
    name: "Url default not a URI",
    files: one('type A {\n  u: Url = ┆"not a url"\n}\n'),
    code: "WO2012",
    message: '"not a url"',
  },
  {
    name: "bare word default on Text",
    files: one("type A {\n  x: Text = ┆Draft\n}\n"),
    code: "WO2012",
    message: "Draft",
  },
  {
    name: "union default not a member",
    files: one("type A {\n  s: Draft | Live = ┆Gone\n}\n"),
    code: "WO2013",
    message: "Gone",
  },
  {
    name: "null default on a required field",
    files: one("type A {\n  s: Text = ┆null\n}\n"),
    code: "WO2014",
    message: "optional",
  },
  {
    name: "default on a relation",
    files: one("type A {\n  bs: multi B = ┆1\n}\ntype B {\n  a: ref A\n}\n"),
    code: "WO2016",
    message: "relation",
  },
  { name: "id that is not an Id", files: one("type A {\n  id: ┆Int\n}\n"), code: "WO2017", message: "Id" },
  {
    name: "integer default beyond 2^53",
    files: one("type A {\n  x: Int = ┆99999999999999999999\n}\n"),
    code: "WO2018",
    message: "safe integer",
  },
  { name: "duplicate union variant", files: one("type A {\n  s: X | Y | ┆X\n}\n"), code: "WO2019", message: "'X'" },
  {
    name: "duplicate method",
    files: one("class A {\n  fn m() -> Int {\n    return 1\n  }\n  fn ┆m() -> Int {\n    return 2\n  }\n}\n"),
    code: "WO2020",
    message: "'m'",
  },
  {
    name: "duplicate parameter",
    files: one("class A {\n  fn m(a: Int, ┆a: Int) -> Int {\n    return 1\n  }\n}\n"),
    code: "WO2021",
    message: "'a'",
  },
  {
    name: "storage name that is not SQL-safe",
    files: one('@table(name: ┆"my table")\ntype A {\n  x: Int\n}\n'),
    code: "WO2022",
    message: "my table",
  },
  { name: "@unique on an array", files: one("type A {\n  xs: [Text] ┆@unique\n}\n"), code: "WO2024", message: "array" },
  {
    name: "type containing itself by value",
    files: one("type A {\n  b: B\n}\ntype B {\n  a: ┆A\n}\n"),
    code: "WO2025",
    message: "ref A",
  },
  {
    name: "relation inside a struct",
    files: one("type A {\n  s: { bs: ┆multi B }\n}\ntype B {\n  a: ref A\n}\n"),
    code: "WO2026",
    message: "multi",
  },
  {
    name: "readonly field nothing can set at create",
    files: one("type A {\n  total: Int ┆@readonly\n}\n"),
    code: "WO2027",
    message: "'total' is @readonly",
  },
  {
    name: "readonly inside a struct",
    files: one('type A {\n  s: { by: Text = "x" ┆@readonly }\n}\n'),
    code: "WO2028",
    message: "only top-level",
  },
  {
    name: "link field named like an endpoint",
    files: one("type Post {\n  x: Int\n}\ntype Tag {\n  y: Int\n}\ntype Tagging link Post -> Tag {\n  ┆tag: Text\n}\n"),
    code: "WO2029",
    message: "endpoint field 'tag'",
  },
  {
    name: "unknown trigger event",
    files: one("type A {\n  x: Int\n  on ┆updte do set x = 1\n}\n"),
    code: "WO2030",
    message: "Did you mean 'update'?",
  },
  {
    name: "schemes on a field that is not a Url",
    files: one('type A {\n  x: Text ┆@schemes("ftp")\n}\n'),
    code: "WO2040",
    message: "only a Url field takes schemes",
  },
  {
    name: "schemes not written as quoted schemes",
    files: one("type A {\n  x: Url ┆@schemes(ftp)\n}\n"),
    code: "WO2040",
    message: "'ftp' is not a scheme in quotes",
  },
  {
    name: "immutable id",
    files: one("type A {\n  id: Id ┆@immutable\n  x: Int\n}\n"),
    code: "WO2028",
    message: "can never set",
  },
  {
    name: "renamed_from without a quoted name",
    files: one("type A {\n  x: Int ┆@renamed_from(y)\n}\n"),
    code: "WO2041",
    message: '@renamed_from takes the old name of a field as one string, e.g. @renamed_from("old_x") (got y).',
  },
  {
    name: "renamed_from on a struct's field",
    files: one('type A {\n  s: { x: Int ┆@renamed_from("y") }\n}\n'),
    code: "WO2041",
    message: "only on a top-level field",
  },
  {
    name: "renamed_from on a type without a name",
    files: one("┆@renamed_from()\ntype A {\n  x: Int\n}\n"),
    code: "WO2041",
    message: "the old name of a type",
  },
  {
    name: "check comparing an Int with a string",
    files: one('type A {\n  x: Int ┆@check(> "a")\n}\n'),
    code: "WO2045",
    message: "@check on 'x' compares an Int with a number, e.g. @check(> 0); got \"a\".",
  },
  {
    name: "check with a fraction on an Int",
    files: one("type A {\n  x: Money ┆@check(>= 0.5)\n}\n"),
    code: "WO2045",
    message: "compares a Money with a whole number",
  },
  {
    name: "check ordering text",
    files: one('type A {\n  x: Text ┆@check(> "a")\n}\n'),
    code: "WO2045",
    message: "takes only != (text has no order a schema can check)",
  },
  {
    name: "check on a Bool",
    files: one("type A {\n  x: Bool ┆@check(!= true)\n}\n"),
    code: "WO2045",
    message: "cannot be a comparison on a Bool field: only Int, Money, Float and text fields take one",
  },
  {
    name: "check on a list item's field broken by its default",
    files: one("type A {\n  s: [{ ┆x: Int = 0 @check(> 0) }]\n}\n"),
    code: "WO2045",
    message: "@check on 'x' is broken by the field's own default 0.",
  },
  {
    name: "check broken by the field's default",
    files: one("type A {\n  ┆x: Int = 0 @check(> 0)\n}\n"),
    code: "WO2045",
    message: "@check on 'x' is broken by the field's own default 0.",
  },
  {
    name: "check without a comparison",
    files: one("type A {\n  x: Int ┆@check()\n}\n"),
    code: "WO2045",
    message: "needs a comparison, e.g. @check(> 0)",
  },
  // WO2070–WO2073 and WO5xxx: computed fields and boolean checks (spec/language.md)
  {
    name: "materialized on a stored field",
    files: one("type A {\n  x: Int ┆@materialized\n}\n"),
    code: "WO2070",
    message: "@materialized on 'x' needs a top-level computed field",
  },
  {
    name: "materialized reading through a ref",
    files: one("type B {\n  y: Int\n}\ntype A {\n  b: ref B\n  x: Int = self.b.┆y @materialized\n}\n"),
    code: "WO2071",
    message: "@materialized 'x' cannot be kept up to date: it reads 'y' through a ref to another row",
  },
  {
    name: "computed fields reading each other in a cycle",
    files: one("type A {\n  x: Int\n  y: Int = z + 1\n  z: Int = x * ┆y\n}\n"),
    code: "WO2072",
    message: "Computed field 'z' reads 'y', which reads it back (y → z → y)",
  },
  {
    name: "computed field reading itself",
    files: one("type A {\n  x: Int\n  y: Int = ┆y + x\n}\n"),
    code: "WO2072",
    message: "Computed field 'y' reads 'y', which reads it back (y → y)",
  },
  {
    name: "'.*' outside an aggregate",
    files: one("type A {\n  xs: [{ q: Int }]\n  y: Int = len(xs) + ┆xs.*.q\n}\n"),
    code: "WO5033",
    message: "'.*' is read only in the first argument of an aggregate (sum, count, len, contains)",
  },
  {
    name: "'.*' over two lists in one aggregate",
    files: one("type A {\n  xs: [{ q: Int }]\n  ys: [{ q: Int }]\n  y: Int = sum(xs.*.q * ┆ys.*.q)\n}\n"),
    code: "WO5033",
    message: "'.*' goes over 'ys' where this aggregate goes over 'xs': one argument goes over one list",
  },
  {
    name: "'.*' after something that is not a list",
    files: one("type A {\n  n: Int\n  y: Int = sum(┆n.*.q)\n}\n"),
    code: "WO5033",
    message: "'.*' follows a list, but 'n' is Int",
  },
  {
    name: "words of a number",
    files: one("type A {\n  n: Int\n  y: Int = words(┆n)\n}\n"),
    code: "WO5006",
    message: "words",
  },
  {
    name: "computed calling a free fn",
    files: one("fn f(n: Int) -> Int {\n  return n\n}\ntype A {\n  x: Int\n  y: Int = ┆f(x)\n}\n"),
    code: "WO2073",
    message: "The expression of 'y' calls 'f'",
  },
  {
    name: "boolean check that is not a Bool",
    files: one("type A {\n  x: Int @check(┆x + 1)\n}\n"),
    code: "WO5007",
    message: "Bool",
  },
  {
    name: "boolean check naming an unknown field",
    files: one("type A {\n  x: Int @check(self.┆y > 0)\n}\n"),
    code: "WO5003",
    message: "'y'",
  },
  {
    name: "computed field of the wrong type",
    files: one('type A {\n  x: Int\n  y: Int = ┆"a" + "b"\n}\n'),
    code: "WO5007",
    message: "Int",
  },
  // WO3xxx: services and exposure
  {
    name: "expose typo",
    files: one('type A {\n  x: Int\n  service rest "/api/a" expose list, ┆lsit\n}\n'),
    code: "WO3001",
    message: "Did you mean 'list'",
  },
  {
    name: "expose a fn of a plain type",
    files: one('type A {\n  x: Int\n  fn go() -> Int {\n    return 1\n  }\n  service rest "/api/a" expose ┆go\n}\n'),
    code: "WO3001",
    message: "class",
  },
  {
    name: "expose a misspelt method",
    files: one('class A {\n  fn publish() -> Int {\n    return 1\n  }\n  service rest "/api/a" expose ┆publsh\n}\n'),
    code: "WO3001",
    message: "Did you mean 'publish'",
  },
  {
    name: "subscribe in service mcp",
    files: one('type A {\n  x: Int\n  service mcp "/mcp" expose list, ┆subscribe\n}\n'),
    code: "WO3002",
    message: "subscribe",
  },
  {
    name: "path without a leading slash",
    files: one('type A {\n  x: Int\n  service rest ┆"api/a" expose list\n}\n'),
    code: "WO3003",
    message: "start",
  },
  {
    name: "path with a colon",
    files: one('type A {\n  x: Int\n  service rest ┆"/api/a/:id" expose list\n}\n'),
    code: "WO3003",
    message: "':'",
  },
  {
    name: "path with a trailing slash",
    files: one('type A {\n  x: Int\n  service rest ┆"/api/a/" expose list\n}\n'),
    code: "WO3003",
    message: "trailing",
  },
  {
    name: "path with a space",
    files: one('type A {\n  x: Int\n  service rest ┆"/api/my a" expose list\n}\n'),
    code: "WO3003",
    message: "spaces",
  },
  {
    name: "REST path on /mcp",
    files: one('type A {\n  x: Int\n  service rest ┆"/mcp" expose list\n}\n'),
    code: "WO3003",
    message: "MCP",
  },
  ...(
    [
      ["/healthz", "health check"],
      ["/docs/a", "documentation page"],
      ["/openapi.json", "OpenAPI"],
      ["/explorer", "explorer's files"],
      ["/_wo/things", "runtime endpoints"],
      ["/.well-known/x", "resource metadata"],
      ["/", "the explorer"],
    ] as const
  ).map(([path, message]) => ({
    name: `REST path on wo's own ${path}`,
    files: one(`type A {\n  x: Int\n  service rest ┆"${path}" expose list\n}\n`),
    code: "WO3003",
    message,
  })),
  {
    name: "same REST path in two types",
    files: one(
      'type A {\n  x: Int\n  service rest "/api/a" expose list\n}\ntype B {\n  y: Int\n  service rest ┆"/api/a" expose list\n}\n',
    ),
    code: "WO3004",
    message: "already used",
  },
  {
    name: "same REST path twice in one type",
    files: one('type A {\n  x: Int\n  service rest "/api/a" expose list\n  service rest ┆"/api/a" expose get\n}\n'),
    code: "WO3004",
    message: "/api/a",
  },
  {
    name: "REST path inside another",
    files: one(
      'type A {\n  x: Int\n  service rest "/api/a" expose get\n}\ntype B {\n  y: Int\n  service rest ┆"/api/a/b" expose list\n}\n',
    ),
    code: "WO3004",
    message: "overlaps",
  },
  {
    name: "REST path around an earlier one",
    files: one(
      'type B {\n  y: Int\n  service rest "/api/a/b" expose list\n}\ntype A {\n  x: Int\n  service rest ┆"/api/a" expose get\n}\n',
    ),
    code: "WO3004",
    message: "overlaps '/api/a/b'",
  },
  {
    name: "two tools with one name",
    files: one(
      'class Stock {\n  fn item_list() -> Int {\n    return 1\n  }\n  service mcp "/mcp" expose item_list\n}\ntype StockItem {\n  x: Int\n  service mcp "/mcp" expose ┆list\n}\n',
    ),
    code: "WO3005",
    message: "stock_item_list",
  },
  {
    name: "method parameter named id",
    files: one("class A {\n  fn m(┆id: Int) -> Int {\n    return 1\n  }\n}\n"),
    code: "WO3006",
    message: "'id'",
  },
  {
    name: "unknown service kind",
    files: one('type A {\n  x: Int\n  service ┆soap "/api/a" expose list\n}\n'),
    code: "WO3007",
    message: "soap",
  },
  {
    name: "both = and @default",
    files: one("type A {\n  x: Int = 1 ┆@default(2)\n}\n"),
    code: "WO1009",
    message: "keep one",
  },
  {
    name: "relation named like a method",
    files: one(
      'class Post {\n  ┆tags: multi Tag via Tagging\n  fn tags() -> Int {\n    return 1\n  }\n  service rest "/api/posts" expose get, tags\n}\ntype Tag {\n  y: Int\n}\ntype Tagging link Post -> Tag {\n}\n',
    ),
    code: "WO3009",
    message: "the method 'tags'",
  },
  {
    name: "link op of a relation named like a method",
    files: one(
      'class Post {\n  ┆tags: multi Tag via Tagging\n  fn tags_add() -> Int {\n    return 1\n  }\n  service rest "/api/posts" expose update\n}\ntype Tag {\n  y: Int\n}\ntype Tagging link Post -> Tag {\n}\n',
    ),
    code: "WO3009",
    message: "'tags_add'",
  },
  {
    name: "relation named like a built-in op",
    files: one(
      'type Post {\n  ┆list: backlink Note.post\n  service rest "/api/posts" expose get, list\n}\ntype Note {\n  post: ref Post\n}\n',
    ),
    code: "WO3009",
    message: "built-in operation 'list'",
  },
  {
    name: "relation tool named like another type's tool",
    files: one(
      'type Post {\n  tag_list: backlink Note.post\n  service mcp "/mcp" expose get\n}\ntype Note {\n  post: ref Post\n}\ntype PostTag {\n  x: Int\n  service mcp "/mcp" expose ┆list\n}\n',
    ),
    code: "WO3005",
    message: "relation 'tag_list' of 'Post'",
  },
  {
    name: "method named like a built-in op",
    files: one("class A {\n  fn ┆list() -> Int {\n    return 1\n  }\n}\n"),
    code: "WO3008",
    message: "built-in",
  },
  // WO4xxx: project files
  {
    name: "malformed wo.toml",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": 'name = "x"\n[server]\nlisten = ┆= 3\n' },
    code: "WO4004",
    message: "TOML",
  },
  {
    name: "wrong-typed wo.toml key",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": 'name = "x"\n[server]\n┆max_body_bytes = "big"\n' },
    code: "WO4005",
    message: "server.max_body_bytes",
  },
  {
    name: "[database] url that is not a string",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[database]\ndata_dir = "var"\n┆url = 5\n' },
    code: "WO4005",
    message: "database.url' must be a string",
  },
  {
    name: "[live] retention that is not a positive integer",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": "[live]\n┆retention = 0\n" },
    code: "WO4005",
    message: "live.retention",
  },
  {
    name: "[limits] method_millis that is not a positive integer",
    files: {
      "app.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": "[limits]\nmethod_steps = 1000\n  ┆method_millis = 2.5\n",
    },
    code: "WO4005",
    message: "limits.method_millis' must be a positive integer",
  },
  {
    name: "[limits] reads_per_minute that is not a positive integer",
    files: {
      "app.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": "[limits]\nmethod_steps = 1000\nwrites_per_minute = 60\n┆reads_per_minute = -5\n",
    },
    code: "WO4005",
    message: "limits.reads_per_minute' must be a positive integer",
  },
  {
    name: "[limits] given a value instead of a table",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": "┆limits = 5\n" },
    code: "WO4005",
    message: "'limits' must be a table",
  },
  {
    name: "listen that is not host:port",
    files: { "app.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[server]\n┆listen = "localhost"\n' },
    code: "WO4005",
    message: "host:port",
  },
];

describe("broken programs: first error at the marked place", () => {
  it.each(brokenCases)("$code $name", async ({ files, code, message }) => {
    const dir = writeApp(files);
    try {
      const result = await checkApp(dir);
      expect(result.catalog).toBeUndefined();
      const first = result.diagnostics.find((d) => d.severity === "error");
      expect(first, JSON.stringify(result.diagnostics, null, 1)).toBeDefined();
      const where = `${first!.span.file.slice(dir.length + 1)}:${first!.span.line}:${first!.span.col}`;
      expect({ code: first!.code, where }).toEqual({ code, where: cursorPosition(files) });
      expect(first!.message.toLowerCase()).toContain(message.toLowerCase());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("defaults held to their field's schema", () => {
  it("defaults that fit their scalar are taken as written (a Timestamp in its one UTC form)", async () => {
    const dir = writeApp(
      one(`type A {
  s: Slug = "hello-world"
  k: SKU = "AB-12.x"
  e: Email = "team@example.org"
  u: Url = "https://example.org/a?b=1"
  f: Url = "FTP://files.example.org/x" @schemes("ftp")
  t: Timestamp = "2026-01-02T03:04:05+02:00"
}
`),
    );
    try {
      const result = await checkApp(dir);
      expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const fields = result.catalog!.types[0]!.fields;
      const defaultOf = (name: string) => fields.find((f) => f.name === name)!.default;
      expect(defaultOf("s")).toEqual({ kind: "literal", value: "hello-world" });
      expect(defaultOf("k")).toEqual({ kind: "literal", value: "AB-12.x" });
      expect(defaultOf("e")).toEqual({ kind: "literal", value: "team@example.org" });
      expect(defaultOf("u")).toEqual({ kind: "literal", value: "https://example.org/a?b=1" });
      expect(defaultOf("f")).toEqual({ kind: "literal", value: "FTP://files.example.org/x" });
      expect(defaultOf("t")).toEqual({ kind: "literal", value: "2026-01-02T01:04:05.000Z" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
