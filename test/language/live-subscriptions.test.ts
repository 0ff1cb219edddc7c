// `subscribe live T{ p }` and `receive(sub)` in bodies (spec/language.md, "Live
// subscriptions"): a subscription hears of the writes its own run makes after it — the body's,
// the fns' it calls and its triggers' — one delta per write, the row as stored (trigger-set
// fields and computed fields included), entering and leaving the predicate as Insert and
// Delete, filtered by the read policy of the `as session` block that subscribed. No snapshot
// comes first, and receive never waits: with nothing pending it ends the run naming both
// lines. Checked in memory, run by the real `wo test` (bin/wo.js runs dist/).

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { appsDeletedAfterEach } from "../check/app-fixture.js";
import { cursorAt, errorsOf } from "../methods/compile-fixture.js";

vi.setConfig({ testTimeout: 60_000 });

const root = join(import.meta.dirname, "..", "..");
const writeApp = appsDeletedAfterEach();

const app = `type Ticket {
  state: Open | Paid | Void = Open
  price: Money
  paid_at: Timestamp?
  doubled: Money = self.price * 2

  on update when old.state != Paid and new.state == Paid do set self.paid_at = now()
}

type Member {
  nick: Text @unique
  policy read anyone
}

type Recipe {
  name: Text
  cook: ref Member
  shared: Bool = false
  policy read anyone when shared == true
  policy read when cook == $session.user
  policy write when cook == $session.user
}

class Counter {
  n: Int = 0

  fn bump() -> Int {
    let sub = subscribe live Counter{ id == self.id }
    update self set n = self.n + 1
    let d = receive(sub)
    return d.row.n
  }
}

fn open_ticket(p: Money) -> Ticket {
  let t = insert Ticket { price: p }
  return t
}

fn pay(t: ref Ticket) {
  update Ticket{ id == t } set state = Paid
}
`;

