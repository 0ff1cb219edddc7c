// Golden AST snapshots: one small program per construct of the language (spec/language.md,
// "Grammar"). Spans print as "line:col-line:col" so a diff shows where a node moved.
// Update with `npx vitest run test/syntax -u` and review the diff like code.

import { describe, expect, it } from "vitest";
import { parseSource } from "../../compiler/syntax/parse.js";
import { SourceFile } from "../../compiler/source.js";

const cases: Record<string, string> = {
  "type-scalars": `type Tag {\n  id: Id\n  name: Text\n  weight: Float?\n}\n`,
  "class-one-line": `class Tag { id: Id, name: Text }\n`,
  "keyword-field-names": `@table(index: [role, type])\ntype Author {\n  role: Text\n  type: Text\n  set: Bool\n  on: Bool\n  fn: Text\n}\n`,
  "type-expressions": [
    `type Post {`,
    `  author: ref Author`,
    `  tags: multi Tag`,
    `  labels: multi Tag @edge(:LABELLED)`,
    `  enrolled: multi Course via Enrolment`,
    `  comments: backlink Comment.post`,
    `  links: [Url]?`,
    `  status: Draft | Published | Archived?`,
    `  meta: { words: Int, colours: { todo: Text } }`,
    `  lines: [{ item: ref Item, qty: Int }]`,
    `  grid: [[Int]]`,
    `}`,
  ].join("\n"),
  "struct-newline-fields": `type Doc {\n  meta: {\n    a: Text\n    b: Url?\n  }\n}\n`,
  defaults: [
    `type D {`,
    `  s: Text = "EUR"`,
    `  q: Text = 'it\\'s'`,
    `  i: Int = 30`,
    `  n: Int = -5`,
    `  f: Float = 1.5`,
    `  nf: Float = -0.25`,
    `  b: Bool = true`,
    `  z: Text? = null`,
    `  t1: Timestamp = now`,
    `  t2: Timestamp = now()`,
    `  v: Draft | Done = Draft`,
    `  c: Int = stock.total - stock.held`,
    `  w: Int = count(Reply{ thread == self })`,
    `}`,
  ].join("\n"),
  annotations: [
    `type A {`,
    `  code: Text @unique = "x" @check(len > 0)`,
    `  level: Int = 0 @check(>= 0)`,
    `  d: Int @default(-3)`,
    `  e: Text @index @search`,
    `}`,
  ].join("\n"),
  "table-annotation": `@experimental(beta)\n@table(name: "stock_items", index: [sku], index: [warehouse, sku],)\nclass StockItem {\n  sku: SKU\n  warehouse: Text\n}\n`,
  "table-unknown-key": `@table(shard_key: "x")\ntype A { x: Int }\n`,
  "link-type": `type Enrolment link Student -> Course {\n  grade: Int?\n}\n`,
  services: [
    `type Order {`,
    `  total: Money`,
    `  service rest "/api/orders" expose list, get, create, update, delete`,
    `  service rest "/api/o2"`,
    `    expose subscribe, me`,
    `  service mcp "/mcp" expose list, get`,
    `  service graphql "/gql" expose list`,
    `  service native "n" expose get`,
    `}`,
  ].join("\n"),
  policies: [
    `type Doc {`,
    `  owner: ref User`,
    `  policy read anyone`,
    `  policy read anyone when visible == true`,
    `  policy write for role Clerk`,
    `  policy read for role Clerk when owner == $session.user`,
    `  policy delete for role Clerk`,
    `}`,
  ].join("\n"),
  triggers: [
    `type Ticket {`,
    `  status: Open | Closed`,
    `  on update when old.status != new.status do emit "changed"(self)`,
    `  on create`,
    `    do enqueue "mail" with { ticket_id: self.id }`,
    `    do call notify(self)`,
    `  on delete do update Folder{ id == self.folder }.name = self.title`,
    `  title: Text`,
    `}`,
  ].join("\n"),
  "fn-signatures": [
    `class Account {`,
    `  balance: Money`,
    `  fn a() { }`,
    `  fn b(x: Int, y: Text) -> Int { return x }`,
    `  fn c(`,
    `    x: Int,`,
    `    y: Int,`,
    `  ) -> [Entry] in txn {`,
    `    return select Entry { account == self.id }`,
    `  }`,
    `  fn d() in txn snapshot { return }`,
    `  fn e() in txn serializable`,
    `  {`,
    `    return 1;`,
    `  }`,
    `}`,
  ].join("\n"),
  statements: [
    `class Account {`,
    `  fn pay(amount: Money, memo: Text) -> Entry in txn {`,
    `    let cur = self.balance`,
    `    assert amount > 0 otherwise abort "amount must be positive"`,
    `    assert cur >= amount otherwise abort`,
    `    assert true`,
    `    insert Entry { account: self.id, amount: -amount`,
    `      memo: memo, }`,
    `    if amount > 100 {`,
    `      return latest(Entry)`,
    `    } else if amount == 0 { return null }`,
    `    else {`,
    `      let x = 1; let y = 2`,
    `    }`,
    `    update self set balance = cur - amount, memo = memo`,
    `    update Entry{ account == self.id, amount < 0 }.memo = "debit"`,
    `    update Entry{ id == 1 } set memo = "x"`,
    `    delete Entry{ amount == 0 }`,
    `    delete self`,
    `    return latest(Entry)`,
    `  }`,
    `}`,
  ].join("\n"),
  precedence: [
    `fn p(a: Int, b: Int) {`,
    `  let x = a + b * 2 - -a % 3 / b`,
    `  let y = not a == b or a < b and b >= 1`,
    `  let z = (a + b) * -self.amount.cents`,
    `  let s = select Entry { account == self.id, amount >= a + 1, amount, memo }`,
    `  let c = count(select Entry { amount > 0 }) + now()`,
    `}`,
  ].join("\n"),
  "free-fn-main-test": `-- Helper.\nfn helper(a: Int) -> Int { return a }\nmain {\n  let x = helper(1)\n}\ntest "helper works" {\n  assert helper(2) == 2\n}\n`,
  "app-manifest-and-blocks": [
    `##app`,
    `name: "shop"`,
    `version: 3`,
    `i18n: [en, fr]`,
    `role: Staff | Owner`,
    `styles:`,
    `  - app.css`,
    `routes:`,
    `  /item/:code -> ui.item-page { key: $code }`,
    `##ui`,
    `#order-board { rows: $orders }`,
    `##logic`,
    `when: insert(Order)`,
    `type After { x: Int }`,
  ].join("\n"),
  "top-policy-and-startup": `policy StaffOnly\n  applies_to: Order\n  when: $session.role == Staff\n  effect: allow\non startup\n  do: seed()\ntype T { x: Int }\n`,
  "doc-comments": `-- A thing.\n-- Two lines.\ntype Thing {\n  -- Its name.\n  name: Text -- trailing, not a doc\n\n  -- Detached by a blank line: not a doc.\n\n  size: Int\n  -- Doc of a method.\n  fn f() { }\n}\n`,
  "param-docs": [
    `class Account {`,
    `  -- The method's doc, not x's: x shares the fn line.`,
    `  fn m(x: Int) { }`,
    `  fn transfer(`,
    `    -- Who receives it.`,
    `    to: Int,`,
    `    amount: Money, fee: Money`,
    `  ) { }`,
    `}`,
  ].join("\n"),
  "crlf-and-empty": `\r\n\r\ntype A {\r\n  x: Int\r\n}\r\n`,
};

function readable(source: string, value: unknown): string {
  const file = new SourceFile("case.wo", source);
  return JSON.stringify(
    value,
    (key, v) => {
      if (key === "span" && v && typeof v === "object" && "offset" in v) {
        const end = file.positionAt(v.end);
        return `${v.line}:${v.col}-${end.line}:${end.col}`;
      }
      return v;
    },
    2,
  );
}

describe("AST golden files", () => {
  for (const [name, source] of Object.entries(cases)) {
    it(name, async () => {
      const { ast, diagnostics } = parseSource("case.wo", source);
      expect(diagnostics.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`)).toEqual([]);
      await expect(readable(source, ast) + "\n").toMatchFileSnapshot(`../golden/ast/${name}.json`);
    });
  }
});
