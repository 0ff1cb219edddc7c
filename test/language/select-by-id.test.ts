// A select with `id ==` names one row or none (`T?`), like `==` on a `@unique` field
// (spec/language.md, "Expressions"): its fields read directly, `[0]` and `latest(…)` of it are
// errors that say so, and given where a `ref T` goes (a struct literal's field too) it is the
// row's id; a field read of none, or none where a row must be, ends the call.
// Checked in memory and run by `wo test`.

import { describe, expect, it, vi } from "vitest";
import { expectWoTestPasses } from "../support/wo-test-run.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Shelf {
  label: Text
  boxes: [{ size: Int }]

  fn size_of(s: Int) -> Int {
    let shelf = select Shelf{ id == s }
    let total = 0
    for b in Shelf{ id == s }.boxes {
      total += b.size
    }
    return total + len(shelf.boxes)
  }

  fn tag(s: Int, note: Text) -> Tag in txn {
    let shelf = Shelf{ id == s }
    let t = insert Tag { shelf: shelf, note: note, marks: [{ on: shelf, label: shelf.label }] }
    return t
  }

  fn relabel(s: Int, l: Text) in txn {
    let shelf = Shelf{ id == s }
    update shelf set label = l
  }
}

class Tag {
  shelf: ref Shelf
  note: Text
  marks: [{ on: ref Shelf, label: Text }]
}
`;

describe("a select by id: checking", () => {
  it("the app checks", () => {
    expect(errorsOf(source)).toEqual([]);
  });
  it("[0] of it is WO5026, saying it is already the row", () => {
    const text = source.replace(
      "    return total + len(shelf.boxes)\n",
      "    return len(┆Shelf{ id == s }[0].boxes)\n",
    );
    expect(errorsOf(text)[0]).toBe(`WO5026 ${cursorAt(text)}`);
  });
  it("latest() of it is WO5006", () => {
    const text = source.replace(
      "    let shelf = Shelf{ id == s }\n    let t",
      "    let shelf = latest(┆Shelf{ id == s })\n    let t",
    );
    expect(errorsOf(text)[0]).toBe(`WO5006 ${cursorAt(text)}`);
  });
  it("a comparison other than == is still a set", () => {
    const text = source.replace(
      "    let shelf = select Shelf{ id == s }\n",
      "    let shelf = select Shelf{ id >= s }\n",
    );
    // A set has no field to read: \`shelf.boxes\` of rows is a list of lists, which len() counts.
    expect(errorsOf(text)).toEqual([]);
    const field = text
      .replace("    let t = insert Tag { shelf: shelf,", "    let t = insert Tag { shelf: ┆shelf,")
      .replace("    let shelf = Shelf{ id == s }\n    let t", "    let shelf = Shelf{ id >= s }\n    let t");
    expect(errorsOf(field)[0]).toBe(`WO5014 ${cursorAt(field)}`);
  });
});

describe("a select by id: wo test", () => {
  it("is the row, and none where a row must be ends the call", async () => {
    await expectWoTestPasses(
      "select-by-id-test",
      {
        "app.wo": source,
        "tests/shelves.wo": [
          'test "one row" {',
          '  let s = insert Shelf { label: "a", boxes: [{ size: 2 }, { size: 5 }] }',
          "  assert s.size_of(s.id) == 9",
          '  assert Shelf{ id == s.id }.label == "a"',
          "  assert Shelf{ id == s.id + 1000 } == null",
          '  let t = s.tag(s.id, "n")',
          "  assert t.shelf == s.id",
          "  assert t.marks[0].on == s.id",
          '  assert t.marks[0].label == "a"',
          '  s.relabel(s.id, "b")',
          '  assert Shelf{ id == s.id }.label == "b"',
          "}",
          'test "no row" {',
          '  let s = insert Shelf { label: "a", boxes: [] }',
          '  expect_abort "has no value" { s.tag(4242, "n") }',
          '  expect_abort "has no value" { s.relabel(4242, "b") }',
          '  expect_abort "Shelf{ … } has no value" { s.size_of(4242) }',
          "}",
          "",
        ].join("\n"),
      },
      2,
    );
  });
});
