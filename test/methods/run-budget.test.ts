// The run budget (spec/security.md, "Budgets") against a real `wo run`, raw HTTP and the MCP SDK
// client: the review's runaway method — `boom(60)` makes 2^61 calls — ends with a clear 409
// while /healthz and an ordinary list keep answering, writes nothing, and leaves the server
// serving; a disconnect or an MCP cancel ends a running call early; a text doubled past the
// limit is a 409, not a 500; `[limits]` in wo.toml changes the budget of calls, tests and
// `wo exec`, and a bad value stops `wo run` at its line:col.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dumpDb,
  removeApp,
  runToExit,
  runWoCommand,
  startWo,
  writeApp,
  type WoProcess,
} from "../support/wo-process.js";
import { post, serveForSuite } from "./wo-process.js";

const item = `class Item {
  name: Text

  fn boom(d: Int) -> Int {
    if d == 0 {
      return 1
    }
    return self.boom(d - 1) + self.boom(d - 1)
  }

  -- Writes a row, then runs away: the row must never be committed.
  fn spin(d: Int) -> Int {
    insert Item { name: "written by spin" }
    return self.boom(d)
  }

  fn double(s: Text, n: Int) -> Text {
    if n == 0 {
      return s
    }
    return self.double(s + s, n - 1)
  }

  fn grow(n: Int) -> Int {
    let s = self.double("0123456789abcdef", n)
    return n
  }

  -- 111,110 loop iterations and no call.
  fn loops() -> Int {
    let n = 0
    for a in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
      for b in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
        for c in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
          for e in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
            for f in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
              n += 1
            }
          }
        }
      }
    }
    return n
  }

  service rest "/api/items" expose list, get, create, boom, spin, grow, loops
  service mcp "/mcp" expose list, get, create, boom, spin, grow, loops
}
`;

/** How long `run` takes, in ms. */
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await run();
  return { ms: performance.now() - t0, value };
}

/**
 * Polls /healthz and GET /api/items one after another until `done` settles; the slowest answer
 * of each and how many were answered.
 */
