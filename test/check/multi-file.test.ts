// Programs span files: names are global, order is file path order then source order.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach } from "./app-fixture.js";

const app = appsDeletedAfterEach();

describe("multi-file resolution", () => {
  it("a ref and a backlink resolve across files and nested directories", async () => {
    const dir = app({
      "b/post.wo": "type Post {\n  title: Text\n  author: ref Author\n}\n",
      "a/author.wo": "type Author {\n  name: Text\n  posts: backlink Post.author\n}\n",
    });
    const result = await checkApp(dir);
    expect(result.diagnostics).toEqual([]);
    // a/ sorts before b/: declaration order follows file path order.
    expect(result.catalog!.types.map((t) => t.name)).toEqual(["Author", "Post"]);
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual(["a/author.wo", "b/post.wo"]);
    expect(result.catalog!.types[1]!.source).toEqual({ file: "b/post.wo", line: 1, col: 6 });
  });

  it("a duplicate type across files is reported at the second file, naming the first", async () => {
    const dir = app({ "one.wo": "type Post {\n  x: Int\n}\n", "two.wo": "\n\ntype Post {\n  y: Int\n}\n" });
    const result = await checkApp(dir);
    expect(result.catalog).toBeUndefined();
    expect(result.diagnostics).toMatchObject([{ code: "WO2002", span: { file: `${dir}/two.wo`, line: 3, col: 6 } }]);
    expect(result.diagnostics[0]!.message).toContain("one.wo:1:6");
  });

  it("skips dot-directories, target, data and node_modules", async () => {
    const dir = app({
      "app.wo": "type A {\n  x: Int\n}\n",
      ".wo/build/x.wo": "broken {",
      "target/x.wo": "broken {",
      "data/x.wo": "broken {",
      "node_modules/p/x.wo": "broken {",
      "notes.txt": "not wo",
    });
    const result = await checkApp(dir);
    expect(result.diagnostics).toEqual([]);
    expect(result.files).toHaveLength(1);
  });

  it("errors in several files are all reported, sorted by file", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Nope\n}\n", "b.wo": "type B {\n  y: Nada\n}\n" });
    const result = await checkApp(dir);
    expect(result.diagnostics.map((d) => [d.code, d.span.file.slice(dir.length + 1)])).toEqual([
      ["WO2001", "a.wo"],
      ["WO2001", "b.wo"],
    ]);
  });
});

