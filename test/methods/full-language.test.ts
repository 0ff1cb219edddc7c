// The full statement language in class methods, end to end: `let x = insert`, `for … in`,
// `+=`/`-=`, `contains`, indexing and bare queries, run by a real `wo run` through REST and the
// official MCP SDK client, with rollback checked in the SQLite file
// (spec/language.md, "Statements").

import { describe, expect, it, vi } from "vitest";
import { dumpDb } from "../support/wo-process.js";
import { post, serveForSuite } from "./wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const source = `class Cart {
  owner: Text
  lines: backlink Line.cart

  -- Adds one line per quantity step and returns the last line: let x = insert, for, +=.
  fn fill(sku: Text, steps: Int) -> Line in txn {
    let total = 0
    let last = insert Line { cart: self.id, sku: sku, qty: 1 }
    for l in self.lines {
      total += l.qty
    }
    if steps > 1 {
      let more = insert Line { cart: self.id, sku: sku, qty: steps - 1 }
      total += more.qty
      last = more
    }
    assert total < 10 otherwise abort "too many items"
    return last
  }

  -- Sum of quantities through a bare query, the n-th line, and a membership test.
  fn summary(n: Int) -> Int {
    let qty = 0
    for l in Line{ cart == self.id } {
      qty += l.qty
    }
    let nth = self.lines[n]
    assert contains(self.lines.sku, nth.sku) otherwise abort "missing"
    qty -= nth.qty
    return qty
  }

  service rest "/api/carts" expose list, get, create, fill, summary
}

class Line {
  cart: ref Cart
  sku: Text
  qty: Int
  service rest "/api/lines" expose list
}
`;

describe("full statement language in methods (wo run)", () => {
  const served = serveForSuite("full-language", { "app.wo": source });

  it("let x = insert binds the new row; for and += see rows written earlier in the call", async () => {
    const cart = await post(served.wo.url, "/api/carts", { owner: "ada" });
    const id = cart.body.id;
    const filled = await post(served.wo.url, `/api/carts/${id}/fill`, { sku: "A", steps: 3 });
    expect(filled.status).toBe(200);
    expect(filled.body).toMatchObject({ cart: id, sku: "A", qty: 2 });
    expect(typeof filled.body.id).toBe("number");
    const viaMcp = await served.mcp.callTool({ name: "cart_fill", arguments: { id, sku: "B", steps: 1 } });
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent).toMatchObject({ result: { cart: id, sku: "B", qty: 1 } });
  });

  it("an abort after inserts in a loop-carrying call rolls every insert back", async () => {
    const cart = await post(served.wo.url, "/api/carts", { owner: "bob" });
    const id = cart.body.id;
    await post(served.wo.url, `/api/carts/${id}/fill`, { sku: "A", steps: 5 });
    const before = dumpDb(served.dir).line!.length;
    const over = await post(served.wo.url, `/api/carts/${id}/fill`, { sku: "B", steps: 5 });
    expect(over.status).toBe(409);
    expect(over.body.detail ?? over.body.title).toContain("too many items");
    expect(dumpDb(served.dir).line!.length).toBe(before);
  });

  it("bare queries, indexing, contains and -= compute in a read-only method", async () => {
    const cart = await post(served.wo.url, "/api/carts", { owner: "cy" });
    const id = cart.body.id;
    await post(served.wo.url, `/api/carts/${id}/fill`, { sku: "A", steps: 4 }); // lines of qty 1 and 3
    const s = await post(served.wo.url, `/api/carts/${id}/summary`, { n: 1 });
    expect(s).toMatchObject({ status: 200, body: 1 });
    const out = await post(served.wo.url, `/api/carts/${id}/summary`, { n: 7 });
    expect(out.status).toBe(409);
    expect(JSON.stringify(out.body)).toContain("index 7 is outside a list of 2 at app.wo:");
  });
});
