// The Store conformance suite (conformance.ts) on the PostgreSQL store, opened the way wo opens
// it (openStore with a postgres:// URL), against a real server this file starts
// (test/support/postgres.ts), one fresh database per createDatabase().
import { afterAll, beforeAll, describe } from "vitest";
import { tmpdir } from "node:os";
import { openStore } from "../../runtime/store/open.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { storeConformance } from "./conformance.js";

let server: PostgresServer | undefined;

describe("PostgreSQL conformance", () => {
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  storeConformance("PostgreSQL", {
    async createDatabase() {
      const url = await server!.createDatabase();
      return {
        open: (app, options = {}) =>
          openStore({ appDir: tmpdir(), db: url, config: { dataDir: "unused" }, catalog: app, ...options }),
        // Each test's database is left to the server, which the suite removes whole.
        dispose: async () => undefined,
      };
    },
  });
});
