// Golden tests of generated method code: every exposed method of the samples (and of a
// fixture using every statement) → test/golden/methods/<tool>.ts, byte for byte. Rewrite with
// WO_UPDATE_GOLDEN=1 and review the diff like code. The whole generated operations.ts must
// also type-check (strict) against the real runtime contract (model/build-contract.ts).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Project } from "ts-morph";
import { describe, expect, it, vi } from "vitest";
import type { Catalog } from "../../compiler/catalog.js";
import { emitMethodHandler } from "../../compiler/emit/methods.js";
import { emitOperations } from "../../compiler/emit/operations.js";
import { toolName } from "../../model/naming.js";
import { compileSources, sampleSources } from "./compile-fixture.js";
import { everyStatementApp } from "./every-statement.js";

// A strict type-check of a whole operations.ts takes seconds on a busy two-core machine.
vi.setConfig({ testTimeout: 60_000 });

const goldenDir = join(import.meta.dirname, "../golden/methods");
const update = process.env.WO_UPDATE_GOLDEN === "1";

function catalogOf(files: Record<string, string>, name: string): Catalog {
  const { catalog, diagnostics } = compileSources(files, name);
  if (!catalog)
    throw new Error(
      diagnostics.map((d) => `${d.span.file}:${d.span.line}:${d.span.col} ${d.code} ${d.message}`).join("\n"),
    );
  return catalog;
}

const apps: [name: string, files: Record<string, string>][] = [
  ["pricing", sampleSources("pricing")],
  ["ledger", sampleSources("ledger")],
  ["orders", sampleSources("orders")],
  ["every", { "every.wo": everyStatementApp }],
];

const emitted = new Map<string, string>();
for (const [name, files] of apps) {
  const catalog = catalogOf(files, name);
  for (const type of catalog.types) {
    for (const method of type.methods) {
      const tool = toolName(type.name, method.name);
      emitted.set(`${tool}.ts`, `${emitMethodHandler(catalog, type, method, tool)}\n`);
    }
  }
}

describe("generated method code (golden)", () => {
  if (update) {
    mkdirSync(goldenDir, { recursive: true });
    for (const [file, text] of emitted) writeFileSync(join(goldenDir, file), text);
  }

  it.each([...emitted.keys()])("%s matches its golden file", (file) => {
    const path = join(goldenDir, file);
    expect(existsSync(path), `missing golden ${file}: run with WO_UPDATE_GOLDEN=1`).toBe(true);
    expect(emitted.get(file)).toBe(readFileSync(path, "utf8"));
  });

  it("has no stale golden files", () => {
    const stale = readdirSync(goldenDir).filter((f) => !emitted.has(f));
    expect(stale).toEqual([]);
  });

  it("is deterministic", () => {
    const [name, files] = apps[1]!;
    const again = catalogOf(files, name);
    const t = again.types.find((x) => x.name === "Account")!;
    expect(`${emitMethodHandler(again, t, t.methods.find((m) => m.name === "transfer")!, "account_transfer")}\n`).toBe(
      emitted.get("account_transfer.ts"),
    );
  });

  it("maps every statement back to its .wo line", () => {
    const text = emitted.get("account_transfer.ts")!;
    const lines = everyLine(sampleSources("ledger")["account.wo"]!, "fn transfer", "return self");
    for (const line of lines) expect(text).toContain(`// account.wo:${line}\n`);
  });

  it.each(apps.map(([name]) => name))(
    "operations.ts of %s type-checks strictly against model/build-contract.ts",
    (name) => {
      const files = apps.find((a) => a[0] === name)![1];
      const operations = emitOperations(catalogOf(files, name));
      const root = resolve(import.meta.dirname, "../..");
      const project = new Project({
        compilerOptions: {
          strict: true,
          target: 9 /* ES2022 */,
          module: 199 /* NodeNext */,
          moduleResolution: 99 /* NodeNext */,
          skipLibCheck: true,
          noEmit: true,
          types: ["node"],
          paths: { "wo/model/build-contract": [join(root, "model/build-contract.ts")] },
        },
        skipAddingFilesFromTsConfig: true,
      });
      const file = project.createSourceFile(
        join(root, "test/methods/.generated", `${name}-operations.ts`),
        operations.text,
        { overwrite: true },
      );
      const problems = file
        .getPreEmitDiagnostics()
        .map((d) => `${d.getLineNumber()}: ${project.formatDiagnosticsWithColorAndContext([d])}`);
      expect(problems).toEqual([]);
    },
  );
});

/** Line numbers of statement lines in `text` from the line containing `from` up to `to`. */
function everyLine(text: string, from: string, to: string): number[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.includes(from));
  const end = lines.findIndex((l, i) => i > start && l.includes(to));
  const out: number[] = [];
  for (let i = start + 1; i <= end; i++) if (lines[i]!.trim() !== "") out.push(i + 1);
  return out;
}
