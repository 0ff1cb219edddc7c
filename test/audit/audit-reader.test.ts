// `wo audit` reads the trail from outside the server that writes it (runtime/store/audit-reader.ts):
// read-only, without the data folder's lock or a migration, on SQLite and on PostgreSQL, while
// the store that writes it is open.

import { join } from "node:path";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuditRecord, Store } from "../../model/store.js";
import { openAuditReader } from "../../runtime/store/audit-reader.js";
import { openStore } from "../../runtime/store/open.js";
import { StoreOpenError } from "../../model/store.js";
import { catalog, field, scalar, type } from "../store/fixture.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { tempDir } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = catalog(type("Note", [field("text", scalar("Text"))]));
const base = Date.now() - 600_000;
const record = (n: number): AuditRecord => ({
  at: new Date(base + n * 60_000).toISOString(),
  principal: n === 2 ? "agent" : "owner",
  user: n === 2 ? "42" : null,
  role: null,
  via: n === 2 ? "token" : "owner",
  surface: "rest",
  operation: "note_create",
  type: "Note",
  rowId: n,
  outcome: "ok",
});

async function writeThree(store: Store): Promise<void> {
  for (let n = 1; n <= 3; n++)
    await store.write(async (tx) => {
      await tx.insert("note", { text: `n${n}` });
      await tx.appendAudit(record(n));
    });
}

describe("the audit reader", () => {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("SQLite: reads while the writing store holds the data folder, with filters and pages", async () => {
    const dir = tempDir("wo-audit-reader-");
    try {
      const { store } = await openStore({ appDir: dir, config: { dataDir: "data" }, catalog: app });
      try {
        await writeThree(store);
        const reader = await openAuditReader({ appDir: dir, config: { dataDir: "data" } });
        try {
          expect((await reader.read({ limit: 10 })).entries.map((e) => e.rowId)).toEqual([1, 2, 3]);
          expect((await reader.read({ limit: 10, user: "42" })).entries.map((e) => e.principal)).toEqual(["agent"]);
          const first = await reader.read({ limit: 2 });
          expect(first.more).toBe(true);
          expect((await reader.read({ limit: 2, after: first.entries[1]!.seq })).entries.map((e) => e.rowId)).toEqual([
            3,
          ]);
          expect(reader.description).toBe(join(dir, "data", "app.sqlite"));
        } finally {
          await reader.close();
        }
      } finally {
        await store.close();
      }
      await expect(openAuditReader({ appDir: dir, config: { dataDir: "elsewhere" } })).rejects.toThrow(StoreOpenError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("PostgreSQL: reads the one trail every instance writes", async () => {
    const url = await server!.createDatabase();
    const { store } = await openStore({ appDir: tempDir(), db: url, config: { dataDir: "unused" }, catalog: app });
    try {
      await writeThree(store);
      const reader = await openAuditReader({ appDir: tempDir(), db: url, config: { dataDir: "unused" } });
      try {
        const { entries } = await reader.read({ limit: 10, since: record(2).at });
        expect(entries.map(({ seq: _s, ...e }) => e)).toEqual([record(2), record(3)]);
        expect(reader.description).not.toContain("password");
      } finally {
        await reader.close();
      }
    } finally {
      await store.close();
    }
  });
});
