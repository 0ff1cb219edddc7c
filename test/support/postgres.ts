// Test support for the PostgreSQL store: a real PostgreSQL server per test file and a fresh
// database per test (tools/postgres/server.mjs, shared with bench/postgres), typed. Nothing is
// mocked: the store and `wo run` talk to this server over TCP with a password. When the
// binaries are absent the suites fail, saying so (startPostgres throws `postgresUnavailable`):
// a missing server must never pass as a skipped suite; `.ci/run` installs it.

import * as server from "../../tools/postgres/server.mjs";

/** The superuser's name and password: the server asks for the password on TCP. */
export const pgUser: string = server.pgUser;
export const pgPassword: string = server.pgPassword;

export interface PostgresServer {
  host: string;
  port: number;
  /** postgres://wo:…@127.0.0.1:port/<database> */
  url(database: string, credentials?: { user?: string; password?: string }): string;
  /** A new empty database; returns its URL. */
  createDatabase(): Promise<string>;
  /**
   * Shuts the server down (fast: open connections are cut, as in a restart or failover)
   * without removing its data.
   */
  shutDown(): Promise<void>;
  /** Starts it again on the same port after shutDown(). */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/** initdb + pg_ctl start in a fresh temp folder. */
export const startPostgres: () => Promise<PostgresServer> = server.startPostgres;
