// `$session.user` and `$session.role` (spec/language.md, "$session"): checked, compiled, and
// read from the call's principal at run time — in process with a principal (as the HTTP edge
// passes it), and as the owner (null) through `wo test`.

import { describe, expect, it, vi } from "vitest";
import type { Principal } from "../../model/principal.js";
import { OperationError } from "../../model/errors.js";
import { errorsOf, compileSources } from "../methods/compile-fixture.js";
import { removeApp, runWoCommand, writeApp } from "../support/wo-process.js";
import { withInProcessApp } from "./in-process.js";

vi.setConfig({ testTimeout: 120_000 });

const editor: Principal = { name: "ci-agent", user: "7", role: "editor", via: "token" };
const ownerPrincipalLike: Principal = { name: "owner", user: null, role: null, via: "owner" };
const alice: Principal = { name: "alice", user: "alice@example.com", role: null, via: "jwt" };

const app = `
type User {
  name: Text
  service rest "/api/users" expose list, get, create
}

class Post {
  title: Text
  author: ref User?
  author_text: Text?
  by_editor: Bool = false

  fn claim() -> Post {
    update self set author = $session.user, author_text = $session.user
    if $session.role == "editor" {
      update self set by_editor = true
    }
    return self
  }

  fn note() -> Post {
    update self set author_text = $session.user
    return self
  }

  fn mine() -> Bool {
    return self.author == $session.user
  }

  service rest "/api/posts" expose list, get, create, claim, note, mine
}
`;

describe("$session in method bodies", () => {
  it("stores the caller's user as an id and as text, and reads the role", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call }) => {
      for (let i = 1; i <= 7; i++) await call("user_create", { name: `u${i}` });
      const post = await call("post_create", { title: "Hello" });
      const claimed = await call("post_claim", { id: post.id }, { principal: editor, surface: "rest" });
      expect(claimed).toMatchObject({ author: 7, author_text: "7", by_editor: true });
      expect(await call("post_mine", { id: post.id }, { principal: editor })).toBe(true);
      expect(await call("post_mine", { id: post.id }, { principal: { ...editor, user: "6" } })).toBe(false);
    });
  });

  it("concurrent calls of different principals each see their own (group commit runs them in one queue)", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call }) => {
      for (let i = 1; i <= 30; i++) await call("user_create", { name: `u${i}` });
      const posts = [];
      for (let i = 1; i <= 30; i++) posts.push(await call("post_create", { title: `p${i}` }));
      const claimed = await Promise.all(
        posts.map((p, i) =>
          call(
            "post_claim",
            { id: p.id },
            {
              principal:
                i % 3 === 0 ? ownerPrincipalLike : { ...editor, user: String(i + 1), role: i % 2 ? "editor" : null },
            },
          ),
        ),
      );
      claimed.forEach((row, i) => {
        if (i % 3 === 0) expect(row).toMatchObject({ author: null, by_editor: false });
        else expect(row).toMatchObject({ author: i + 1, author_text: String(i + 1), by_editor: i % 2 === 1 });
      });
    });
  });

  it("principals and the owner in turn: the session is switched off between calls and back on for each principal", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call }) => {
      for (let i = 1; i <= 7; i++) await call("user_create", { name: `u${i}` });
      const turns: Array<Principal | undefined> = [editor, undefined, { ...editor, user: "3", role: null }, undefined];
      for (const principal of turns) {
        const post = await call("post_create", { title: "turn" }, principal ? { principal } : {});
        const claimed = await call("post_claim", { id: post.id }, principal ? { principal } : {});
        expect(claimed).toMatchObject(
          principal
            ? { author: Number(principal.user), author_text: principal.user, by_editor: principal.role === "editor" }
            : { author: null, author_text: null, by_editor: false },
        );
      }
    });
  });

  it("the owner has no user or role: null is stored", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call }) => {
      const post = await call("post_create", { title: "Hello" });
      const claimed = await call("post_claim", { id: post.id }, {});
      expect(claimed).toMatchObject({ author: null, author_text: null, by_editor: false });
    });
  });

  it("a user that is not an id: kept as text in a Text field; where an id is needed the call ends (409) naming the place", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call }) => {
      const post = await call("post_create", { title: "Hello" });
      expect(await call("post_note", { id: post.id }, { principal: alice })).toMatchObject({
        author_text: "alice@example.com",
      });
      const refused = await call("post_claim", { id: post.id }, { principal: alice }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OperationError);
      expect((refused as OperationError).kind).toBe("aborted");
      expect((refused as OperationError).message).toBe(
        '$session.user is "alice@example.com", which is not a row id, where app.wo:14 needs one.',
      );
      // Nothing of the refused call was kept.
      expect(await call("post_get", { id: post.id })).toMatchObject({ author: null, author_text: "alice@example.com" });
    });
  });

  it("the audit trail records the principal and the surface of the call", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call, store }) => {
      const post = await call("post_create", { title: "Hello" }, { principal: editor, surface: "mcp" });
      await call("post_claim", { id: post.id }, { principal: alice, surface: "rest" }).catch(() => undefined);
      await call("post_mine", { id: post.id }, { principal: editor });
      const { entries } = await store.readAudit({ limit: 10 });
      expect(entries.map(({ seq: _s, at: _a, ...e }) => e)).toEqual([
        {
          principal: "ci-agent",
          user: "7",
          role: "editor",
          via: "token",
          surface: "mcp",
          operation: "post_create",
          type: "Post",
          rowId: post.id,
          outcome: "ok",
        },
        {
          principal: "alice",
          user: "alice@example.com",
          role: null,
          via: "jwt",
          surface: "rest",
          operation: "post_claim",
          type: "Post",
          rowId: post.id,
          outcome: "aborted",
        },
      ]);
    });
  });
});