async function pollWhile(base: string, done: Promise<unknown>): Promise<{ slowest: number; answered: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  let slowest = 0;
  let answered = 0;
  while (!finished) {
    for (const path of ["/healthz", "/api/items"]) {
      const { ms, value } = await timed(() => fetch(base + path));
      expect(value.status).toBe(200);
      await value.arrayBuffer();
      slowest = Math.max(slowest, ms);
      answered++;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { slowest, answered };
}

describe("a runaway method under the default budget", () => {
  const app = serveForSuite("budget", { "app.wo": item });
  beforeAll(async () => {
    expect((await post(app.wo.url, "/api/items", { name: "first" })).status).toBe(201);
  });

  it("ends with 409 naming the budget while /healthz and a list keep answering within 1 s", async () => {
    const before = dumpDb(app.dir);
    const call = timed(() => post(app.wo.url, "/api/items/1/boom", { d: 60 }));
    const polled = await pollWhile(app.wo.url, call);
    const { ms, value } = await call;
    expect(value.status).toBe(409);
    expect(value.body.detail).toBe(
      "Method Item.boom exceeded its run budget of 5,000 ms ([limits] method_millis in wo.toml); nothing was changed.",
    );
    // 5 s of budget, plus a loaded machine's slack; never the hang it was.
    expect(ms).toBeGreaterThan(4_500);
    expect(ms).toBeLessThan(15_000);
    expect(polled.answered).toBeGreaterThan(10);
    expect(polled.slowest).toBeLessThan(1_000);
    expect(dumpDb(app.dir)).toEqual(before);
  }, 30_000);

  it("rolls back the writes of a call that runs out, and the server serves normally after", async () => {
    const before = dumpDb(app.dir);
    const spin = await post(app.wo.url, "/api/items/1/spin", { d: 60 });
    expect(spin.status).toBe(409);
    expect(spin.body.detail).toContain("Method Item.spin exceeded its run budget");
    expect(dumpDb(app.dir)).toEqual(before);
    const created = await post(app.wo.url, "/api/items", { name: "after" });
    expect(created.status).toBe(201);
    expect((await post(app.wo.url, "/api/items/1/boom", { d: 3 })).body).toBe(8);
  }, 30_000);

  it("ends the call when the REST client disconnects: the writer is free at once, nothing written", async () => {
    const before = dumpDb(app.dir);
    const gone = new AbortController();
    const call = fetch(`${app.wo.url}/api/items/1/spin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ d: 60 }),
      signal: gone.signal,
    }).catch((err: Error) => err.name);
    await new Promise((r) => setTimeout(r, 300));
    gone.abort();
    expect(await call).toBe("AbortError");
    // A write waits for the writer the runaway held: it is answered long before the 5 s budget.
    const { ms, value } = await timed(() => post(app.wo.url, "/api/items", { name: "next" }));
    expect(value.status).toBe(201);
    expect(ms).toBeLessThan(2_000);
    const after = dumpDb(app.dir);
    expect(after.item!.filter((r: any) => r.name === "written by spin")).toEqual([]);
    expect(after.item!.length).toBe(before.item!.length + 1);
  }, 30_000);

  it("ends the call on MCP notifications/cancelled", async () => {
    const cancel = new AbortController();
    const call = app.mcp
      .callTool({ name: "item_spin", arguments: { id: 1, d: 60 } }, undefined, { signal: cancel.signal })
      .catch((err: Error) => err.message);
    await new Promise((r) => setTimeout(r, 300));
    cancel.abort("enough");
    expect(String(await call)).toMatch(/enough|abort/i);
    const { ms, value } = await timed(() => post(app.wo.url, "/api/items", { name: "after cancel" }));
    expect(value.status).toBe(201);
    expect(ms).toBeLessThan(2_000);
    expect(dumpDb(app.dir).item!.filter((r: any) => r.name === "written by spin")).toEqual([]);
  }, 30_000);

  it("answers an MCP tool error naming the budget", async () => {
    const result = await app.mcp.callTool({ name: "item_boom", arguments: { id: 1, d: 60 } }, undefined, {
      timeout: 30_000,
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Method Item.boom exceeded its run budget of 5,000 ms");
  }, 30_000);

  it("refuses a text doubled past 16 Mi characters with 409 over REST and a tool error over MCP", async () => {
    const rest = await post(app.wo.url, "/api/items/1/grow", { n: 40 });
    expect(rest.status).toBe(409);
    expect(rest.body.detail).toBe("text longer than 16,777,216 characters (the longest a body may build) at app.wo:21");
    const mcp = await app.mcp.callTool({ name: "item_grow", arguments: { id: 1, n: 40 } });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.content)).toContain("text longer than 16,777,216 characters");
    // Up to the limit it is an ordinary call: 16 × 2^20 characters.
    expect((await post(app.wo.url, "/api/items/1/grow", { n: 20 })).body).toBe(20);
    expect((await post(app.wo.url, "/api/items/1/loops", {})).body).toBe(100_000);
  }, 30_000);
});

describe("[limits] in wo.toml", () => {
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    dir = writeApp("limits", {
      "app.wo": item,
      "wo.toml": "[limits]\nmethod_steps = 20000\nmethod_millis = 60000\n",
    });
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    await post(wo.url, "/api/items", { name: "first" });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("method_steps ends a call after that many steps", async () => {
    const { ms, value } = await timed(() => post(wo.url, "/api/items/1/boom", { d: 60 }));
    expect(value.status).toBe(409);
    expect(value.body.detail).toBe(
      "Method Item.boom exceeded its run budget of 20,000 steps ([limits] method_steps in wo.toml); nothing was changed.",
    );
    expect(ms).toBeLessThan(5_000);
    // 2^14 − 1 calls fit.
    expect((await post(wo.url, "/api/items/1/boom", { d: 13 })).body).toBe(8192);
    // Loop iterations are steps too.
    const loops = await post(wo.url, "/api/items/1/loops", {});
    expect(loops.status).toBe(409);
    expect(loops.body.detail).toContain("Method Item.loops exceeded its run budget of 20,000 steps");
  }, 30_000);

  it("method_millis ends a call after that long", async () => {
    const fast = writeApp("millis", { "app.wo": item, "wo.toml": "[limits]\nmethod_millis = 200\n" });
    const server = await startWo([fast, "--listen", "127.0.0.1:0"]);
    try {
      await post(server.url, "/api/items", { name: "first" });
      const { ms, value } = await timed(() => post(server.url, "/api/items/1/boom", { d: 60 }));
      expect(value.status).toBe(409);
      expect(value.body.detail).toContain("exceeded its run budget of 200 ms ([limits] method_millis in wo.toml)");
      expect(ms).toBeLessThan(3_000);
    } finally {
      await server.stop();
      removeApp(fast);
    }
  }, 30_000);

  it("a value that is not a positive integer stops wo run at its line:col", async () => {
    const bad = writeApp("badlimits", {
      "app.wo": item,
      "wo.toml": '[limits]\nmethod_steps = 100\n  method_millis = "fast"\n',
    });
    try {
      const { code, output } = await runToExit([bad, "--listen", "127.0.0.1:0"]);
      expect(code).toBe(1);
      expect(output).toMatch(/wo\.toml:3:3: error WO4005: .*'limits\.method_millis' must be a positive integer/);
    } finally {
      removeApp(bad);
    }
  }, 30_000);
});

const runaway = `fn boom(d: Int) -> Int {
  if d == 0 {
    return 1
  }
  return boom(d - 1) + boom(d - 1)
}
`;

describe("wo test and wo exec", () => {
  it("wo test ends a test past test_steps, names it and the budget, and runs the next one", async () => {
    const dir = writeApp("budget-tests", {
      "app.wo": `class Item {\n  name: Text\n}\n\n${runaway}`,
      "tests/run.wo": [
        'test "runs away" {',
        "  assert boom(60) == 0",
        "}",
        "",
        'test "fits" {',
        "  assert boom(5) == 32",
        "}",
        "",
      ].join("\n"),
      "wo.toml": "[limits]\ntest_steps = 5000\n",
    });
    try {
      const { code, stdout } = await runWoCommand(["test", dir]);
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /✖ runs away \(\d+ms\)\n {2}Test "runs away" exceeded its run budget of 5,000 steps \(\[limits\] test_steps in wo\.toml\); nothing was changed\.\n/,
      );
      expect(stdout).toMatch(/✔ fits \(\d+ms\)/);
      expect(stdout).toContain("1 passed, 1 failed");
    } finally {
      removeApp(dir);
    }
  }, 60_000);

  it("expect_abort does not catch an exceeded budget", async () => {
    const dir = writeApp("budget-expect", {
      "app.wo": `class Item {\n  name: Text\n}\n\n${runaway}`,
      "tests/run.wo": 'test "hides it" {\n  expect_abort {\n    assert boom(60) == 0\n  }\n}\n',
      "wo.toml": "[limits]\ntest_millis = 200\n",
    });
    try {
      const { code, stdout } = await runWoCommand(["test", dir]);
      expect(code).toBe(1);
      expect(stdout).toContain('Test "hides it" exceeded its run budget of 200 ms ([limits] test_millis in wo.toml)');
    } finally {
      removeApp(dir);
    }
  }, 60_000);

  it("an on startup hook past exec_steps stops wo run with the budget's message", async () => {
    const dir = writeApp("budget-startup", {
      "app.wo": `class Item {\n  name: Text\n}\n\n${runaway}\non startup\n  do: seed()\n\nfn seed() {\n  insert Item { name: "seeded" }\n  let n = boom(60)\n}\n`,
      "wo.toml": "[limits]\nexec_steps = 3000\n",
    });
    try {
      const { code, output } = await runToExit([dir, "--listen", "127.0.0.1:0"]);
      expect(code).toBe(1);
      expect(output).toContain(
        "on startup failed: on startup exceeded its run budget of 3,000 steps ([limits] exec_steps in wo.toml); nothing was changed.",
      );
      expect(dumpDb(dir).item).toEqual([]);
    } finally {
      removeApp(dir);
    }
  }, 60_000);

  it("wo exec ends main past exec_millis, exits 1 and keeps nothing main wrote", async () => {
    const dir = writeApp("budget-exec", {
      "app.wo": `class Item {\n  name: Text\n  service rest "/api/items" expose list, create\n}\n\n${runaway}\nmain {\n  insert Item { name: "from main" }\n  print(boom(60))\n}\n`,
      "wo.toml": "[limits]\nexec_millis = 300\n",
    });
    try {
      const { ms, value } = await timed(() => runWoCommand(["exec", dir]));
      expect(value.code).toBe(1);
      expect(value.stderr).toContain(
        "wo exec: main aborted: main exceeded its run budget of 300 ms ([limits] exec_millis in wo.toml); nothing was changed.",
      );
      expect(ms).toBeLessThan(20_000);
      expect(dumpDb(dir).item).toEqual([]);
    } finally {
      removeApp(dir);
    }
  }, 60_000);
});
