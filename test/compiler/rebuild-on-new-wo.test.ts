// A build is fresh only for the wo that made it (compiler/build-info.ts): a wo whose compiler
// changed without a new version number (a checkout rebuilt, a patched install) rebuilds the app
// instead of serving what the old code generated. A copy of wo's compiled CLI in a temp folder,
// so changing its files disturbs no other test.

import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyApp, removeApp, repoRoot, woNode } from "../support/wo-process.js";

describe("the build's freshness names the wo that made it", () => {
  const wo = mkdtempSync(join(tmpdir(), "wo-copy-"));
  const app = copyApp("samples/hello");
  afterAll(() => {
    rmSync(wo, { recursive: true, force: true });
    removeApp(app);
  });

  const build = () =>
    execFileSync(woNode, [join(wo, "bin/wo.js"), "build", app], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });

  it("a changed compiler file rebuilds an app its old code built; an unchanged wo does not", () => {
    for (const part of ["bin", "dist", "package.json"])
      cpSync(join(repoRoot, part), join(wo, part), { recursive: true });
    symlinkSync(join(repoRoot, "node_modules"), join(wo, "node_modules"));
    expect(build()).not.toMatch(/up to date/);
    expect(build()).toMatch(/up to date/);
    // The same version, other code: what a rebuilt checkout is.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(wo, "dist/compiler/emit/operations.js"), later, later);
    expect(build()).not.toMatch(/up to date/);
    expect(build()).toMatch(/up to date/);
  }, 120_000);
});
