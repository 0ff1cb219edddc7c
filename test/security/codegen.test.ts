// Generated code never runs source text (spec/security.md, "Generated code"): hostile file and
// folder names, defaults, doc comments and method strings stay data through `wo check`,
// `wo build` and `wo run`; user names cannot collide with generated ones; Int/Money overflow in a
// method ends the call with nothing written; reserved and too-deep input is a diagnostic.
//
// Every payload would write a marker file (the path comes from WO_MARKER, so the payload
// itself holds no path) if any of it ran as code.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  dumpDb,
  removeApp,
  repoRoot,
  runToExit,
  startWo,
  tempDir,
  writeApp,
  type WoProcess,
} from "../support/wo-process.js";
import { mcpClient, post } from "../methods/wo-process.js";
import { compileSources } from "../methods/compile-fixture.js";
import { ts } from "ts-morph";
import { emitBuild } from "../../compiler/emit/index.js";
import { checkApp } from "../../compiler/index.js";
import { compileTypeScript } from "../../compiler/build.js";
import { buildInfoText } from "../../compiler/build-info.js";
import { loadBuild } from "../../runtime/load-build.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { createApp } from "../../runtime/app.js";

// Several CLI runs and one `wo run` per suite on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const markerDir = tempDir("wo-codegen-marker-");
const marker = join(markerDir, "ran");
const env = { WO_MARKER: marker };
afterAll(() => rmSync(markerDir, { recursive: true, force: true }));

/** Runs if it ever becomes code, in a module body or in an async handler alike. */
const run = `(await import("node:fs")).writeFileSync(process.env.WO_MARKER, "ran");`;

