// What `wo run` loads to serve a SQLite app (spec/architecture.md "Build and start-up cost"):
// not pg (nor the rest of the PostgreSQL store's packages), and not TypeScript when the build is
// up to date. Seen from inside the real process: a preloaded module (node --import) lists the
// packages in the CommonJS cache, where node keeps every CommonJS package even when an ES
// module imports it, as the server exits.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { copyApp, removeApp, runWoCommand, startWo, tempDir, type WoProcess } from "../support/wo-process.js";

let app: string | undefined;
let server: WoProcess | undefined;
afterEach(async () => {
  await server?.stop();
  if (app) removeApp(app);
  server = undefined;
  app = undefined;
});

it("a SQLite app serves without loading pg or TypeScript (the build is up to date)", async () => {
  app = copyApp("samples/hello");
  expect((await runWoCommand(["build", app])).code).toBe(0);
  const dir = tempDir("wo-startup-modules-");
  const list = join(dir, "loaded.json");
  const hook = join(dir, "list-packages.mjs");
  writeFileSync(
    hook,
    [
      'import { createRequire } from "node:module";',
      'import { writeFileSync } from "node:fs";',
      "const cache = createRequire(import.meta.url).cache;",
      'process.on("exit", () => {',
      '  const names = Object.keys(cache).filter((k) => k.includes("/node_modules/")).map((k) => k.split("/node_modules/").pop().split("/")[0]);',
      `  writeFileSync(${JSON.stringify(list)}, JSON.stringify([...new Set(names)].sort()));`,
      "});",
      "",
    ].join("\n"),
  );
  server = await startWo([app, "--listen", "127.0.0.1:0"], { env: { NODE_OPTIONS: `--import ${hook}` } });
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  await server.stop();
  const loaded = JSON.parse(readFileSync(list, "utf8")) as string[];
  rmSync(dir, { recursive: true, force: true });
  // The check can fail: the SQLite store's own package is in the list.
  expect(loaded).toContain("better-sqlite3");
  for (const absent of ["pg", "pg-pool", "ts-morph", "typescript"]) expect(loaded).not.toContain(absent);
});
