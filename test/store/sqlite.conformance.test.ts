// The Store conformance suite (conformance.ts) on the SQLite store, opened the way wo opens it
// (openStore with a database file), one temp folder per database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../runtime/store/open.js";
import { storeConformance } from "./conformance.js";

storeConformance("SQLite", {
  async createDatabase() {
    const dir = mkdtempSync(join(tmpdir(), "wo-conformance-"));
    return {
      open: (app, options = {}) =>
        openStore({ appDir: dir, db: join(dir, "app.sqlite"), config: { dataDir: dir }, catalog: app, ...options }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});
