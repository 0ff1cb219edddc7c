// Builds `.wo` sources in process (check, emit, transpile — what `wo build` does) and binds
// the app's operations over a real SQLite store, so a test can call them as a given principal
// (CallContext.principal, as the HTTP edge will pass it).

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ts } from "ts-morph";
import { expect } from "vitest";
import { compileTypeScript } from "../../compiler/build.js";
import { buildInfoText } from "../../compiler/build-info.js";
import { emitBuild } from "../../compiler/emit/index.js";
import type { CallContext } from "../../model/build-contract.js";
import type { Store } from "../../model/store.js";
import { createApp, type App } from "../../runtime/app.js";
import { loadBuild } from "../../runtime/load-build.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { compileSources } from "../methods/compile-fixture.js";
import { tempDir } from "../support/wo-process.js";

export interface InProcessApp {
  call(op: string, input: unknown, call?: CallContext): Promise<any>;
  app: App;
  store: Store;
  /** The emitted files, by path. */
  files: Map<string, string>;
}

export async function withInProcessApp(
  sources: Record<string, string>,
  use: (served: InProcessApp) => Promise<void>,
): Promise<void> {
  const { catalog, diagnostics } = compileSources(sources);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const emitted = emitBuild(catalog!);
  const built = [
    ...emitted,
    ...compileTypeScript(emitted, ts),
    { path: "build-info.json", text: buildInfoText("test", []) },
  ];
  const dir = tempDir("wo-audit-build-");
  for (const f of built) writeFileSync(join(dir, f.path), f.text);
  try {
    const build = await loadBuild(dir);
    const { store } = await openSqliteStore({
      file: join(dir, "data/app.sqlite"),
      catalog: build.catalog,
      lock: false,
    });
    try {
      const app = await createApp({ build, store, log: () => {} });
      await use({
        app,
        store,
        files: new Map(built.map((f) => [f.path, f.text])),
        call: (op, input, call = {}) => app.operations[op]!(input, call),
      });
      app.close();
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