describe("project files", () => {
  it("WO4002: a missing directory is a diagnostic, not a crash", async () => {
    const result = await checkApp("/nonexistent/wo-app");
    expect(result.diagnostics).toMatchObject([{ code: "WO4002", message: expect.stringContaining("does not exist") }]);
  });

  it("WO4002: a file is not an app directory", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Int\n}\n" });
    const result = await checkApp(`${dir}/a.wo`);
    expect(result.diagnostics).toMatchObject([{ code: "WO4002", message: expect.stringContaining("not a directory") }]);
  });

  it("WO4001: a directory without .wo files", async () => {
    const dir = app({ "README.md": "hi" });
    const result = await checkApp(dir);
    expect(result.diagnostics).toMatchObject([{ code: "WO4001" }]);
    expect(result.catalog).toBeUndefined();
  });

  it("WO4003: a .wo path that cannot be read as a file", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Int\n}\n" });
    const { mkdirSync, symlinkSync } = await import("node:fs");
    // A dangling symlink named like a source: listed as a link, not followed; and a
    // directory named `x.wo` is walked, not read. Neither may crash the loader.
    symlinkSync(`${dir}/missing-target`, `${dir}/b.wo`);
    mkdirSync(`${dir}/c.wo`);
    const result = await checkApp(dir);
    expect(result.diagnostics).toEqual([]);
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual(["a.wo"]);
  });

  it("wo.toml: absent → defaults, app name from the directory", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Int\n}\n" });
    const { catalog } = await checkApp(dir);
    expect(catalog!.app).toEqual({ name: dir.split("/").pop(), version: "0.0.0" });
    expect(catalog!.config).toEqual({
      dataDir: ".wo/data",
      mcp: { sessions: true, allowedOrigins: [] },
      allowedOrigins: [],
      maxBodyBytes: 1048576,
      concurrency: { running: 64, queued: 1024 },
      limits: {
        method: { steps: 10_000_000, millis: 5000 },
        test: { steps: 100_000_000, millis: 60_000 },
        exec: { steps: 100_000_000, millis: 60_000 },
      },
    });
  });

  it("wo.toml: every key wo reads", async () => {
    const dir = app({
      "a.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": [
        'name = "shop"',
        'version = "2.1.0"',
        'description = "A shop"',
        "[server]",
        'listen = "0.0.0.0:9000"',
        "max_body_bytes = 2048",
        'token_env = "SHOP_TOKEN"',
        "max_running = 8",
        "max_queued = 16",
        'allowed_origins = ["https://shop.example.com"]',
        "[database]",
        'data_dir = "var"',
        'url = "postgres://localhost/shop"',
        "max_bytes = 1073741824",
        'password_env = "SHOP_DB_PASSWORD"',
        "pool_size = 4",
        "statement_timeout_ms = 5000",
        "[mcp]",
        "sessions = false",
        'allowed_origins = ["https://example.com"]',
        "max_sessions = 300",
        "[live]",
        "retention = 500",
        "max_streams = 50",
        "max_streams_per_client = 5",
        "max_queued_bytes = 1000000",
        "stall_timeout_ms = 2000",
        "[limits]",
        "method_steps = 1000",
        "method_millis = 250",
        "test_steps = 2000",
        "test_millis = 500",
        "exec_steps = 3000",
        "exec_millis = 750",
        "",
      ].join("\n"),
    });
    const { catalog, diagnostics } = await checkApp(dir);
    expect(diagnostics).toEqual([]);
    expect(catalog!.app).toEqual({ name: "shop", version: "2.1.0", description: "A shop" });
    expect(catalog!.config).toEqual({
      listen: "0.0.0.0:9000",
      maxBodyBytes: 2048,
      tokenEnv: "SHOP_TOKEN",
      dataDir: "var",
      concurrency: { running: 8, queued: 16 },
      databaseUrl: "postgres://localhost/shop",
      databaseMaxBytes: 1073741824,
      databasePasswordEnv: "SHOP_DB_PASSWORD",
      databasePoolSize: 4,
      databaseStatementTimeoutMs: 5000,
      liveRetention: 500,
      streamLimits: { maxStreams: 50, maxStreamsPerCaller: 5, maxQueuedBytes: 1000000, stallMs: 2000 },
      mcp: { sessions: false, allowedOrigins: ["https://example.com"], maxSessions: 300 },
      allowedOrigins: ["https://shop.example.com"],
      limits: {
        method: { steps: 1000, millis: 250 },
        test: { steps: 2000, millis: 500 },
        exec: { steps: 3000, millis: 750 },
      },
    });
  });

  it("wo.toml: keys wo does not read are warnings naming each key at its line:col, with a suggestion", async () => {
    const dir = app({
      "a.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": [
        'name = "blog"',
        'app_kind = "app"',
        "[runtime]",
        'wo = ">= 0.1"',
        "[sever]",
        'listen = ":1"',
        "[database]",
        'data_dir = "d"',
        '  isolation = "snapshot"',
        "[dependencies]",
        'cargo = "1"',
        "[test]",
        "parallel = true",
        "",
      ].join("\n"),
    });
    const { catalog, diagnostics } = await checkApp(dir);
    expect(catalog).toBeDefined();
    expect(diagnostics.map((d) => [d.code, d.severity, `${d.span.line}:${d.span.col}`, d.message])).toEqual([
      ["WO4101", "warning", "2:1", "wo.toml key 'app_kind' is not used by wo and is ignored."],
      ["WO4101", "warning", "4:1", "wo.toml key 'runtime.wo' is not used by wo and is ignored."],
      [
        "WO4101",
        "warning",
        "6:1",
        "wo.toml key 'sever.listen' is not used by wo and is ignored. Did you mean 'server'?",
      ],
      ["WO4101", "warning", "9:3", "wo.toml key 'database.isolation' is not used by wo and is ignored."],
      // `[dependencies] shared` is read (spec/language.md, "Workspaces"); its other keys are not.
      ["WO4101", "warning", "11:1", "wo.toml key 'dependencies.cargo' is not used by wo and is ignored."],
      ["WO4101", "warning", "13:1", "wo.toml key 'test.parallel' is not used by wo and is ignored."],
    ]);
    expect(diagnostics[0]!.span.file).toBe(join(dir, "wo.toml"));
    const typo = app({
      "a.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": '[server]\nlisten = "127.0.0.1:1"\nmax_runing = 2\n',
    });
    expect((await checkApp(typo)).diagnostics.map((d) => d.message)).toEqual([
      "wo.toml key 'server.max_runing' is not used by wo and is ignored. Did you mean 'max_running'?",
    ]);
  });

  it("wo.toml: a [database] url that is not PostgreSQL (a writeonce engine's wo://…) is a warning, and the embedded store is used", async () => {
    const dir = app({
      "a.wo": "type A {\n  x: Int\n}\n",
      "wo.toml": '[database]\ndata_dir = "d"\nurl = "wo://127.0.0.1:5555"\n',
    });
    const { catalog, diagnostics } = await checkApp(dir);
    expect(diagnostics.map((d) => [d.code, d.severity, `${d.span.line}:${d.span.col}`, d.message])).toEqual([
      [
        "WO4102",
        "warning",
        "3:1",
        'wo.toml key \'database.url\' = "wo://127.0.0.1:5555" is not a PostgreSQL URL ("postgres://…"); wo ignores it and keeps its embedded database in [database] data_dir.',
      ],
    ]);
    expect(catalog!.config.databaseUrl).toBeUndefined();
    expect(catalog!.config.dataDir).toBe("d");
  });

  it('wo.toml: listen = ":8080" is port 8080 on loopback; all interfaces stay explicit', async () => {
    const short = app({ "a.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[server]\nlisten = ":8080"\n' });
    const { catalog, diagnostics } = await checkApp(short);
    expect(diagnostics).toEqual([]);
    expect(catalog!.config.listen).toBe("127.0.0.1:8080");
    const all = app({ "a.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[server]\nlisten = "0.0.0.0:8080"\n' });
    expect((await checkApp(all)).catalog!.config.listen).toBe("0.0.0.0:8080");
  });

  it("wo.toml: [app] listen is read when [server] has none", async () => {
    const dir = app({ "a.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[app]\nlisten = "127.0.0.1:0"\n' });
    expect((await checkApp(dir)).catalog!.config.listen).toBe("127.0.0.1:0");
  });

  it('wo.toml: [server] token = "auto" asks for the automatic agent token; any other value is WO4005', async () => {
    const auto = app({ "a.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[server]\ntoken = "auto"\n' });
    expect((await checkApp(auto)).catalog!.config.token).toBe("auto");
    const secret = app({ "a.wo": "type A {\n  x: Int\n}\n", "wo.toml": '[server]\ntoken = "hunter2"\n' });
    const { diagnostics } = await checkApp(secret);
    expect(diagnostics.map((d) => [d.code, d.span.line, d.message])).toEqual([
      ["WO4005", 2, expect.stringContaining('"auto"')],
    ]);
  });
});