function wo(...args: string[]) {
  const r = spawnSync(process.execPath, ["bin/wo.js", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("file and folder names with control characters are refused (WO4006)", () => {
  // [what, path below the app folder, how the diagnostic prints it]
  const hostile: [string, string, string][] = [
    ["a newline in a folder name", `x\n${run}\n/m.wo`, `x\\u000a${run}\\u000a/m.wo`],
    ["U+2028 in a file name", `x\u2028${run}\u2028.wo`, `x\\u2028${run}\\u2028.wo`],
    ["U+2029 and a carriage return", `x\u2029\r${run}.wo`, `x\\u2029\\u000d${run}.wo`],
    ["a C1 next-line character", `x\u0085${run}.wo`, `x\\u0085${run}.wo`],
    ["a right-to-left override", "notes\u202egpj.wo", "notes\\u202egpj.wo"],
    ["an escape sequence", "x\u001b[2J.wo", "x\\u001b[2J.wo"],
  ];

  it.each(hostile)("%s: check and build refuse it, run does not start, nothing runs", async (_what, path, shown) => {
    const app = writeApp("hostile", {
      "ok.wo": 'class Note {\n  text: Text\n  service rest "/api/notes" expose list, create\n}\n',
      [path]: "type Other {\n  n: Int\n}\n",
    });
    try {
      // Only the hostile file is refused; the other one is read and checked as usual.
      const checked = await checkApp(app);
      expect(checked.diagnostics.map((d) => d.code)).toEqual(["WO4006"]);
      expect(checked.diagnostics[0]!.span.file.endsWith(`/hostile/${shown}`)).toBe(true);
      expect(checked.files.map((f) => f.endsWith("/hostile/ok.wo"))).toEqual([true]);

      const check = wo("check", app);
      expect(check.status).toBe(1);
      expect(check.stderr).toContain(
        `/hostile/${shown}: error WO4006: Path '${shown}' contains a control or line-separator character`,
      );
      // The diagnostic itself is one line per problem, with no raw control character in it.
      expect(check.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);

      const build = wo("build", app);
      expect(build.status).toBe(1);
      expect(build.stderr).toContain("error WO4006");
      expect(existsSync(join(app, ".wo/build"))).toBe(false);

      const ran = await runToExit([app, "--listen", "127.0.0.1:0"], { env });
      expect(ran.code).toBe(1);
      expect(ran.output).toContain("error WO4006");
      expect(existsSync(marker)).toBe(false);
    } finally {
      removeApp(app);
    }
  });
});

// The same text as a Text default, a returned string, an abort message and doc comments:
// quotes, backticks, `${`, `*/`, `/*`, `</script>`, HTML comment openers and U+2028/U+2029.
const payload = `*/ ${run} /* \` \${${run}} </script><!-- --> \u2028${run}// \u2029${run}// " end`;

const hostileApp = (text: string) =>
  [
    `-- ${text}`,
    `class Acc {`,
    `  -- ${text}`,
    `  note: Text = '${text}'`,
    `  balance: Money = 0`,
    ``,
    `  -- ${text}`,
    `  fn echo() -> Text {`,
    `    return '${text}'`,
    `  }`,
    ``,
    `  fn refuse() -> Int {`,
    `    assert self.balance < 0 otherwise abort '${text}'`,
    `    return 1`,
    `  }`,
    ``,
    `  -- A parameter and a local whose names differ only by a trailing underscore.`,
    `  fn pay(rt: Int) -> Int {`,
    `    let rt_ = 7`,
    `    return rt`,
    `  }`,
    ``,
    `  fn both(rt: Int, rt_: Int, tx: Int, self_: Int) -> Int {`,
    `    let args = rt * 1000 + rt_ * 100 + tx * 10 + self_`,
    `    return args`,
    `  }`,
    ``,
    `  fn deposit(amount: Money) -> Acc in txn {`,
    `    update self set balance = self.balance + amount`,
    `    insert Entry { acc: self.id, amount: amount * 2 - amount }`,
    `    return self`,
    `  }`,
    ``,
    `  service rest "/api/accs" expose list, get, create, echo, refuse, pay, both, deposit`,
    `  service mcp "/mcp" expose deposit`,
    `}`,
    ``,
    `class Entry {`,
    `  acc: ref Acc`,
    `  amount: Money`,
    `  service rest "/api/entries" expose list`,
    `}`,
    ``,
  ].join("\n");

describe("hostile text in an app that builds: stays data end to end", () => {
  let app: string;
  let wo_: WoProcess;
  let mcp: Client;

  beforeAll(async () => {
    // `*/` and `/*` are allowed in paths (only control characters are refused): the app lives
    // in `evil*/*q/` so every comment naming the file holds both.
    app = writeApp("codegen", { "evil*/*q/acc.wo": hostileApp(payload) });
    const build = wo("build", app);
    expect(build.stderr).not.toContain("error");
    expect(build.status).toBe(0);
    wo_ = await startWo([app, "--listen", "127.0.0.1:0"], { env });
    mcp = await mcpClient(wo_.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo_?.stop();
    if (app) removeApp(app);
  });

  it("defaults, returned strings and abort messages arrive exactly as written; nothing ran", async () => {
    const created = await post(wo_.url, "/api/accs", {});
    expect(created.status).toBe(201);
    expect(created.body.note).toBe(payload);
    const id = created.body.id;

    const echo = await post(wo_.url, `/api/accs/${id}/echo`, {});
    expect(echo).toEqual({ status: 200, body: payload });

    const refused = await post(wo_.url, `/api/accs/${id}/refuse`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(payload);

    const tools = await mcp.listTools();
    expect(tools.tools.find((t) => t.name === "acc_deposit")).toBeDefined();
    expect(existsSync(marker)).toBe(false);
  });

  it("a parameter `rt` and a local `rt_` stay two names: pay(rt=5) returns 5", async () => {
    const created = await post(wo_.url, "/api/accs", {});
    const paid = await post(wo_.url, `/api/accs/${created.body.id}/pay`, { rt: 5 });
    expect(paid).toEqual({ status: 200, body: 5 });
    // Parameters named like the handler's own variables (rt, tx) and like each other.
    const both = await post(wo_.url, `/api/accs/${created.body.id}/both`, { rt: 1, rt_: 2, tx: 3, self_: 4 });
    expect(both).toEqual({ status: 200, body: 1234 });
  });

  it("Int/Money overflow in a method ends the call (409, MCP isError) and writes nothing", async () => {
    const created = await post(wo_.url, "/api/accs", { balance: 9_000_000_000_000_000 });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const before = dumpDb(app);

    const rest = await post(wo_.url, `/api/accs/${id}/deposit`, { amount: 9_000_000_000_000_000 });
    expect(rest.status).toBe(409);
    expect(rest.body.detail).toMatch(
      /^Integer overflow at evil\*\/\*q\/acc\.wo:29: the result is beyond ±9007199254740991/,
    );

    const viaMcp = await mcp.callTool({ name: "acc_deposit", arguments: { id, amount: 9_000_000_000_000_000 } });
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain("Integer overflow at evil*/*q/acc.wo:29");
    expect(dumpDb(app)).toEqual(before);

    // In range, the same method still works (and its insert's `amount * 2 - amount` too).
    const ok = await post(wo_.url, `/api/accs/${id}/deposit`, { amount: 7_199_254_740_991 });
    expect(ok.status).toBe(200);
    expect(ok.body.balance).toBe(Number.MAX_SAFE_INTEGER);
    expect(existsSync(marker)).toBe(false);
  });
});

/**
 * Builds `files` in process (check, emit, transpile — what `wo build` does, minus the loader)
 * and runs `use` on the bound operations over a real SQLite store; returns the emitted files.
 */
async function withBuild(
  files: Record<string, string>,
  use: (operations: Record<string, (input: unknown, call: object) => Promise<unknown>>) => Promise<void>,
): Promise<{ path: string; text: string }[]> {
  const { catalog, diagnostics } = compileSources(files);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const emitted = emitBuild(catalog!);
  const built = [
    ...emitted,
    ...compileTypeScript(emitted, ts),
    { path: "build-info.json", text: buildInfoText("test", []) },
  ];
  const dir = tempDir("wo-codegen-build-");
  for (const f of built) writeFileSync(join(dir, f.path), f.text);
  try {
    // Importing operations.js runs its top level (the header names every file).
    const build = await loadBuild(dir);
    const { store } = await openSqliteStore({
      file: join(dir, "data/app.sqlite"),
      catalog: build.catalog,
      lock: false,
    });
    try {
      await use((await createApp({ build, store, log: () => {} })).operations as never);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return built;
}

describe("the emitters escape and name safely even past the loader", () => {
  // compileSources takes paths as given, so this catalog carries the names WO4006 refuses: a
  // line terminator in a path would otherwise end the `//` comments that name it, and the
  // payload after it (valid at the top of a module and inside a handler alike) would run.
  it("a build from a catalog whose file name holds newlines, U+2028 and */ loads and runs without running it", async () => {
    const file = `d\u2028${run}//\n${run}//*/x\u2029${run}//\r${run}//.wo`;
    const built = await withBuild({ [file]: hostileApp(payload) }, async (operations) => {
      const row = (await operations.acc_create!({}, {})) as { id: number; note: string };
      expect(row.note).toBe(payload);
      expect(await operations.acc_echo!({ id: row.id }, {})).toBe(payload);
      await expect(operations.acc_refuse!({ id: row.id }, {})).rejects.toThrow(payload);
      expect(await operations.acc_pay!({ id: row.id, rt: 5 }, {})).toBe(5);
      await expect(operations.acc_deposit!({ id: row.id, amount: 1000 }, {})).resolves.toMatchObject({ balance: 1000 });
      await expect(operations.acc_deposit!({ id: row.id, amount: Number.MAX_SAFE_INTEGER }, {})).rejects.toThrow(
        /^Integer overflow at d\u2028/,
      );
    });
    // Every comment that names the file is one line, and none can close a block comment.
    for (const f of built.filter((f) => /\.(ts|js)$/.test(f.path))) {
      expect(f.text, f.path).not.toMatch(/[\u2028\u2029\r]/);
      for (const line of f.text.split("\n").filter((l) => l.includes(run)))
        expect(line.trimStart(), f.path).toMatch(/^(\/\/|\*|\/\*\*)/);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("JavaScript reserved words as type, parameter and variable names build and run", async () => {
    const app = [
      "class enum {",
      "  await: Int = 1",
      "  fn f(yield: Int, arguments: Int, eval: Int, undefined: Int) -> Int {",
      "    let NaN = yield + arguments + eval + undefined",
      "    let static = NaN * 10 + self.await",
      "    return static",
      "  }",
      '  service rest "/api/enums" expose create, f',
      "}",
      "",
    ].join("\n");
    await withBuild({ "m.wo": app }, async (operations) => {
      const row = (await operations.enum_create!({}, {})) as { id: number };
      expect(await operations.enum_f!({ id: row.id, yield: 1, arguments: 2, eval: 3, undefined: 4 }, {})).toBe(101);
    });
  });
});

describe("reserved names and too-deep expressions are diagnostics", () => {
  it("Object.prototype member names (and prototype) cannot name a type, field, parameter or variable", () => {
    const { diagnostics } = compileSources({
      "m.wo": [
        "class T {",
        "  __proto__: Text",
        "  meta: { constructor: Int }",
        "  fn f(valueOf: Int) -> Int {",
        "    let hasOwnProperty = 1",
        "    return hasOwnProperty",
        "  }",
        '  service rest "/api/ts" expose list, f',
        "}",
        "type prototype {",
        "  toString: Text",
        "}",
        "type __Proto__ {",
        "  n: Int",
        "}",
        '@table(name: "valueOf")',
        "type Stored {",
        "  n: Int",
        "}",
        "",
      ].join("\n"),
    });
    const reserved = diagnostics.filter((d) => d.code === "WO2022");
    expect(reserved.map((d) => `${d.span.line}:${d.span.col} ${d.message.split(":")[0]}`)).toEqual([
      "2:3 Name '__proto__' is not allowed for a field",
      "3:11 Name 'constructor' is not allowed for a field",
      "4:8 Name 'valueOf' is not allowed for a parameter",
      "5:9 Name 'hasOwnProperty' is not allowed for a variable",
      "10:6 Name 'prototype' is not allowed for a type",
      "11:3 Name 'toString' is not allowed for a field",
      "13:6 Name '__Proto__' is not allowed for a type",
      "16:14 Name 'valueOf' is not allowed for a storage name",
    ]);
    expect(reserved[0]!.message).toBe(
      "Name '__proto__' is not allowed for a field: JavaScript objects have a built-in member named '__proto__', which JSON keys and generated code cannot use as a plain name.",
    );
    expect(reserved[6]!.message).toContain("a built-in member named '__proto__'");
  });

  const deep: [string, string][] = [
    ["6,000 terms of '+'", `return ${Array(6000).fill("1").join(" + ")}`],
    ["a 6,000-member chain", `return self${".n".repeat(6000)}`],
  ];

  it.each(deep)("%s in a method: wo check says WO1013 at file:line:col, exit 1, no stack trace", (_what, statement) => {
    const dir = tempDir("wo-codegen-deep-");
    mkdirSync(join(dir, "app"));
    writeFileSync(
      join(dir, "app/m.wo"),
      `class Acc {\n  n: Int = 0\n  fn f() -> Int {\n    ${statement}\n  }\n  service rest "/api/accs" expose list, f\n}\n`,
    );
    try {
      const r = wo("check", join(dir, "app"));
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        `app/m.wo:4:12: error WO1013: Expression too deep: more than 200 operators, members or calls inside one another`,
      );
      expect(r.stderr).not.toMatch(/internal error|RangeError|\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("6,000 terms in a default: not evaluated, so a warning and no crash", () => {
    const dir = tempDir("wo-codegen-deep-");
    mkdirSync(join(dir, "app"));
    writeFileSync(join(dir, "app/m.wo"), `type Acc {\n  n: Int = ${Array(6000).fill("1").join(" + ")}\n}\n`);
    try {
      const r = wo("check", join(dir, "app"));
      expect(r.status).toBe(0);
      expect(r.stderr).toContain("app/m.wo:2:12: warning WO2107");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("200 levels still check, build and run", async () => {
    const app = `class Acc {\n  n: Int = 0\n  fn f(n: Int) -> Int {\n    return ${Array(200).fill("n").join(" + ")}\n  }\n  service rest "/api/accs" expose create, f\n}\n`;
    await withBuild({ "m.wo": app }, async (operations) => {
      const row = (await operations.acc_create!({}, {})) as { id: number };
      expect(await operations.acc_f!({ id: row.id, n: 3 }, {})).toBe(600);
    });
  });
});
