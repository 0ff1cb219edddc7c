// buildApp and `wo build` over the real samples, in temp copies: golden manifests and schemas,
// byte-identical rebuilds, the up-to-date skip, all-or-nothing output, unwritable --out.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../compiler/build.js";
import { main } from "../../cli/main.js";
import { manifestTool, type BuildSchemas, type Manifest, type ValidatorsModule } from "../../model/build-contract.js";
import { loadBuild } from "../../runtime/load-build.js";
import SwaggerParser from "@apidevtools/swagger-parser";
import ts from "typescript";
import { createInputAjv } from "../../compiler/input-ajv.js";

// Each sample's first build type-checks and validates everything on a busy two-core machine:
// 17 s measured under heavy load, too close to the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

const repo = process.cwd();
const temp = mkdtempSync(join(tmpdir(), "wo-build-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const samples = readdirSync(join(repo, "samples"))
  .filter((n) => existsSync(join(repo, "samples", n, "wo.toml")))
  .sort();
const goldenRoot = join(repo, "test", "golden", "build");
const updating = process.env.WO_UPDATE_GOLDEN === "1";

function copySample(name: string): string {
  const dir = mkdtempSync(join(temp, `${name}-`));
  cpSync(join(repo, "samples", name), dir, { recursive: true, filter: (src) => !src.includes("/.wo") });
  return dir;
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), "utf8");
  return out;
}