describe("$session in the checker", () => {
  it("types user as an id and role as Text: comparisons and stores that do not fit are errors", () => {
    const base = (body: string) => `class Note {\n  n: Int\n  label: Text\n  fn f() {\n    ${body}\n  }\n}\n`;
    expect(errorsOf(base("update self set n = $session.user"))).toEqual(["WO5014 5:25"]);
    expect(errorsOf(base("update self set label = $session.role"))).toEqual(["WO5014 5:29"]);
    expect(errorsOf(base("update self set label = $session.user"))).toEqual([]);
    expect(errorsOf(base('assert $session.role == 1 otherwise abort "x"'))).toEqual(["WO5011 5:12"]);
  });

  it("an unknown member or a bare $ name is an error with its position and a suggestion", () => {
    const { diagnostics } = compileSources({
      "app.wo": `class Note {\n  label: Text?\n  fn f() {\n    update self set label = $session.rol\n  }\n  fn g() {\n    update self set label = $sesion\n  }\n}\n`,
    });
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => `${d.code} ${d.span.line}:${d.span.col} ${d.message}`)).toEqual([
      "WO5030 4:38 $session has no member 'rol'; it has user and role. Did you mean 'role'?",
      "WO5031 7:29 '$sesion' is not a value: the caller is read as $session.user or $session.role. Did you mean '$session'?",
    ]);
  });
});

describe("$session in wo test", () => {
  it("runs as the owner: user and role are null", async () => {
    const dir = writeApp("session-test", {
      "app.wo": `${app}
test "the owner has no user" {
  let p = insert Post { title: "t" }
  let claimed = p.claim()
  assert claimed.author == null
  assert claimed.by_editor == false
}
`,
    });
    try {
      const r = await runWoCommand(["test", dir]);
      expect(r.stdout + r.stderr).toContain("1 passed, 0 failed");
      expect(r.code).toBe(0);
    } finally {
      removeApp(dir);
    }
  });
});
