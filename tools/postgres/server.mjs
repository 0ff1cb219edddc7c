// A real PostgreSQL server for tests and benches: initdb + pg_ctl in a temp folder, on
// 127.0.0.1 and a free port, password authentication on TCP (scram-sha-256, as a production
// server would ask), and a fresh database per createDatabase(). test/support/postgres.ts
// gives it types for the tests; bench/postgres/run.mjs uses it as it is.
//
// The server refuses to run as root, so when started by root it runs as the `postgres` user
// (Debian's package creates it), or `nobody`. The binaries are Debian's
// (/usr/lib/postgresql/<version>/bin, `.ci/run` installs the `postgresql` package); when they
// are absent, `postgresUnavailable` says why.

import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** The folder holding initdb, pg_ctl and postgres: the newest installed version. */
function findBinDir() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : join(root, versions[0], "bin");
}

const binDir = findBinDir();

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresUnavailable =
  binDir === undefined
    ? "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; `apt-get install postgresql`, as .ci/run does)"
    : undefined;

/** The superuser's name and password: the server asks for the password on TCP (scram-sha-256). */
export const pgUser = "wo";
export const pgPassword = "wo-test-secret";

/** The uid/gid the server runs as: ours unless we are root. */
function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
      return { uid, gid };
    } catch {
      // Try the next one.
    }
  }
  throw new Error("running as root, and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL as");
}

function run(command, args, user) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(join(binDir, command), args, { stdio: ["ignore", "pipe", "pipe"], cwd: "/", ...user });
    let out = "";
    child.stdout.on("data", (c) => (out += c.toString()));
    child.stderr.on("data", (c) => (out += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${out}`)),
    );
  });
}

function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

let databases = 0;

/**
 * initdb + pg_ctl start in a fresh temp folder. The server: { host, port, url(database,
 * credentials?), createDatabase(), shutDown() (fast: open connections cut, data kept; not
 * `immediate`, whose crash recovery fsyncs the whole data folder first, tens of seconds on a
 * busy disk), restart() (after shutDown), stop() (and remove its folder) }.
 */
export async function startPostgres() {
  if (postgresUnavailable) throw new Error(postgresUnavailable);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "wo-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const pwfile = join(dir, "pwfile");
  writeFileSync(pwfile, `${pgPassword}\n`);
  if (user) chownSync(pwfile, user.uid, user.gid);
  // Password auth on TCP (what wo uses), so wrong credentials are refused as in production.
  await run(
    "initdb",
    [
      "-D",
      data,
      "-U",
      pgUser,
      `--pwfile=${pwfile}`,
      "--auth-host=scram-sha-256",
      "--auth-local=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ],
    user,
  );
  const port = await freePort();
  const host = "127.0.0.1";
  // fsync stays on (the durability tests rely on it); small buffers keep many servers cheap.
  const settings = [
    `-c listen_addresses=${host}`,
    `-p ${port}`,
    `-k ${dir}`,
    "-c shared_buffers=16MB",
    "-c max_connections=120",
    "-c fsync=on",
    "-c synchronous_commit=on",
    "-c log_min_messages=warning",
  ].join(" ");
  const log = join(dir, "server.log");
  const start = () => run("pg_ctl", ["-D", data, "-l", log, "-o", settings, "-w", "-t", "60", "start"], user);
  const stopWith = (mode) => run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"], user);
  const startOrExplain = async () => {
    try {
      await start();
    } catch (err) {
      throw new Error(`${err.message}\n${existsSync(log) ? readFileSync(log, "utf8") : ""}`);
    }
  };
  try {
    await startOrExplain();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let running = true;
  const url = (database, credentials = {}) =>
    `postgres://${encodeURIComponent(credentials.user ?? pgUser)}:${encodeURIComponent(credentials.password ?? pgPassword)}@${host}:${port}/${database}`;
  return {
    host,
    port,
    url,
    /** The postmaster's process id (its backends are its children): benches read their CPU time. */
    postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    async createDatabase() {
      const name = `wo_test_${process.pid}_${++databases}`;
      const admin = new pg.Client({ connectionString: url("postgres") });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async shutDown() {
      await stopWith("fast");
      running = false;
    },
    async restart() {
      await startOrExplain();
      running = true;
    },
    async stop() {
      if (running) await stopWith("immediate").catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