/** Runs `wo build` in-process and captures what a user sees. */
async function wo(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => {
    stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await main(["build", ...args]), stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

describe.each(samples)("samples/%s", (sample) => {
  it("builds, matches the golden manifest and schemas, and rebuilds byte-identically", async () => {
    const dir = copySample(sample);
    const first = await buildApp(dir);
    expect(first.error).toBeUndefined();
    expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(first.ok).toBe(true);
    const outDir = join(dir, ".wo", "build");
    expect(first.outDir).toBe(outDir);
    const files = snapshot(outDir);
    expect(Object.keys(files)).toEqual([
      "app.json",
      "build-info.json",
      "manifest.json",
      "openapi.json",
      "operation-faces.json",
      "operations.d.ts",
      "operations.js",
      "operations.ts",
      "package.json",
      "schemas.json",
      "types.d.ts",
      "validators.d.ts",
      "validators.js",
      "validators.ts",
    ]);
    for (const golden of ["manifest.json", "schemas.json"]) {
      const path = join(goldenRoot, sample, golden);
      if (updating) {
        mkdirSync(join(goldenRoot, sample), { recursive: true });
        writeFileSync(path, files[golden]!);
      }
      expect(existsSync(path), `missing golden ${path} (WO_UPDATE_GOLDEN=1 writes it)`).toBe(true);
      expect(files[golden], `${golden} differs from ${path} (WO_UPDATE_GOLDEN=1 rewrites it)`).toBe(
        readFileSync(path, "utf8"),
      );
    }
    const again = await buildApp(dir, { force: true });
    expect(again.ok && !again.skipped).toBe(true);
    expect(snapshot(outDir)).toEqual(files);

    // The emitted validators and operations load from the build folder (no node_modules there).
    const validators = (await import(pathToFileURL(join(outDir, "validators.js")).href)) as ValidatorsModule;
    const table = validators.createValidators(createRequire(join(repo, "runtime", "build.ts")));
    // One per operation input, and one per live stream's filters (runtime/rest/routes.ts checks them).
    const liveFilters = Object.keys(table).filter((k) => k.endsWith(" live filters"));
    expect(
      Object.keys(table)
        .filter((k) => !liveFilters.includes(k))
        .sort(),
    ).toEqual(Object.keys(JSON.parse(files["schemas.json"]!).inputs));
    const { types } = JSON.parse(files["app.json"]!) as { types: { snake: string; rest: { ops: string[] }[] }[] };
    const subscribed = types.filter((t) => t.rest.some((b) => b.ops.includes("subscribe")));
    expect(liveFilters).toEqual(subscribed.map((t) => `${t.snake} live filters`).sort());
    expect(files["operations.js"]).not.toMatch(/^import\s/m);

    // Every schema compiles in strict mode; the OpenAPI document validates; types.d.ts type-checks.
    const ajv = createInputAjv({ standalone: false });
    const all = JSON.parse(files["schemas.json"]!) as BuildSchemas;
    for (const group of [all.rows, all.inputs, all.outputs])
      for (const schema of Object.values(group)) ajv.compile(schema);
    await SwaggerParser.validate(JSON.parse(files["openapi.json"]!));
    const program = ts.createProgram([join(outDir, "types.d.ts")], {
      strict: true,
      noEmit: true,
      lib: ["lib.es5.d.ts"],
      types: [],
    });
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual(
      [],
    );
    await import(pathToFileURL(join(outDir, "operations.js")).href);
  });
});

it("no stale goldens: every golden build folder belongs to a sample", () => {
  expect(readdirSync(goldenRoot).sort()).toEqual(samples);
});

describe("up to date, failures and the CLI", () => {
  it("skips an up-to-date build and rebuilds after a source change", async () => {
    const dir = copySample("hello");
    const out = join(temp, "hello-out");
    expect((await wo([dir, "--out", out])).code).toBe(0);
    const info = JSON.parse(readFileSync(join(out, "build-info.json"), "utf8"));
    expect(Object.keys(info)).toEqual(["woVersion", "buildFormat", "inputHash", "warnings"]);
    const mtime = statSync(join(out, "manifest.json")).mtimeMs;
    const second = await wo([dir, "--out", out]);
    expect(second).toMatchObject({ code: 0, stderr: "" });
    expect(second.stdout).toMatch(/up to date/);
    expect(statSync(join(out, "manifest.json")).mtimeMs).toBe(mtime);

    const wo0 = readdirSync(dir).find((f) => f.endsWith(".wo"))!;
    writeFileSync(join(dir, wo0), `${readFileSync(join(dir, wo0), "utf8")}\n-- a comment changes the hash\n`);
    const third = await wo([dir, "--out", out]);
    expect(third.code).toBe(0);
    expect(third.stdout).toMatch(/\d+ tools, \d+ routes, 14 files written/);
    expect(JSON.parse(readFileSync(join(out, "build-info.json"), "utf8")).inputHash).not.toBe(info.inputHash);
  });

  it("an up-to-date build shows the warnings its check reported, without checking again", async () => {
    const dir = copySample("blog");
    // A block wo keeps as text: a warning the check reports (the sample itself has none).
    writeFileSync(join(dir, "extra.wo"), "##ui\n<p>hello</p>\n");
    const out = join(temp, "blog-warnings-out");
    const first = await wo([dir, "--out", out]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/extra\.wo:1:1: warning WO2109: /);
    const second = await wo([dir, "--out", out]);
    expect(second.stdout).toMatch(/up to date/);
    expect(second.stderr).toBe(first.stderr);
  });

  it("a build made for another build format is rebuilt by wo build and refused by the runtime", async () => {
    const dir = copySample("hello");
    const out = join(temp, "hello-format-out");
    expect((await wo([dir, "--out", out])).code).toBe(0);
    // What a build from before the format existed looks like: same sources, no buildFormat.
    const infoFile = join(out, "build-info.json");
    const { buildFormat: _, ...older } = JSON.parse(readFileSync(infoFile, "utf8"));
    writeFileSync(infoFile, JSON.stringify(older));
    await expect(loadBuild(out)).rejects.toThrow(
      /built by another wo \(build format 1; this wo runs format \d+\); run `wo build` again/,
    );
    const again = await wo([dir, "--out", out]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/up to date/);
    expect((await loadBuild(out)).catalog.operations.length).toBeGreaterThan(0);
  });

  it("app.json leaves the operations' faces to operation-faces.json, which a loaded build keeps as it was read", async () => {
    const dir = copySample("hello");
    const out = join(temp, "hello-faces-out");
    expect((await wo([dir, "--out", out])).code).toBe(0);
    const app = JSON.parse(readFileSync(join(out, "app.json"), "utf8")) as { operations: Record<string, unknown>[] };
    expect(app.operations.length).toBeGreaterThan(0);
    for (const entry of app.operations) {
      expect(Object.keys(entry)).not.toContain("inputSchema");
      expect(Object.keys(entry)).not.toContain("description");
    }
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Manifest;
    const loaded = await loadBuild(out);
    // A rebuild replaces the folder while the loaded build may still serve (`wo run --watch`).
    const faces = join(out, "operation-faces.json");
    writeFileSync(faces, "{");
    expect(loaded.catalog.operations.filter((o) => o.mcp).map(manifestTool)).toEqual(manifest.tools);
    for (const entry of loaded.catalog.operations)
      expect(entry.inputNames).toEqual(Object.keys((entry.inputSchema as { properties: object }).properties));
    // A damaged file still loads (nothing is parsed until shown); the first read names it.
    const damaged = await loadBuild(out);
    expect(() => damaged.catalog.operations[0]!.inputSchema).toThrow(/operation-faces\.json is not valid JSON/);
  });

  it("a build with errors prints diagnostics, exits 1 and leaves the previous build untouched", async () => {
    const dir = copySample("hello");
    const out = join(temp, "hello-broken-out");
    expect((await wo([dir, "--out", out])).code).toBe(0);
    const before = snapshot(out);
    writeFileSync(join(dir, "broken.wo"), "type Broken {\n  title: Strng\n}\n");
    const result = await wo([dir, "--out", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/broken\.wo:2:\d+: error WO\d{4}: .*Strng/);
    expect(result.stderr).toMatch(/nothing written/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(temp).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });

  it("an unwritable --out gives one clear line and exit 1", async () => {
    const dir = copySample("hello");
    const file = join(temp, "a-file");
    writeFileSync(file, "x");
    const r = await wo([dir, "--out", join(file, "build")]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^wo build: cannot write the build to .*a-file\/build: /);
  });

  it.runIf(existsSync("/proc/self"))("an --out on a special file system fails cleanly instead of hanging", async () => {
    const r = await wo([copySample("hello"), "--out", "/proc/wo-nope/build"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^wo build: cannot write the build to \/proc\/wo-nope\/build: /);
  });

  it("never replaces a folder that is not a previous build", async () => {
    const dir = copySample("hello");
    const out = join(temp, "precious");
    mkdirSync(out);
    writeFileSync(join(out, "notes.txt"), "keep me");
    const r = await wo([dir, "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not empty and holds no wo build/);
    expect(readFileSync(join(out, "notes.txt"), "utf8")).toBe("keep me");
  });

  it("usage mistakes exit 2", async () => {
    expect((await wo(["--bogus"])).code).toBe(2);
    expect((await wo(["a", "b"])).code).toBe(2);
    expect((await wo(["--out"])).code).toBe(2);
  });

  it("a missing directory is a diagnostic, not a crash", async () => {
    const r = await wo([join(temp, "nope")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/WO4002/);
  });
});
