// Workspaces (spec/language.md, "Workspaces"; WO4008, WO4009): an app's `[dependencies] shared`
// folders join its program with their real paths in diagnostics; a workspace root checks and
// tests its own program (shared folders + tests/) and each app, and refuses to run or build.
// test/fixtures/apps/depot is the workspace: apps/counter and apps/desk over shared/types and
// shared/logic, a shared/styles folder without .wo files, and a test at the root.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashInputs } from "../../compiler/build-info.js";
import { workspaceRefusal } from "../../compiler/check/layout.js";
import { checkApp } from "../../compiler/index.js";
import { copyApp, removeApp, runWoCommand } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 60_000 });

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) removeApp(dir);
});
function depot(): string {
  const dir = copyApp("test/fixtures/apps/depot");
  made.push(dir);
  return dir;
}

describe("an app with shared folders", () => {
  it("compiles the shared folders' .wo files as part of the app, and none of the layout keys is unknown", async () => {
    const dir = depot();
    const checked = await checkApp(join(dir, "apps/counter"));
    expect(checked.diagnostics).toEqual([]);
    expect(checked.catalog?.types.map((t) => t.name)).toEqual(["Crate", "Tally"]);
    expect(checked.files).toEqual([
      `${dir}/shared/logic/restock.wo`,
      `${dir}/shared/types/crate.wo`,
      `${dir}/apps/counter/tally.wo`,
    ]);
    // The root's own wo.toml (kind, [workspace]) is no unknown key either.
    expect((await checkApp(dir)).diagnostics).toEqual([]);
  });

  it("names a shared file by its real path in a diagnostic", async () => {
    const dir = depot();
    const crate = join(dir, "shared/types/crate.wo");
    writeFileSync(crate, readFileSync(crate, "utf8").replace("units: Int = 0", "units: Integer = 0"));
    const checked = await checkApp(join(dir, "apps/desk"));
    expect(checked.catalog).toBeUndefined();
    expect(checked.diagnostics.map((d) => `${d.span.file}:${d.span.line}:${d.span.col} ${d.code}`)).toContain(
      `${dir}/shared/types/crate.wo:3:10 WO2001`,
    );
  });

  it("a shared folder that is missing, outside the workspace, or of an app in no workspace: WO4008 at its line", async () => {
    const dir = depot();
    const toml = join(dir, "apps/desk/wo.toml");
    writeFileSync(
      toml,
      'name = "desk"\n\n[dependencies]\nshared = [\n  "../../shared/types",\n  "../../shraed/types",\n  "../../../elsewhere",\n]\n',
    );
    const checked = await checkApp(join(dir, "apps/desk"));
    expect(checked.catalog).toBeUndefined();
    expect(checked.diagnostics.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`)).toEqual([
      "6:3 WO4008 Folder '../../shraed/types' does not exist.",
      `7:3 WO4008 Folder '../../../elsewhere' is outside the workspace root '${dir}': a shared folder lies inside it.`,
    ]);
    // The same app on its own (its folder copied out of the workspace): no workspace above it.
    writeFileSync(join(dir, "wo.toml"), 'name = "depot"\n');
    const alone = await checkApp(join(dir, "apps/desk"));
    expect(alone.diagnostics.find((d) => d.code === "WO4008")).toMatchObject({
      code: "WO4008",
      span: { line: 5, col: 3 },
      message:
        "Folder '../../shared/types' is outside any workspace: no folder above the app has a wo.toml with [workspace].",
    });
  });

  it("an app listed in [workspace] apps without a wo.toml: WO4008 at the root's wo.toml", async () => {
    const dir = depot();
    writeFileSync(join(dir, "wo.toml"), '[workspace]\napps = ["apps/counter", "shared/types"]\n');
    const checked = await checkApp(dir);
    expect(checked.diagnostics.map((d) => `${d.span.file}:${d.span.line}:${d.span.col} ${d.message}`)).toEqual([
      `${dir}/wo.toml:2:25 Folder 'shared/types' has no wo.toml: an app is a folder with one.`,
    ]);
  });

  it("build freshness covers the shared files: changing one changes the app's input hash", async () => {
    const dir = depot();
    const app = join(dir, "apps/counter");
    const before = await hashInputs(app);
    expect(before).toBeDefined();
    writeFileSync(
      join(dir, "shared/logic/restock.wo"),
      `${readFileSync(join(dir, "shared/logic/restock.wo"), "utf8")}\n`,
    );
    expect(await hashInputs(app)).not.toBe(before);
  });
});

describe("a workspace root", () => {
  it("wo check checks the workspace's program and each app, one summary line each", async () => {
    const dir = depot();
    const r = await runWoCommand(["check", dir]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        `${dir}: 1 type, 1 service, 0 methods, 3 tools — ok`,
        `${dir}/apps/counter: 2 types, 2 services, 0 methods, 6 tools — ok`,
        `${dir}/apps/desk: 2 types, 2 services, 0 methods, 5 tools — ok`,
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
  });

  it("wo test runs the root's tests against the shared program, then each app's own", async () => {
    const dir = depot();
    const r = await runWoCommand(["test", dir]);
    expect(r.stdout.replace(/\(\d+ms\)/g, "(…)")).toBe(
      [
        "✔ restock adds units (…)",
        `${dir}/apps/counter:`,
        "✔ a tally names a shared crate (…)",
        "2 passed, 0 failed",
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
  });

  it("wo run and wo build refuse it, naming the apps (WO4009)", async () => {
    const dir = depot();
    expect(workspaceRefusal(dir, "run")?.diagnostics.map((d) => d.code)).toEqual(["WO4009"]);
    expect(workspaceRefusal(join(dir, "apps/desk"), "run")).toBeUndefined();
    for (const command of ["run", "build"]) {
      const r = await runWoCommand([command, dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `${dir}/wo.toml:6:1: error WO4009: '${dir}' is a workspace, not one app; its apps: ${dir}/apps/counter, ${dir}/apps/desk. wo ${command} works on one app: name one of them (wo check and wo test take the workspace).`,
      );
    }
  });
});
