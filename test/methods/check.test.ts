// Method bodies that cannot run → one WO5xxx diagnostic at the line:col of the mistake
// (spec/language.md, "Method language"; codes in spec/diagnostics.md).

import { describe, expect, it } from "vitest";
import { emitSchemas } from "../../compiler/emit/json-schema.js";
import { compileSources, cursorAt, sampleSources } from "./compile-fixture.js";

/** A small app; `fn` is one method (signature + body) placed inside class Product. */
function app(fn: string): string {
  return `class Product {
  sku: Text @immutable
  title: Text
  status: Active | Discontinued = Active
  note: Text?
  prices: multi Price
  bundles: multi Bundle
${fn}
  service rest "/api/products" expose list, get, m
}

type Bundle {
  name: Text
}

class Price {
  product: ref Product
  amount: Money

  service rest "/api/prices" expose list
}
`;
}

const broken: [title: string, fn: string, code: string][] = [
  ["unknown name", `  fn m() -> Int in txn {\n    return ┆nope\n  }`, "WO5001"],
  ["unknown field of self", `  fn m() -> Text {\n    return self.┆nope\n  }`, "WO5003"],
  ["unknown type in insert", `  fn m() in txn {\n    insert ┆Nope { a: 1 }\n  }`, "WO5002"],
  ["unknown type in select", `  fn m() -> Int {\n    return count(select ┆Nope { a == 1 })\n  }`, "WO5002"],
  ["call to a method", `  fn m() -> Int {\n    return ┆m()\n  }`, "WO5022"],
  ["integer literal beyond the safe range", `  fn m() -> Int {\n    return 1 + ┆99999999999999999999\n  }`, "WO5024"],
  [
    "let bound only in one branch",
    `  fn m(amount: Money) -> Int {\n    if amount > 0 {\n      let x = 1\n    }\n    return ┆x\n  }`,
    "WO5023",
  ],
  ["unknown function", `  fn m() -> Int {\n    return ┆total(self.prices)\n  }`, "WO5004"],
  ["builtin argument count", `  fn m() -> Int {\n    return ┆count(self.prices, 2)\n  }`, "WO5005"],
  ["builtin argument type", `  fn m(amount: Money) -> Int {\n    return count(┆amount)\n  }`, "WO5006"],
  ["latest of a non-set", `  fn m() -> Price {\n    return latest(┆self.title)\n  }`, "WO5006"],
  ["return type mismatch", `  fn m() -> Int {\n    return ┆self.title\n  }`, "WO5007"],
  ["for over a single value", `  fn m() in txn {\n    for p in ┆self.title { }\n  }`, "WO5026"],
  ["-= on text", `  fn m() in txn {\n    let x = "a"\n    ┆x -= 1\n  }`, "WO5012"],
  ["= of another type", `  fn m() in txn {\n    let x = 1\n    x = ┆"a"\n  }`, "WO5027"],
  ["assignment to a field", `  fn m() in txn {\n    ┆self.title = "a"\n  }`, "WO5025"],
  [
    "loop variable read after the loop",
    `  fn m() -> Int {\n    for p in self.prices { }\n    return ┆p.amount\n  }`,
    "WO5023",
  ],
  ["index that is not an integer", `  fn m() -> Price {\n    return self.prices[┆"a"]\n  }`, "WO5026"],
  [
    "contains with an incomparable value",
    `  fn m() -> Bool {\n    return contains(self.prices.amount, ┆"a")\n  }`,
    "WO5006",
  ],
  ["abort message that is not text", `  fn m() in txn {\n    assert false otherwise abort ┆1\n  }`, "WO5026"],
  ["text joined with a row", `  fn m() -> Text {\n    return ┆"a" + self\n  }`, "WO5012"],
  ["set of a path inside a struct", `  fn m() in txn {\n    update self set title.┆x = 1\n  }`, "WO5025"],
  ["call statement in a method", `  fn m() in txn {\n    ┆now()\n  }`, "WO5025"],
  ["link through a type that is not a link type", `  fn m() in txn {\n    link self -[┆Price]-> self\n  }`, "WO5026"],
  ["object literal in a method", `  fn m() -> Int {\n    let o = ┆{ a: 1 }\n    return 1\n  }`, "WO5025"],
  ["call of a method the class lacks", `  fn m() -> Int {\n    return self.┆nope()\n  }`, "WO5003"],
  ["a multi without a ref back", `  fn m() -> Int {\n    return count(self.┆bundles)\n  }`, "WO5018"],
  ["return a value without a return type", `  fn m() {\n    return ┆1\n  }`, "WO5008"],
  ["assign the id", `  fn m() in txn {\n    update self set ┆id = 3\n  }`, "WO5009"],
  ["assign a relation", `  fn m() in txn {\n    update self set ┆prices = 3\n  }`, "WO5009"],
  ["update an @immutable field", `  fn m() in txn {\n    update self set ┆sku = "B-2"\n  }`, "WO5009"],
  ["compare Text with Int", `  fn m() -> Bool {\n    return ┆self.title == 3\n  }`, "WO5011"],
  ["order Bool values", `  fn m() -> Bool {\n    return ┆true < false\n  }`, "WO5011"],
  ["arithmetic on text", `  fn m() -> Int {\n    return ┆self.title - 1\n  }`, "WO5012"],
  ["negate text", `  fn m() -> Int {\n    return -┆self.sku\n  }`, "WO5012"],
  [
    "select on an unknown column",
    `  fn m() -> Int {\n    return count(select Price { ┆price == self.id })\n  }`,
    "WO5013",
  ],
  [
    "select predicate of the wrong type",
    `  fn m() -> Int {\n    return count(select Price { ┆amount == "ten" })\n  }`,
    "WO5011",
  ],
  [
    "insert a value of the wrong type",
    `  fn m() in txn {\n    insert Price { product: self.id, amount: ┆"ten" }\n  }`,
    "WO5014",
  ],
  ["insert without a required field", `  fn m() in txn {\n    insert ┆Price { product: self.id }\n  }`, "WO5015"],
  [
    "field given twice",
    `  fn m() in txn {\n    insert Price { product: self.id, amount: 1, ┆amount: 2 }\n  }`,
    "WO5016",
  ],
  ["field of a scalar", `  fn m() -> Text {\n    return self.title.┆length\n  }`, "WO5017"],
  ["delete a number", `  fn m(amount: Money) in txn {\n    delete ┆amount\n  }`, "WO5019"],
  ["union literal not a variant", `  fn m() -> Bool {\n    return self.status == ┆"Gone"\n  }`, "WO5020"],
  ["store a non-variant", `  fn m() in txn {\n    update self set status = ┆"Gone"\n  }`, "WO5020"],
  ["end without return", `  fn m() -> Int ┆{\n    if true {\n      return 1\n    }\n  }`, "WO5021"],
  ["optional into required", `  fn m() in txn {\n    update self set title = ┆self.note\n  }`, "WO5014"],
];

