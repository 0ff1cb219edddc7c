// `update … set f = e` where `e` names the updated row's own fields bare, struct paths
// included (spec/language.md, "Statements"): each matched row's values before the statement,
// the same for every assignment of one `set`; a parameter of that name comes first. Checked
// in memory and run by `wo test`.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Bin {
  kind: Text
  count: Int = 0
  stock: { held: Int = 0, free: Int = 0 }

  fn hold(n: Int) -> Bin in txn {
    update Bin{ id == self.id } set stock.held = stock.held + n, stock.free = stock.free - n
    return Bin{ id == self.id }
  }

  fn swap() -> Bin in txn {
    update self set stock.held = stock.free, stock.free = stock.held
    return self
  }

  fn double_all(k: Text) in txn {
    update Bin{ kind == k } set count = count * 2 + stock.held
  }

  fn set_count(count: Int) -> Bin in txn {
    update self set count = count
    return self
  }
}
`;

describe("update values reading the row: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("a name that is no field nor local is still WO5001", () => {
    const text = source.replace("set count = count * 2 + stock.held", "set count = ┆cuont * 2");
    expect(errorsOf(text)[0]).toBe(`WO5001 ${cursorAt(text)}`);
  });
  it("a field's value that does not fit is WO5014", () => {
    const text = source.replace("set count = count * 2 + stock.held", "set count = ┆kind");
    expect(errorsOf(text)[0]).toBe(`WO5014 ${cursorAt(text)}`);
  });
  it("the row's fields are not in scope outside the statement", () => {
    const text = source.replace("    return self\n  }\n\n  fn double_all", "    return ┆stock\n  }\n\n  fn double_all");
    expect(errorsOf(text)[0]).toBe(`WO5001 ${cursorAt(text)}`);
  });
});

describe("update values reading the row: wo test", () => {
  it("reads each row's own values, before the statement", async () => {
    await expectWoTestPasses(
      "update-row-fields-test",
      {
        "app.wo": source,
        "tests/bins.wo": [
          'test "per row" {',
          '  let a = insert Bin { kind: "x", count: 1, stock: { held: 1, free: 10 } }',
          '  let b = insert Bin { kind: "x", count: 5, stock: { held: 0, free: 3 } }',
          '  let c = insert Bin { kind: "y", count: 7 }',
          "  let h = a.hold(4)",
          "  assert h.stock.held == 5",
          "  assert h.stock.free == 6",
          "  let s = a.swap()",
          "  assert s.stock.held == 6",
          "  assert s.stock.free == 5",
          '  a.double_all("x")',
          "  assert Bin{ id == a.id }.count == 8",
          "  assert Bin{ id == b.id }.count == 10",
          "  assert Bin{ id == c.id }.count == 7",
          "  assert c.set_count(3).count == 3",
          "}",
          "",
        ].join("\n"),
      },
      1,
    );
  });
});
