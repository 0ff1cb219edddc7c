// Store selection: which Store implementation serves an app, and where its data lives, from
// `--db` and wo.toml `[database]`. `wo run`, `wo exec` and `wo test` all open their store here,
// so they choose alike: SQLite in a data folder, or PostgreSQL for a postgres:// URL.

import { dirname, isAbsolute, join, resolve } from "node:path";
import { loggedTables, type Catalog, type WoConfig } from "../../model/app.js";
import { defaultRetention, type ChangeLogOptions } from "./change-log.js";
import { openSqliteStore, planSqliteStoreMigration } from "./sqlite.js";
import { redactUrl } from "./postgres/redact-url.js";
import { StoreOpenError, type MigrationPlan, type MigrationReport, type Store } from "../../model/store.js";

/** Where an app's data lives, and so which store serves it. */
export type StoreLocation =
  | {
      kind: "sqlite";
      /** The database file. */
      file: string;
      /** The folder holding it (and the single-writer lock). */
      dataDir: string;
    }
  | { kind: "postgres"; url: string };

export interface StoreSelection {
  /** Relative data folders are resolved against it. */
  appDir: string;
  /** `--db`: a data folder (the database is `<db>/app.sqlite`), a `.sqlite`/`.db` file, or a URL. */
  db?: string;
  config: Pick<
    WoConfig,
    | "dataDir"
    | "databaseUrl"
    | "databaseMaxBytes"
    | "liveRetention"
    | "databasePasswordEnv"
    | "databasePoolSize"
    | "databaseStatementTimeoutMs"
  >;
  /** Where `[database] password_env` is looked up; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** `--db` or `[database] url` names a PostgreSQL database (not a folder or file). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(text);
}

/** `--db` wins over `[database] url`, which wins over `[database] data_dir`. Throws StoreOpenError. */
export function storeLocation(selection: StoreSelection): StoreLocation {
  const { appDir, db, config } = selection;
  const target = db ?? config.databaseUrl;
  if (target !== undefined && isPostgresUrl(target)) return { kind: "postgres", url: target };
  if (db !== undefined) {
    const path = resolve(db);
    if (/\.(sqlite3?|db)$/i.test(path)) return { kind: "sqlite", dataDir: dirname(path), file: path };
    return { kind: "sqlite", dataDir: path, file: join(path, "app.sqlite") };
  }
  const dataDir = isAbsolute(config.dataDir) ? config.dataDir : resolve(appDir, config.dataDir);
  return { kind: "sqlite", dataDir, file: join(dataDir, "app.sqlite") };
}

export interface OpenStoreOptions extends StoreSelection {
  catalog: Catalog;
  /** Apply changes that drop or narrow stored data (`--allow-destructive-migration`). */
  allowDestructiveMigration?: boolean;
}

export interface OpenedStore {
  store: Store;
  migration: MigrationReport;
  location: StoreLocation;
  /** How the startup banner names the database. */
  description: string;
}

/**
 * Chooses the store, opens it (taking whatever lock keeps a second server away) and migrates
 * it to the catalog. Every failure a user can cause is a StoreOpenError with a message to print.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const location = storeLocation(options);
  if (location.kind === "postgres") {
    refuseUnsupportedUrl(location.url);
    // Loaded only here: `pg` (and what it loads) costs a SQLite app's start-up for nothing.
    const { openPostgresStore } = await import("./postgres/store.js");
    const { store, migration } = await openPostgresStore({
      url: location.url,
      catalog: options.catalog,
      allowDestructiveMigration: options.allowDestructiveMigration ?? false,
      ...postgresSettings(location.url, options),
      changeLog: changeLogOf(options),
    });
    return { store, migration, location, description: redactUrl(location.url) };
  }
  const maxBytes = options.config.databaseMaxBytes;
  const { store, migration } = await openSqliteStore({
    file: location.file,
    catalog: options.catalog,
    allowDestructiveMigration: options.allowDestructiveMigration ?? false,
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    changeLog: changeLogOf(options),
  });
  return { store, migration, location, description: location.file };
}

/**
 * What openStore() would do to the store's shape, without doing it (`wo migrate --plan`): the
 * same choice of store, the same migration, rolled back. Throws StoreOpenError like openStore.
 */
export async function planStoreMigration(options: OpenStoreOptions): Promise<MigrationPlan> {
  const location = storeLocation(options);
  const allowDestructiveMigration = options.allowDestructiveMigration ?? false;
  if (location.kind === "postgres") {
    const { planPostgresStoreMigration } = await import("./postgres/store.js");
    return planPostgresStoreMigration({
      url: location.url,
      catalog: options.catalog,
      allowDestructiveMigration,
      ...postgresSettings(location.url, options),
    });
  }
  return planSqliteStoreMigration({ file: location.file, catalog: options.catalog, allowDestructiveMigration });
}

/**
 * Every writer (wo run, wo exec, wo test) keeps the change log of the types that expose
 * `subscribe`, so a live stream resumes across them all (spec/live.md).
 */
function changeLogOf(options: OpenStoreOptions): ChangeLogOptions {
  return {
    tables: loggedTables(options.catalog),
    retention: options.config.liveRetention ?? defaultRetention,
  };
}

/**
 * A URL wo cannot honour is refused before connecting. `options=` (libpq's startup options)
 * would replace the ones wo sets on every connection — `synchronous_commit=on`, so a write is
 * answered only once durable, and `statement_timeout` — and `-c search_path=…` would move the
 * tables out of the schema wo migrates; the settings have their own keys in `[database]`.
 */
function refuseUnsupportedUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreOpenError(
      "The PostgreSQL URL is not a valid URL; write postgres://USER@HOST:PORT/DATABASE (percent-encode special characters in the password).",
    );
  }
  if (parsed.searchParams.has("options"))
    throw new StoreOpenError(
      `The PostgreSQL URL ${redactUrl(url)} sets options=, which wo does not support: it sets its own session options (synchronous_commit=on, statement_timeout). Remove options= from the URL; use [database] statement_timeout_ms in wo.toml, or ALTER ROLE … SET for other settings.`,
    );
}

/** The password `[database] password_env` names; throws StoreOpenError when it is unset and the URL has none. */
export function postgresPassword(url: string, selection: Pick<StoreSelection, "config" | "env">): string | undefined {
  const env = selection.config.databasePasswordEnv;
  if (env === undefined) return undefined;
  const password = (selection.env ?? process.env)[env];
  if (password === undefined && !new URL(url).password) {
    throw new StoreOpenError(
      `[database] password_env names ${env}, which is not set; set it to the password of ${redactUrl(url)}.`,
    );
  }
  return password;
}

/** The password from `[database] password_env` (when the URL has none), pool size and timeout. */
export function postgresSettings(
  url: string,
  options: Pick<OpenStoreOptions, "config" | "env">,
): { password?: string; poolSize?: number; statementTimeoutMs?: number } {
  const { config } = options;
  const settings: { password?: string; poolSize?: number; statementTimeoutMs?: number } = {};
  const password = postgresPassword(url, options);
  if (password !== undefined) settings.password = password;
  if (config.databasePoolSize !== undefined) settings.poolSize = config.databasePoolSize;
  if (config.databaseStatementTimeoutMs !== undefined) settings.statementTimeoutMs = config.databaseStatementTimeoutMs;
  return settings;
}
