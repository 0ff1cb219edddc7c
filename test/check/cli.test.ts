// `wo check` end to end through the real binary (node bin/wo.js). bin/wo.js runs dist/, which
// `npm test` builds before vitest starts; run `npm run build` first when running this file alone.
// The test does not rebuild dist/ itself: a second tsc on two cores, racing others' builds.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { shownFlags } from "../../cli/commands/help.js";
import { commands } from "../../cli/commands/table.js";
import { writeApp } from "./app-fixture.js";

// Each test starts the CLI one to three times: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 60_000 });

const root = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function wo(...args: string[]) {
  const r = spawnSync(process.execPath, ["bin/wo.js", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An app whose only diagnostics are warnings: a fn in a plain type, which does not run (WO2103). */
function warnedApp(): string {
  const dir = writeApp({
    "app.wo": "type Note {\n  text: Text\n  fn go() -> Int {\n    return 1\n  }\n}\n",
  });
  dirs.push(dir);
  return dir;
}

describe("wo check", () => {
  it("a clean sample: exit 0 and a one-line summary", () => {
    const r = wo("check", "samples/pricing");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("samples/pricing: 2 types, 3 services, 3 methods, 9 tools — ok\n");
  });

  it("an app with an inert fn: exit 0, warnings on stderr, counted in the summary", () => {
    const dir = warnedApp();
    const r = wo("check", dir);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/app\.wo:3:6: warning WO2103: /m);
    expect(r.stdout).toMatch(/: 1 type, 0 services, 0 methods, 0 tools — ok \(1 warning\)\n/);
  });

  it("a broken file: exit 1, path:line:col and a caret on stderr", () => {
    const dir = writeApp({
      "shop.wo": 'type Item {\n  name: Text\n  price: Mony\n  service rest "/api/items" expose list, lsit\n}\n',
    });
    dirs.push(dir);
    const r = wo("check", dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${dir}/shop.wo:3:10: error WO2001: Unknown type 'Mony'.`);
    expect(r.stderr).toContain(
      `${dir}/shop.wo:4:42: error WO3001: 'lsit' is not an operation or method of 'Item'. Did you mean 'list'?`,
    );
    expect(r.stderr).toMatch(/\^/);
    expect(r.stdout).toMatch(/: 2 errors — not ok\n$/);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });

  it("a nonexistent directory: a clear message, exit 1, no stack trace", () => {
    const r = wo("check", "no/such/app");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("no/such/app: error WO4002: App directory 'no/such/app' does not exist.\n");
  });

  it("usage mistakes exit 2", () => {
    expect(wo("check", "--frobnicate").status).toBe(2);
    expect(wo("check", "a", "b").status).toBe(2);
  });

  it("defaults to the current directory", () => {
    const r = spawnSync(process.execPath, [join(root, "bin/wo.js"), "check"], {
      cwd: join(root, "samples", "hello"),
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(".: 1 type, 1 service, 0 methods, 5 tools — ok\n");
  });
});

describe("wo check --format json", () => {
  it("errors: an array of { file, line, column, endLine, endColumn, severity, code, message } on stdout, exit 1", () => {
    const dir = writeApp({ "shop.wo": "type Item {\n  name: Text\n  price: Mony\n}\n" });
    dirs.push(dir);
    const r = wo("check", dir, "--format", "json");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([
      {
        file: `${dir}/shop.wo`,
        line: 3,
        column: 10,
        endLine: 3,
        endColumn: 14,
        severity: "error",
        code: "WO2001",
        message: "Unknown type 'Mony'. Did you mean 'Money'?",
      },
    ]);
  });

  it("warnings only: exit 0, --format=json works too; a clean app is []", () => {
    const warned = wo("check", "--format=json", warnedApp());
    expect(warned.status).toBe(0);
    const list = JSON.parse(warned.stdout);
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((d: { severity: string }) => d.severity === "warning")).toBe(true);
    expect(list[0]).toMatchObject({ line: 3, column: 6, code: "WO2103" });
    expect(wo("check", "samples/pricing", "--format", "json").stdout).toBe("[]\n");
  });

  it("a directory that does not exist: the diagnostic has no end position", () => {
    const r = wo("check", "no/such/app", "--format", "json");
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        file: "no/such/app",
        line: 1,
        column: 1,
        severity: "error",
        code: "WO4002",
        message: "App directory 'no/such/app' does not exist.",
      },
    ]);
  });
});

describe("wo help, --help, --version and usage mistakes", () => {
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;

  it("wo --version and wo version print the package version", () => {
    expect(wo("--version")).toMatchObject({ status: 0, stdout: `wo ${version}\n` });
    expect(wo("version")).toMatchObject({ status: 0, stdout: `wo ${version}\n` });
  });

  it("wo help mcp lists the mcp subcommands with their synopses", () => {
    const help = wo("help", "mcp");
    expect(help.status, help.stderr).toBe(0);
    for (const c of commands.filter((c) => c.name.startsWith("mcp ")))
      expect(help.stdout).toContain(`usage: wo ${c.name} `);
    expect(help.stdout).toContain("wo help mcp <subcommand> lists the flags of one.");
  });

  it("wo help lists every command; wo help <command> and wo <command> --help list every flag", () => {
    const all = wo("help");
    expect(all.status).toBe(0);
    for (const c of commands) expect(all.stdout).toContain(`  ${c.name} `);
    for (const c of commands) {
      const help = wo("help", ...c.name.split(" "));
      expect(help.status, c.name).toBe(0);
      expect(wo(...c.name.split(" "), "--help").stdout).toBe(help.stdout);
      expect(help.stdout).toContain(`usage: wo ${c.name}`);
      for (const f of shownFlags(c)) {
        expect(help.stdout).toContain(f.value ? `${f.name} ${f.value}` : f.name);
        if (f.short) expect(help.stdout).toContain(`${f.short}, ${f.name}`);
      }
    }
  });

  it("an unknown flag is exit 2 naming it and the nearest flag; an unknown command suggests one", () => {
    const r = wo("run", "samples/hello", "--lisen", "127.0.0.1:0");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("wo run: unknown option '--lisen'; did you mean '--listen'?");
    expect(r.stderr).toContain("usage: wo run [dir] [--listen HOST:PORT]");
    expect(wo("build", "--froce").stderr).toContain("unknown option '--froce'; did you mean '--force'?");
    expect(wo("check", "--format", "xml")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("--format must be 'text' or 'json', not 'xml'"),
    });
    expect(wo("check", "--format")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("--format needs text|json"),
    });
    expect(wo("build", "--force=yes")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("--force takes no value"),
    });
    const cmd = wo("chek", "samples/hello");
    expect(cmd.status).toBe(2);
    expect(cmd.stderr).toContain("wo: unknown command 'chek'; did you mean 'check'?");
  });

  it("the README's command table names every command and flag of the table", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Commands"),
      readme.indexOf("\n## ", readme.indexOf("## Commands") + 1),
    );
    for (const c of commands) {
      expect(section, c.name).toContain(`\`wo ${c.name}`);
      for (const f of shownFlags(c)) expect(section, `${c.name} ${f.name}`).toContain(f.name);
    }
  });
});

describe("wo init", () => {
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), "wo-init-"));
    dirs.push(d);
    return d;
  };

  it("scaffolds a new folder that wo check accepts, and prints the next commands", () => {
    const dir = join(fresh(), "todo");
    const r = wo("init", dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("wrote wo.toml, task.wo, .gitignore, README.md");
    expect(r.stdout).toContain(`wo run ${dir}`);
    expect(r.stdout).toContain("second terminal");
    expect(readFileSync(join(dir, "wo.toml"), "utf8")).toContain('name = "todo"');
    expect(readFileSync(join(dir, "task.wo"), "utf8")).toMatch(/^test "[^"]+" \{$/m);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("wo run");
    const check = wo("check", dir);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toBe(`${dir}: 1 type, 2 services, 0 methods, 5 tools — ok\n`);
    expect(check.stderr).toBe("");
    const test = wo("test", dir);
    expect(test.status, test.stderr).toBe(0);
    expect(test.stdout).toContain("1 passed, 0 failed");
    // The type's doc comment is the tools' description prefix, the file's note is not.
    expect(wo("build", dir).status).toBe(0);
    const tools = JSON.parse(readFileSync(join(dir, ".wo/build/manifest.json"), "utf8")).tools as {
      description: string;
    }[];
    for (const t of tools) expect(t.description).toMatch(/^Something to do\. [A-Z]/);
    // `git add .` leaves the build and the database out.
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".wo/\n");
    const git = (...args: string[]) => spawnSync("git", args, { cwd: dir, encoding: "utf8" });
    expect(git("init", "-q").status).toBe(0);
    expect(git("add", ".").status).toBe(0);
    expect(git("ls-files").stdout.split("\n").filter(Boolean).sort()).toEqual([
      ".gitignore",
      "README.md",
      "task.wo",
      "wo.toml",
    ]);
  });

  it("takes a folder with other files but keeps its README; refuses one that is an app already", () => {
    const dir = fresh();
    writeFileSync(join(dir, "README.md"), "mine\n");
    writeFileSync(join(dir, "notes.txt"), "x\n");
    writeFileSync(join(dir, ".gitignore"), "node_modules/");
    const r = wo("init", dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("wrote wo.toml, task.wo, .gitignore in");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n.wo/\n");

    const again = wo("init", dir);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("already has a wo.toml");

    const other = fresh();
    writeFileSync(join(other, "shop.wo"), "type A {\n  x: Int\n}\n");
    const refused = wo("init", other);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("already has .wo files (shop.wo)");
    expect(existsSync(join(other, "wo.toml"))).toBe(false);
  });
});
