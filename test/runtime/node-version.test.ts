// The Node versions wo claims (package.json `engines`, README "On a fresh machine"): below the
// minimum, `wo` says so before loading anything of its own; on a Node that does not detect ES
// module syntax in a `.js` file (before 22 and 20.19; here the current Node with detection
// turned off), the build still loads, because it carries its own `{"type":"module"}`.
// .ci/run runs the end-to-end suites on the oldest supported Node itself (WO_TEST_NODE).
import { afterAll, describe, expect, it, vi } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { removeApp, repoRoot, woNode, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000 });

const minimum = /^>=(.+)$/.exec(JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).engines.node)![1]!;

/** `wo <args>`; with Node flags on the Node running the tests (an old WO_TEST_NODE may lack them). */
function wo(args: string[], nodeFlags: string[] = []) {
  const node = nodeFlags.length > 0 ? process.execPath : woNode;
  const r = spawnSync(node, [...nodeFlags, join(repoRoot, "bin/wo.js"), ...args], { cwd: repoRoot, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const app = writeApp("modules", {
  "wo.toml": 'name = "modules"\n',
  "note.wo": `type Note {
  id: Id
  title: Text
  service rest "/api/notes" expose list, create
}

test "a note is stored" {
  insert Note { title: "kept" }
  assert count(select Note {}) == 1 otherwise abort "not stored"
}
`,
});
afterAll(() => removeApp(app));

describe("Node versions", () => {
  it("below engines.node, wo names the minimum and the Node it found, and exits 1 before doing anything", () => {
    const olderNode = `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "18.19.0" } })`;
    const r = wo(["build", app], [`--import=data:text/javascript,${encodeURIComponent(olderNode)}`]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `wo: needs Node.js ${minimum} or newer; this is Node.js 18.19.0 (${process.execPath}). Install a newer Node (https://nodejs.org) and run wo with it.\n`,
    );
    expect(existsSync(join(app, ".wo"))).toBe(false);
  });

  it("the build carries package.json {type: module}: wo test loads it without ES module detection", () => {
    const built = wo(["build", app]);
    expect(built.status, built.stderr).toBe(0);
    const plain = wo(["test", app]);
    expect(plain.stdout).toContain("1 passed, 0 failed");
    expect(JSON.parse(readFileSync(join(app, ".wo/build/package.json"), "utf8"))).toEqual({ type: "module" });
    const noDetection = ["--no-experimental-detect-module"];
    const tested = wo(["test", app], noDetection);
    expect(tested.stderr).toBe("");
    expect(tested.stdout).toContain("1 passed, 0 failed");
    expect(tested.status).toBe(0);
    // Without it the same build fails as it did on Node 20.18: the check is not vacuous.
    unlinkSync(join(app, ".wo/build/package.json"));
    const without = wo(["test", app], noDetection);
    expect(without.status).toBe(1);
    expect(without.stderr).toMatch(/validators\.js/);
  });

  // node_modules holds better-sqlite3 built for the Node that ran `npm ci`; the conformance
  // suite's Node 22 (tools/mcp-conformance/ensure.mjs, run before the suite) has another ABI:
  // what a user sees after upgrading Node without reinstalling.
  const node22 = join(repoRoot, "tools/mcp-conformance/node_modules/node22/bin/node");
  const otherAbi =
    existsSync(node22) &&
    spawnSync(node22, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout.trim() !==
      process.versions.modules;
  it.runIf(otherAbi)("on a Node the native store module was not built for, wo says to rebuild it", () => {
    const built = wo(["build", app]);
    expect(built.status, built.stderr).toBe(0);
    const r = spawnSync(node22, [join(repoRoot, "bin/wo.js"), "test", app], { cwd: repoRoot, encoding: "utf8" });
    expect(r.stderr).toContain("run `npm rebuild better-sqlite3` in the folder wo is installed in");
    expect(r.stderr).not.toContain("bug in wo");
    expect(r.status).not.toBe(0);
  });
});