function woTest(files: Record<string, string>) {
  const dir = writeApp({ "app.wo": app, ...files });
  const r = spawnSync(process.execPath, ["bin/wo.js", "test", dir], { cwd: root, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("subscribe live and receive: checking", () => {
  const method = (body: string) => `type Ticket {
  state: Open | Paid | Void = Open
  price: Money
}

class Desk {
  label: Text

  fn watch() -> Int {
${body}
    return 0
  }
}
`;
  it("a delta's kind compares with Snapshot, Insert, Update and Delete; its row is a row of the type", () => {
    const text = method(`    let sub = subscribe live Ticket{ state != Void }
    let d = receive(sub)
    if d.kind == Snapshot or d.kind == Insert or d.kind == Update or d.kind == Delete {
      return d.row.price + len(d.rows)
    }
    receive(sub)`);
    expect(errorsOf(text)).toEqual([]);
  });
  it("receive takes only a subscription", () => {
    const text = method("    let d = receive(┆Ticket{ state == Open })");
    expect(errorsOf(text)).toEqual([`WO5006 ${cursorAt(text)}`]);
  });
  it("a kind that is no delta kind is WO5020", () => {
    const text = method(`    let sub = subscribe live Ticket{ state != Void }
    assert receive(sub).kind == ┆"Created"`);
    expect(errorsOf(text)).toEqual([`WO5020 ${cursorAt(text)}`]);
  });
  it("a delta has kind, row and rows only", () => {
    const text = method(`    let sub = subscribe live Ticket{ state != Void }
    let d = receive(sub)
    assert d.┆price == 1`);
    expect(errorsOf(text)).toEqual([`WO5003 ${cursorAt(text)}`]);
  });
  it("a projection is WO5025: a delta carries the whole row", () => {
    const text = method("    let sub = subscribe live Ticket{ ┆price }");
    expect(errorsOf(text)).toEqual([`WO5025 ${cursorAt(text)}`]);
  });
  it("a subscription is no set of rows", () => {
    const text = method(`    let sub = subscribe live Ticket{ state != Void }
    let n = len(┆sub)`);
    expect(errorsOf(text)).toEqual([`WO5006 ${cursorAt(text)}`]);
  });
});

describe("subscribe live and receive: wo test", () => {
  it("hears each write of the run: Insert, Update with the trigger's field, leaving and entering, Delete", () => {
    const r = woTest({
      "tests/live.wo": `test "a ticket's life" {
  let before = insert Ticket { price: 5 }
  let sub = subscribe live Ticket{ state != Void }
  let t = open_ticket(1500)
  let d1 = receive(sub)
  assert d1.kind == Insert
  assert d1.row.id == t.id
  assert d1.row.price == 1500
  assert d1.row.doubled == 3000
  assert len(d1.rows) == 0
  pay(t)
  let d2 = receive(sub)
  assert d2.kind == Update
  assert d2.row.state == Paid
  assert d2.row.paid_at != null
  update Ticket{ id == t.id } set state = Void
  let d3 = receive(sub)
  assert d3.kind == Delete
  assert d3.row.state == Paid
  insert Ticket { price: 7, state: Void }
  update Ticket{ id == t.id } set state = Open
  let d4 = receive(sub)
  assert d4.kind == Insert
  assert d4.row.id == t.id
  delete Ticket{ id == before.id }
  let d5 = receive(sub)
  assert d5.kind == Delete
  assert d5.row.id == before.id
  print("all heard")
}
`,
    });
    expect(r.out).toContain("all heard");
    expect(r.out).toContain("1 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("sends no snapshot first, and receive with nothing pending ends the test naming both lines", () => {
    const r = woTest({
      "tests/live.wo": `test "no snapshot" {
  insert Ticket { price: 5 }
  let sub = subscribe live Ticket{ state != Void }
  let first = receive(sub)
}
`,
    });
    expect(r.out).toContain(
      "receive() at tests/live.wo:4: nothing is pending on the subscription made at tests/live.wo:3.",
    );
    expect(r.out).toContain("0 passed, 1 failed");
    expect(r.status).toBe(1);
  });

  it("a failed assert on a received delta does not receive again for its message", () => {
    const r = woTest({
      "tests/live.wo": `test "wrong kind" {
  let sub = subscribe live Ticket{ state != Void }
  insert Ticket { price: 1 }
  assert receive(sub).kind == Update
}
`,
    });
    expect(r.out).toContain("assert failed at tests/live.wo:4\n");
    expect(r.out).toContain("0 passed, 1 failed");
  });

  it("a write that expect_abort undid takes its delta with it", () => {
    const r = woTest({
      "tests/live.wo": `test "undone" {
  let sub = subscribe live Ticket{ state != Void }
  expect_abort "no" {
    insert Ticket { price: 1 }
    assert false otherwise abort "no"
  }
  insert Ticket { price: 2 }
  assert receive(sub).row.price == 2
  expect_abort "nothing is pending" {
    receive(sub)
  }
}
`,
    });
    expect(r.out).toContain("1 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("hears only the rows the subscribing session may read", () => {
    const r = woTest({
      "tests/live.wo": `test "policies" {
  let kim = insert Member { nick: "kim" }
  let mine = subscribe live Recipe{ id > 0 }
  let sub = mine
  as session anonymous {
    sub = subscribe live Recipe{ id > 0 }
  }
  insert Recipe { name: "stew", cook: kim.id }
  let soup = insert Recipe { name: "soup", cook: kim.id, shared: true }
  let d = receive(sub)
  assert d.kind == Insert
  assert d.row.name == "soup"
  update Recipe{ id == soup.id } set shared = false
  assert receive(sub).kind == Delete
  expect_abort "nothing is pending" {
    receive(sub)
  }
  assert receive(mine).row.name == "stew"
  assert receive(mine).row.name == "soup"
  assert receive(mine).kind == Update
}
`,
    });
    expect(r.out).toContain("1 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("runs in a class method", () => {
    const r = woTest({
      "tests/live.wo": `test "bump" {
  let c = insert Counter {}
  assert c.bump() == 1
  assert c.bump() == 2
}
`,
    });
    expect(r.out).toContain("1 passed, 0 failed");
    expect(r.status).toBe(0);
  });
});
