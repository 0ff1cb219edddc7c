// A build loaded while another process swaps a fresh build into the same folder (two `wo run`
// of one app started together, `wo build` beside a `--watch`; runtime/load-build.ts): every
// load succeeds, and all its parts come from one build — never app.json of one and the
// validators of the other. Real builds of two different apps written, in turn, to one folder.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildApp } from "../../compiler/build.js";
import { removeApp, repoRoot, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 180_000 });

const typeText = (name: string, path: string) => `type ${name} {
  id: Id
  title: Text
  service rest "/api/${path}" expose list, get, create
}
`;

let small: string;
let large: string;
beforeAll(() => {
  small = writeApp("swap-small", { "wo.toml": 'name = "swap"\n', "a.wo": typeText("Note", "notes") });
  large = writeApp("swap-large", {
    "wo.toml": 'name = "swap"\n',
    "a.wo": typeText("Note", "notes"),
    "b.wo": typeText("Tag", "tags"),
  });
});
afterAll(() => {
  removeApp(small);
  removeApp(large);
});

// The loads run in a node process of their own, on wo's dist, as `wo run` loads a build: a
// module import inside vitest goes through its module runner, not node's loader.
const loader = `
import { loadBuild } from ${JSON.stringify(pathToFileURL(join(repoRoot, "dist/runtime/load-build.js")).href)};
const [out, stop] = process.argv.slice(1);
let loads = 0;
const seen = new Set();
while (!existsSync(stop)) {
  const build = await loadBuild(out);
  const operations = build.catalog.operations.map((o) => o.name).sort().join(",");
  // The validators are another file of the build: they must be that same build's.
  const validators = Object.keys(build.validators).sort().join(",");
  if (validators !== operations) throw new Error("mixed build: " + operations + " / " + validators);
  seen.add(build.catalog.operations.length);
  loads++;
}
console.log(JSON.stringify({ loads, seen: [...seen].sort() }));
`;

it("loads one whole build while builds of two apps are swapped into its folder", async () => {
  const out = join(small, ".wo", "shared-build");
  const stop = join(small, "stop");
  expect((await buildApp(small, { out })).ok).toBe(true);
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", `import { existsSync } from "node:fs";${loader}`, out, stop],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  for (let i = 0; i < 10; i++) {
    const result = await buildApp(i % 2 === 0 ? large : small, { out, force: true });
    expect(result.ok, result.error).toBe(true);
  }
  writeFileSync(stop, "");
  expect(await exited, output).toBe(0);
  const { loads, seen } = JSON.parse(output) as { loads: number; seen: number[] };
  expect(loads).toBeGreaterThan(5);
  // Both apps were loaded: the loads did overlap the swaps.
  expect(seen).toEqual([3, 6]);
});
