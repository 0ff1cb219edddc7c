// `@search` on SQLite (FTS5, bm25): the shared cases of search.case.ts against `wo run`.

import { afterAll, beforeAll, describe, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { migrationCase, ownerEnv, searchApp, searchCases } from "./search.case.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("@search on SQLite", () => {
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    dir = writeApp("notes", searchApp);
    wo = await startWo([dir, "--listen", "127.0.0.1:0"], { env: ownerEnv });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });
  searchCases(
    () => wo,
    async () => {
      await wo.stop();
      wo = await startWo([dir, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    },
  );
  it("a migration adds and drops the index over stored rows", () => migrationCase([]));
});
