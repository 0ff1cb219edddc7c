// `@search` on PostgreSQL (generated tsvector, GIN, ts_rank): the cases of search.case.ts.

import { afterAll, beforeAll, describe, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { migrationCase, ownerEnv, searchApp, searchCases } from "./search.case.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

describe("@search on PostgreSQL", () => {
  let server: PostgresServer;
  let db: string;
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    server = await startPostgres();
    db = await server.createDatabase();
    dir = writeApp("notes", searchApp);
    wo = await startWo([dir, "--db", db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
    await server?.stop();
  });
  searchCases(
    () => wo,
    async () => {
      await wo.stop();
      wo = await startWo([dir, "--db", db, "--listen", "127.0.0.1:0"], { env: ownerEnv });
    },
  );
  it("a migration adds and drops the index over stored rows", async () =>
    migrationCase(["--db", await server.createDatabase()]));
});
