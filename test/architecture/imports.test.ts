// The layers' import rules (spec/architecture.md, "Layers"): model/ depends on nothing of wo's;
// compiler/ and runtime/ depend on model/ and never on each other; cli/ sits above them all.
// Every static, type-only and dynamic import of every source file is checked.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const layers = ["model", "compiler", "runtime", "cli"] as const;
type Layer = (typeof layers)[number];

/** The layers each layer may import from (besides itself). */
const allowed: Record<Layer, readonly Layer[]> = {
  model: [],
  compiler: ["model"],
  runtime: ["model"],
  cli: ["model", "compiler", "runtime"],
};

/**
 * Every module specifier in a TypeScript source: `import … from "…"` and `export … from "…"`
 * statements (over several lines too), `import "…"`, `import("…")`. A `from '…'` inside a
 * message text is not an import.
 */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  const statement =
    /^\s*(?:import|export)\s[\w\s{},*$]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(statement)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** The wo layer a specifier imported from `file` lands in; undefined for packages and builtins. */
function layerOf(file: string, specifier: string): Layer | "outside" | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = relative(root, resolve(dirname(file), specifier));
  const top = target.split(/[\\/]/)[0]!;
  return (layers as readonly string[]).includes(top) ? (top as Layer) : "outside";
}

/** Broken rules of one file, as "file → specifier" lines. */
export function violations(file: string, text: string): string[] {
  const from = relative(root, file).split(/[\\/]/)[0] as Layer;
  const out: string[] = [];
  for (const s of specifiers(text)) {
    const to = layerOf(file, s);
    if (to === undefined || to === from) continue;
    if (to === "outside" || !allowed[from].includes(to)) out.push(`${relative(root, file)} → ${s}`);
  }
  // The model is data and rules: no package, not even node's, so any program can load it.
  if (from === "model")
    for (const s of specifiers(text)) if (!s.startsWith(".")) out.push(`${relative(root, file)} → ${s}`);
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("layer import rules", () => {
  const files = layers.flatMap((l) => sources(join(root, l)));

  it("finds the sources of every layer", () => {
    for (const l of layers)
      expect(
        files.some((f) => relative(root, f).startsWith(`${l}/`)),
        l,
      ).toBe(true);
  });

  it("no file imports across the rules", () => {
    expect(files.flatMap((f) => violations(f, readFileSync(f, "utf8")))).toEqual([]);
  });

  it("catches each kind of import that breaks them", () => {
    const runtimeFile = join(root, "runtime/x.ts");
    expect(violations(runtimeFile, `import type { Catalog } from "../compiler/catalog.js";`)).toEqual([
      "runtime/x.ts → ../compiler/catalog.js",
    ]);
    expect(violations(runtimeFile, `const m = await import("../cli/main.js");`)).toEqual([
      "runtime/x.ts → ../cli/main.js",
    ]);
    expect(violations(join(root, "compiler/emit/x.ts"), `import { a } from "../../runtime/app.js";`)).toHaveLength(1);
    expect(violations(join(root, "model/x.ts"), `import { Hono } from "hono";`)).toHaveLength(1);
    expect(violations(join(root, "model/x.ts"), `import { toolName } from "./naming.js";`)).toEqual([]);
    expect(violations(join(root, "cli/x.ts"), `import { startServer } from "../runtime/server.js";`)).toEqual([]);
    expect(
      violations(
        runtimeFile,
        `import {\n  a,\n  b,\n} from "../compiler/x.js";\nexport { c } from "../cli/y.js";\nimport "../compiler/z.js";`,
      ),
    ).toHaveLength(3);
    // Words in a message are not an import.
    expect(violations(join(root, "model/x.ts"), "const text = `@unique removed from '${name}'`;")).toEqual([]);
    expect(
      violations(join(root, "model/x.ts"), "export function f(n: string) {\n  return `moved from '${n}'`;\n}"),
    ).toEqual([]);
  });
});
