// `wo run --watch` of a workspace's app (spec/language.md, "Workspaces") also watches the
// shared folders its wo.toml names: a save in its fixture's shared folder, outside the app's folder,
// reloads the app like a save in its own folder. A real `wo run --watch`, the served
// /openapi.json as the proof.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let root: string;
let wo: WoProcess;
beforeAll(async () => {
  root = copyApp("test/fixtures/apps/depot");
  wo = await startWo([join(root, "apps/desk"), "--listen", "127.0.0.1:0", "--watch"]);
  while (!wo.output().includes("wo: watching ")) {
    if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${wo.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await wo?.stop();
  if (root) removeApp(root);
});

it("a save in a shared folder outside the app reloads the app", async () => {
  const before = await (await fetch(`${wo.url}/openapi.json`)).text();
  expect(before).not.toContain("weight");
  const crate = join(root, "shared/types/crate.wo");
  writeFileSync(crate, readFileSync(crate, "utf8").replace("units: Int = 0", "units: Int = 0\n  weight: Int = 0"));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const openapi = await (await fetch(`${wo.url}/openapi.json`)).text();
    if (openapi.includes('"weight"')) break;
    if (wo.child.exitCode !== null || Date.now() > deadline) throw new Error(`not reloaded:\n${wo.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(wo.output()).toContain("wo: reloaded: ");
});
