// policy-compile: `as session { user: …, role: … } { … }` in test blocks runs its statements
// with that caller as `$session` (spec/policies.md, "`as session` in tests"), through the real
// `wo test` (bin/wo.js runs dist/: run `npm run build` first).

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach, cursorPosition } from "../check/app-fixture.js";

vi.setConfig({ testTimeout: 60_000 });

const root = join(import.meta.dirname, "..", "..");
const writeApp = appsDeletedAfterEach();

const app = `type Note {
  text: Text
  owner: Int?
  who: Text?
  role: Text?
  policy read anyone
  policy write when owner == $session.user
}
`;

function woTest(dir: string) {
  const r = spawnSync(process.execPath, ["bin/wo.js", "test", dir], { cwd: root, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("as session in wo test", () => {
  it("inserts as the given principal and reads it back; outside the block the owner has no session", () => {
    const dir = writeApp({
      "app.wo": app,
      "tests/session.wo": `test "as session switches the caller" {
  as session { user: 7, role: "editor" } {
    insert Note { text: "mine", owner: $session.user, who: $session.user, role: $session.role }
  }
  let n = select Note { text == "mine" }
  assert count(n) == 1
  assert n[0].owner == 7
  assert n[0].who == "7"
  assert n[0].role == "editor"
  insert Note { text: "owner's", owner: $session.user, role: $session.role }
  let o = select Note { text == "owner's" }
  assert o[0].owner == null
  assert o[0].role == null
}
test "a text user and no role" {
  as session { user: "42" } {
    insert Note { text: "t", owner: 42, who: $session.user, role: $session.role }
  }
  let n = select Note { text == "t" }
  assert n[0].who == "42"
  assert n[0].role == null
}
test "an assertion about the session fails inside the block" {
  as session { user: 1 } {
    assert $session.role == "editor"
  }
}
test "a statement the policies refuse fails the test" {
  as session { user: 7 } {
    insert Note { text: "forged", owner: 8 }
  }
}
test "expect_abort catches a statement the policies refuse, and the rows stay as they were" {
  insert Note { text: "someone's", owner: 8 }
  as session { user: 7 } {
    expect_abort { insert Note { text: "forged", owner: 8 } }
    let theirs = select Note { owner == 8 }
    let first = theirs[0]
    expect_abort { update first set text = "mine now" }
    expect_abort { delete first }
    let mine = insert Note { text: "mine", owner: 7 }
    update mine set text = "still mine"
  }
  assert count(select Note { text == "forged" }) == 0
  assert count(select Note { text == "someone's" }) == 1
  assert count(select Note { text == "still mine" }) == 1
}
test "expect_abort catches what aborts inside as session" {
  expect_abort "not yours" {
    as session { user: 2 } {
      assert $session.user == 3 otherwise abort "not yours"
    }
  }
}
`,
    });
    const r = woTest(dir);
    expect(r.out).toMatch(/✔ as session switches the caller/);
    expect(r.out).toMatch(/✔ a text user and no role/);
    expect(r.out).toMatch(
      /✖ an assertion about the session fails inside the block[^\n]*\n {2}assert failed at tests\/session\.wo:\d+: null == editor is false/,
    );
    expect(r.out).toMatch(/✔ expect_abort catches what aborts inside as session/);
    expect(r.out).toMatch(/✖ a statement the policies refuse fails the test[^\n]*\n[^\n]*may not create a Note/);
    expect(r.out).toMatch(/✔ expect_abort catches a statement the policies refuse, and the rows stay as they were/);
    expect(r.out).toMatch(/4 passed, 2 failed/);
    expect(r.status).toBe(1);
  });
});

describe("as session: checker errors", () => {
  // A test whose body has an error is reported by `wo test` as skipped, with the error and its position.
  const cases: [string, string, RegExp][] = [
    [
      "an unknown key",
      'test "t" {\n  as session { ┆usr: 7 } {\n  }\n}\n',
      /'usr' is not one of them\. Did you mean 'user'\?/,
    ],
    ["a key given twice", 'test "t" {\n  as session { user: 7, ┆user: 8 } {\n  }\n}\n', /given twice/],
    [
      "a Bool user",
      'test "t" {\n  as session { user: ┆true } {\n  }\n}\n',
      /session's user needs an id or a text but was given Bool/,
    ],
    [
      "an Int role",
      'test "t" {\n  as session { role: ┆3 } {\n  }\n}\n',
      /session's role needs a text but was given Int/,
    ],
  ];
  it.each(cases)("%s", async (_what, text, message) => {
    const files = { "app.wo": app, "tests/t.wo": text };
    const dir = writeApp(files);
    const result = await checkApp(dir);
    const skipped = result.catalog!.tests![0]!.skipped!;
    expect(skipped).toMatch(message);
    expect(skipped.endsWith(`(${cursorPosition(files)})`)).toBe(true);
  });

  it("outside a test block it is an error of the fn (WO5025), which is then not executed", async () => {
    const files = { "app.wo": app, "f.wo": "fn f() {\n  ┆as session { user: 1 } {\n  }\n}\n" };
    const dir = writeApp(files);
    const result = await checkApp(dir);
    const d = result.diagnostics.find((x) => x.code === "WO2111")!;
    expect(d.message).toContain(
      `'as session' is not supported in a method yet: it belongs in a 'test' block. (${cursorPosition(files)})`,
    );
  });
});