describe("method bodies: compile errors at line:col", () => {
  it.each(broken)("%s → %s", (_title, fn, code) => {
    const text = app(fn);
    const { diagnostics } = compileSources({ "app.wo": text });
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => `${d.code} ${d.span.line}:${d.span.col}`)[0]).toBe(`${code} ${cursorAt(text)}`);
    expect(errors[0]!.span.file).toBe("app.wo");
  });

  it.each([
    [
      "a field of self",
      `  fn m() -> Text {\n    return self.titel\n  }`,
      "'Product' has no field 'titel'. Did you mean 'title'?",
    ],
    [
      "a field in set",
      `  fn m() in txn {\n    update self set stauts = "Active"\n  }`,
      "'Product' has no field 'stauts'. Did you mean 'status'?",
    ],
    [
      "a field in insert",
      `  fn m() in txn {\n    insert Price { product: self.id, amout: 1 }\n  }`,
      "'Price' has no field 'amout'. Did you mean 'amount'?",
    ],
    [
      "a type in select",
      `  fn m() -> Int {\n    return count(select Prices { amount == 1 })\n  }`,
      "Unknown type 'Prices' in a method body. Did you mean 'Price'?",
    ],
    [
      "a parameter",
      `  fn m(amount: Money) -> Money {\n    return amuont\n  }`,
      "Unknown name 'amuont'. Did you mean 'amount'?",
    ],
  ])("a misspelt name suggests the nearest: %s", (_what, fn, message) => {
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toContain(message);
  });

  it("has at least 15 distinct cases", () => {
    expect(broken.length).toBeGreaterThanOrEqual(15);
    expect(new Set(broken.map((b) => b[2])).size).toBeGreaterThanOrEqual(15);
  });

  it.each(["pricing", "ledger"])("samples/%s has no method diagnostics", (sample) => {
    const { diagnostics, catalog } = compileSources(sampleSources(sample), sample);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(catalog).toBeDefined();
  });

  it("accepts the whole statement and expression set", () => {
    const fn = `  fn m(amount: Money, name: Text) -> Int in txn {
    let n = count(self.prices)
    if n > 0 and not (amount == 0) or self.note == null {
      let n = n + amount * 2 - amount / 3 % 5
    } else if name == "x" {
      return -1
    } else {
      assert true otherwise abort "never"
    }
    insert Price { product: self.id, amount: amount }
    insert Product { sku: name, title: name }
    update Price { product == self.id, amount >= 0 } set amount = amount
    update self set title = name, status = "Discontinued"
    let cheap = select Price { amount < 100, id, amount }
    let last = latest(self.prices)
    update last set amount = last.amount + 1
    delete Price { amount < 0 }
    return n + count(cheap) + last.amount
  }`;
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("accepts a name bound in every branch that continues, or in a branch that returns", () => {
    const fn = `  fn m(amount: Money) -> Int {\n    if amount > 0 {\n      let x = 1\n    } else if amount == 0 {\n      return 0\n    } else {\n      let x = 2\n    }\n    return x\n  }`;
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("accepts the statements of the full language that methods run", () => {
    const fn = `  fn m(amount: Money) -> Price in txn {
    let p = insert Price { product: self.id, amount: amount }
    let total = 0
    for q in Price{ product == self.id } {
      total += q.amount
      total -= 1
    }
    for a in self.prices.amount {
      total = total + a
    }
    assert contains(self.prices, p) and total > 0
        otherwise abort "lost " + "it"
    let first = self.prices[0]
    return first
  }`;
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("lets a method declared -> [T] return projected T rows; their output schema has exactly the projected keys", () => {
    const fn = `  fn m() -> [Price] {\n    return select Price{ product == self.id, amount }\n  }`;
    const { catalog, diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const result = emitSchemas(catalog!).outputs.product_m as {
      type: string[];
      items: { properties: object; required: string[] };
    };
    expect(result.type).toEqual(["array", "null"]);
    expect(Object.keys(result.items.properties)).toEqual(["amount"]);
    expect(result.items.required).toEqual(["amount"]);
    // A projection of another type is still a mismatch.
    const other = `  fn m() -> [Price] {\n    return select Product{ id == self.id, title }\n  }`;
    expect(compileSources({ "app.wo": app(other) }).diagnostics.map((d) => d.code)).toContain("WO5007");
  });

  it("accepts writes without 'in txn' (every call is one transaction; WO5010 is retired)", () => {
    const fn = `  fn m(amount: Money) {\n    insert Price { product: self.id, amount: amount }\n    let p = insert Price { product: self.id, amount: 1 }\n    update self set title = "x"\n    delete Price { amount < 0 }\n  }`;
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("lets a method return null or an optional value (results are always nullable)", () => {
    const fn = `  fn m() -> Text {\n    if self.note == null {\n      return null\n    }\n    return self.note\n  }`;
    const { diagnostics } = compileSources({ "app.wo": app(fn) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
});
