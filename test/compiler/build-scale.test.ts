// Builds and start-up grow linearly with the app (spec/architecture.md "Build and start-up
// cost"). A 1,000-type build once took 549 s because helpers rebuilt a map of every type per
// field, or walked every field of every type per type: each such question turns a linear step
// quadratic, and nesting two made it cubic. Checked on the compile bench's synthetic app
// (bench/compile/synthetic.mjs) at 50 and 400 types, 8× apart:
// - emit and the runtime's start-up tables, by counting reads of the catalog's types and
//   fields arrays: exact and immune to machine load (linear is 8×; a scan per type is 64×);
// - check and emit together, by CPU time, best of three, against a quadratic's 64×.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSyntheticApp } from "../../bench/compile/synthetic.mjs";
import type { Catalog } from "../../compiler/catalog.js";
import { emitBuildFiles } from "../../compiler/emit/index.js";
import { checkApp } from "../../compiler/index.js";
import { referableTables } from "../../compiler/emit/ref-checks.js";
import { createOperationRuntime, refColumnsByTable } from "../../runtime/operations/runtime.js";
import type { AppContract } from "../../model/build-contract.js";
import type { Store } from "../../model/store.js";

const small = 50;
const large = 400;
const growth = large / small;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "wo-build-scale-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function checkedApp(types: number): Promise<Catalog> {
  const dir = join(root, String(types));
  mkdirSync(dir);
  writeSyntheticApp(dir, { types, files: 10 });
  const { catalog, diagnostics } = await checkApp(dir);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return catalog!;
}

/** The catalog with its types and fields arrays counting every element read. */
function counting(catalog: Catalog): { catalog: Catalog; reads: () => number } {
  let reads = 0;
  const count = <T extends object[]>(items: T): T =>
    new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
  for (const t of catalog.types) t.fields = count(t.fields);
  catalog.types = count(catalog.types);
  return {
    catalog,
    reads: () => {
      const n = reads;
      reads = 0;
      return n;
    },
  };
}

/** Every file of the build rendered, as `wo build` writes them. */
function emitAll(catalog: Catalog): number {
  let chars = 0;
  for (const f of emitBuildFiles(catalog).files) {
    if ("text" in f) chars += f.text.length;
    else for (const piece of f.chunks) chars += piece.length;
  }
  return chars;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe("referableTables: whose deletes can be refused (409), for the whole catalog at once", () => {
  it("a ref anywhere counts; a link's endpoints count only while a value holds the link, along links of links", async () => {
    const dir = join(root, "referable");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "app.wo"),
      [
        "type Author { name: Text }",
        "type Post { title: Text\n  by: [ref Author]? }",
        "type Tag { label: Text }",
        "type Student { name: Text }",
        "type Course { name: Text }",
        "type Tagging link Post -> Tag { note: Text? }",
        "type Enrolment link Student -> Course { year: Int }",
        "type Grade link Enrolment -> Tag { mark: Int }",
        "type Transcript { entry: { grade: ref Grade }? }",
        "",
      ].join("\n"),
    );
    const { catalog, diagnostics } = await checkApp(dir);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // Author: a ref inside an array. Grade: a ref inside a struct, so its endpoints Enrolment
    // and Tag count, and so Enrolment's, Student and Course. Tagging is held by nothing, so
    // Post is not referable through it.
    expect([...referableTables(catalog!)].sort()).toEqual(["author", "course", "enrolment", "grade", "student", "tag"]);
  });
});

describe("build and start-up cost", () => {
  it(`emitting ${large} types reads the catalog ${growth}× as often as ${small} types, not quadratically more`, {
    timeout: 120_000,
  }, async () => {
    const reads: Record<string, Record<number, number>> = { emit: {}, refs: {}, runtime: {} };
    for (const types of [small, large]) {
      const { catalog, reads: take } = counting(await checkedApp(types));
      take();
      expect(emitAll(catalog)).toBeGreaterThan(types * 1000);
      reads.emit![types] = take();
      referableTables(catalog);
      refColumnsByTable(catalog);
      reads.refs![types] = take();
      // What `wo run` derives from app.json before it serves (the operations table included).
      const app = { ...catalog, operations: [], runtimeRoutes: [], resourceTemplates: [] } as unknown as AppContract;
      createOperationRuntime({ catalog: app, store: {} as Store, validators: {}, log: () => {} });
      reads.runtime![types] = take();
    }
    for (const [step, byTypes] of Object.entries(reads)) {
      const ratio = byTypes[large]! / byTypes[small]!;
      // Linear is 8× (exactly, on this app); a scan of every type per type would be 64×.
      expect(ratio, `${step}: ${JSON.stringify(byTypes)}`).toBeLessThan(growth * 1.5);
    }
  });

  it(`checking and emitting ${large} types costs under ${growth * 2.5}× the CPU of ${small} (a quadratic: ${growth ** 2}×)`, {
    timeout: 120_000,
  }, async () => {
    const cost = async (types: number) => {
      const dir = join(root, `timed-${types}`);
      mkdirSync(dir, { recursive: true });
      writeSyntheticApp(dir, { types, files: 10 });
      let best = Infinity;
      for (let round = 0; round < 3; round++) {
        const start = cpuMs();
        const { catalog } = await checkApp(dir);
        emitAll(catalog!);
        best = Math.min(best, cpuMs() - start);
      }
      return best;
    };
    await cost(small); // warm up the JIT, so the small app is not charged for compiling wo
    const ratio = (await cost(large)) / (await cost(small));
    expect(ratio).toBeLessThan(growth * 2.5);
  });
});
