// Store selection (runtime/store/open.ts): `--db` and wo.toml `[database]` choose the store and
// where its data lives, the same for `wo run`, `wo exec` and `wo test`.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, storeLocation } from "../../runtime/store/open.js";
import { StoreOpenError } from "../../model/store.js";
import { blog, tempDir } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe("openStore", () => {
  it("without --db: app.sqlite in [database] data_dir, relative to the app", async () => {
    const opened = await openStore({ appDir: tmp.dir, config: { dataDir: "state/db" }, catalog: blog() });
    try {
      expect(opened.location).toEqual({
        kind: "sqlite",
        dataDir: join(tmp.dir, "state/db"),
        file: join(tmp.dir, "state/db/app.sqlite"),
      });
      expect(opened.description).toBe(join(tmp.dir, "state/db/app.sqlite"));
      await opened.store.write((tx) => tx.insert("author", { name: "A", email: "a@x.org" }));
    } finally {
      await opened.store.close();
    }
    expect(existsSync(join(tmp.dir, "state/db/app.sqlite"))).toBe(true);
  });

  it("--db names a data folder or a .sqlite/.db file, and wins over [database] url", () => {
    const config = { dataDir: ".wo/data", databaseUrl: "postgres://db.example/shop" };
    expect(storeLocation({ appDir: tmp.dir, db: join(tmp.dir, "d"), config })).toEqual({
      kind: "sqlite",
      dataDir: join(tmp.dir, "d"),
      file: join(tmp.dir, "d/app.sqlite"),
    });
    expect(storeLocation({ appDir: tmp.dir, db: join(tmp.dir, "x.db"), config })).toMatchObject({
      file: join(tmp.dir, "x.db"),
    });
    expect(storeLocation({ appDir: tmp.dir, db: join(tmp.dir, "x.SQLITE3"), config })).toMatchObject({
      file: join(tmp.dir, "x.SQLITE3"),
    });
  });

  it("a postgres:// URL, from --db or [database] url, selects PostgreSQL; nothing is created in the data folder", async () => {
    for (const [db, databaseUrl] of [
      ["postgres://u@h/d", undefined],
      [undefined, "postgresql://h/d"],
      ["POSTGRES://h/d", undefined],
    ] as const) {
      const location = storeLocation({
        appDir: tmp.dir,
        ...(db ? { db } : {}),
        config: { dataDir: "data", ...(databaseUrl ? { databaseUrl } : {}) },
      });
      expect(location).toEqual({ kind: "postgres", url: db ?? databaseUrl });
    }
    // A server that is not there: a StoreOpenError naming it, without the password.
    const err = await openStore({
      appDir: tmp.dir,
      db: "postgres://u:secret@127.0.0.1:1/d",
      config: { dataDir: "data" },
      catalog: blog(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).message).toBe(
      "Cannot reach the PostgreSQL server at postgres://u:***@127.0.0.1:1/d: the server refuses connections (is it running, on this host and port?).",
    );
    const unset = await openStore({
      appDir: tmp.dir,
      db: "postgres://u@127.0.0.1:1/d",
      config: { dataDir: "data", databasePasswordEnv: "WO_TEST_UNSET_PASSWORD" },
      env: {},
      catalog: blog(),
    }).catch((e: unknown) => e);
    expect((unset as Error).message).toBe(
      "[database] password_env names WO_TEST_UNSET_PASSWORD, which is not set; set it to the password of postgres://u@127.0.0.1:1/d.",
    );
    expect(existsSync(join(tmp.dir, "data"))).toBe(false);
  });
});
