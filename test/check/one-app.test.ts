// One app per folder (spec/language.md "Programs and files", WO4007): a folder holding several
// apps — several wo.toml, or an app below a wo.toml of its own — is refused by `wo check` and
// `wo run` with the apps found, instead of merging them into one program. An app's own
// subfolders (tests/) are still collected; node_modules never is.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { repoRoot, runToExit, woNode } from "../support/wo-process.js";
import { appsDeletedAfterEach } from "./app-fixture.js";

vi.setConfig({ testTimeout: 60_000 });

const app = appsDeletedAfterEach();
const author = 'type Author {\n  id: Id\n  name: Text\n  service rest "/api/authors" expose list\n}\n';
const config = (name: string) => `name = "${name}"\n`;

function woCheck(dir: string) {
  const r = spawnSync(woNode, [join(repoRoot, "bin/wo.js"), "check", "."], { cwd: dir, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("one app per folder", () => {
  it("a folder holding two apps: wo check exits 1 naming both, and no type is reported twice", () => {
    const dir = app({
      "blog/wo.toml": config("blog"),
      "blog/author.wo": author,
      "press/wo.toml": config("press"),
      "press/author.wo": author,
    });
    const r = woCheck(dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(".: 1 error — not ok\n");
    expect(r.stderr).toBe(
      ".: error WO4007: '.' is not one app; apps found: blog, press. wo works on one app at a time (a folder with its wo.toml and the .wo files below it): name one of these folders.\n",
    );
    expect(woCheck(join(dir, "blog")).status).toBe(0);
  });

  it("an app with another app below it (a fixture with its own wo.toml): refused, the root named first", async () => {
    const dir = app({
      "wo.toml": config("outer"),
      "author.wo": author,
      "test/fixtures/inner/wo.toml": config("inner"),
      "test/fixtures/inner/author.wo": author,
    });
    const checked = await checkApp(dir);
    expect(checked.catalog).toBeUndefined();
    expect(checked.diagnostics).toMatchObject([
      {
        code: "WO4007",
        severity: "error",
        message: expect.stringContaining(`apps found: ${dir} (wo.toml, 1 .wo file), ${dir}/test/fixtures/inner.`),
      },
    ]);
    // wo run refuses to start, and builds nothing.
    const ran = await runToExit([dir, "--listen", "127.0.0.1:0"]);
    expect(ran.code).toBe(1);
    expect(ran.output).toContain("error WO4007");
    expect(ran.output).not.toContain("serving at");
    expect(existsSync(join(dir, ".wo", "build"))).toBe(false);
  });

  it(".wo files without a wo.toml beside apps are named with one of them", async () => {
    const dir = app({ "loose/a.wo": author, "apps/shop/wo.toml": config("shop"), "apps/shop/s.wo": author });
    const checked = await checkApp(dir);
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      `'${dir}' is not one app; apps found: ${dir} (1 .wo file without a wo.toml, e.g. ${dir}/loose/a.wo), ${dir}/apps/shop. wo works on one app at a time (a folder with its wo.toml and the .wo files below it): name one of these folders.`,
    ]);
  });

  it("an app's own tests/ folder is part of it; node_modules (even with a wo.toml) is never read", async () => {
    const dir = app({
      "wo.toml": config("shop"),
      "author.wo": author,
      "tests/authors.wo": 'test "an author" {\n  insert Author { name: "Ada" }\n}\n',
      "node_modules/pkg/wo.toml": config("pkg"),
      "node_modules/pkg/x.wo": "broken {",
    });
    const checked = await checkApp(dir);
    expect(checked.diagnostics).toEqual([]);
    expect(checked.files.map((f) => f.slice(dir.length + 1))).toEqual(["author.wo", "tests/authors.wo"]);
  });
});
