// `wo check` end to end through the real binary (node bin/wo.js). bin/wo.js runs dist/, which
// `npm test` builds before vitest starts; run `npm run build` first when running this file alone.
// The test does not rebuild dist/ itself: a second tsc on two cores, racing others' builds.

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
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

describe("wo check", () => {
  it("a clean sample: exit 0 and a one-line summary", () => {
    const r = wo("check", "samples/pricing");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("samples/pricing: 2 types, 3 services, 3 methods, 9 tools — ok\n");
  });

  it("a sample with inert policies: exit 0, warnings on stderr, counted in the summary", () => {
    const r = wo("check", "samples/blog");
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^samples\/blog\/authors\.wo:12:3: warning WO2101: /m);
    expect(r.stdout).toMatch(/^samples\/blog: 5 types, 5 services, 0 methods, 23 tools — ok \(\d+ warnings\)\n$/);
  });

  it("a broken file: exit 1, path:line:col and a caret on stderr", () => {
    const dir = writeApp({ "shop.wo": "type Item {\n  name: Text\n  price: Mony\n  service rest \"/api/items\" expose list, lsit\n}\n" });
    dirs.push(dir);
    const r = wo("check", dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${dir}/shop.wo:3:10: error WO2001: Unknown type 'Mony'.`);
    expect(r.stderr).toContain(`${dir}/shop.wo:4:42: error WO3001: 'lsit' is not an operation or method of 'Item'. Did you mean 'list'?`);
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
    const r = spawnSync(process.execPath, [join(root, "bin/wo.js"), "check"], { cwd: join(root, "samples", "hello"), encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(".: 1 type, 1 service, 0 methods, 5 tools — ok\n");
  });
});

