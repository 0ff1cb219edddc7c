// `as session anonymous { … }` and `as session $row { … }` in test blocks (spec/policies.md,
// "`as session` in tests"): the first runs as a caller without credentials, the second as the
// row signed in (its id the user, its `role` field the role); reads inside either block see
// only the rows a `read` line grants. Through the real `wo test` (bin/wo.js runs dist/).

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { appsDeletedAfterEach } from "../check/app-fixture.js";

vi.setConfig({ testTimeout: 60_000 });

const root = join(import.meta.dirname, "..", "..");
const writeApp = appsDeletedAfterEach();

const app = `type Member {
  nick: Text @unique
  role: Guest | Keeper = Guest
  policy read anyone
}

type Recipe {
  name: Text
  cook: ref Member
  shared: Bool = false
  policy read anyone when shared == true
  policy read when cook == $session.user
  policy write when cook == $session.user
  policy write for role Keeper
}
`;

function woTest(dir: string) {
  const r = spawnSync(process.execPath, ["bin/wo.js", "test", dir], { cwd: root, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("as session anonymous and as session $row", () => {
  it("anonymous reads only what anyone may; a row reads and writes as itself, with its role", () => {
    const dir = writeApp({
      "app.wo": app,
      "tests/forms.wo": `test "who sees which recipes" {
  let kim = insert Member { nick: "kim" }
  let lou = insert Member { nick: "lou", role: Keeper }
  insert Recipe { name: "soup", cook: kim.id, shared: true }
  insert Recipe { name: "stew", cook: kim.id }
  as session anonymous {
    assert count(select Recipe { id > 0 }) == 1
    assert $session.user == null
    expect_abort "may not create a Recipe" {
      insert Recipe { name: "cake", cook: kim.id }
    }
  }
  as session $kim {
    assert count(select Recipe { id > 0 }) == 2
    insert Recipe { name: "pie", cook: kim.id }
  }
  as session $lou {
    assert $session.role == "Keeper"
    assert count(select Recipe { id > 0 }) == 1
    insert Recipe { name: "tart", cook: kim.id }
  }
  assert count(select Recipe { id > 0 }) == 4
}
`,
    });
    const r = woTest(dir);
    expect(r.out).toContain("✔ who sees which recipes");
    expect(r.out).toContain("1 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("a read refused inside the block fails the test with the count it saw", () => {
    const dir = writeApp({
      "app.wo": app,
      "tests/forms.wo": `test "anonymous sees a draft" {
  let kim = insert Member { nick: "kim" }
  insert Recipe { name: "stew", cook: kim.id }
  as session anonymous {
    assert count(select Recipe { id > 0 }) == 1
  }
}
`,
    });
    const r = woTest(dir);
    expect(r.out).toContain("0 == 1 is false");
    expect(r.status).toBe(1);
  });

  it("$name must be a row; another bare name is still skipped with the reason", () => {
    const dir = writeApp({
      "app.wo": app,
      "tests/forms.wo": `test "a number as the caller" {
  let n = 3
  as session $n {
    assert true
  }
}
test "a named caller" {
  as session editor {
    assert true
  }
}
`,
    });
    const r = woTest(dir);
    expect(r.out).toContain(
      "﹣ a number as the caller # SKIP The session's caller needs a row but was given Int. (tests/forms.wo:3:14)",
    );
    expect(r.out).toContain("﹣ a named caller # SKIP 'as session editor' is not supported");
  });
});
