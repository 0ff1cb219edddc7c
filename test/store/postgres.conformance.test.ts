// The Store conformance suite (conformance.ts) on the PostgreSQL store, against a real server
// this file starts (test/support/postgres.ts), one fresh database per createDatabase().
import { afterAll, beforeAll, describe } from "vitest";
import { openPostgresStore } from "../../runtime/store/postgres/store.js";
import { postgresUnavailable, startPostgres, type PostgresServer } from "../support/postgres.js";
import { storeConformance } from "./conformance.js";

let server: PostgresServer | undefined;

describe.skipIf(postgresUnavailable !== undefined)(`PostgreSQL conformance${postgresUnavailable ? ` (skipped: ${postgresUnavailable})` : ""}`, () => {
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
        open: (app, options = {}) => openPostgresStore({ url, catalog: app, ...options }),
        // Each test's database is left to the server, which the suite removes whole.
        dispose: async () => undefined,
      };
    },
  });
});
