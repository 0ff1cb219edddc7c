// Storage faults, seen as a user of `wo run` sees them (spec/security.md, "Storage faults"):
// a restart after a crash is not refused, a database wo cannot use is refused at start with
// what is wrong and how to fix it, and a full database answers 503 without flooding the log.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { copyApp, removeApp, repoRoot, runToExit, startWo, tempDir, type RunOptions } from "../support/wo-process.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Polls `check` until it returns a value other than undefined (a slow machine gets 60 s). */
async function waitFor<T>(what: string, check: () => T | undefined): Promise<T> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2);
  } catch {
    return undefined;
  }
}

describe("the data-folder lock after a crash", () => {
  it.runIf(existsSync("/proc/self/stat"))("a server SIGKILLed and not yet reaped by its parent (a zombie) does not block the restart", async () => {
    const appDir = copyApp("samples/blog");
    cleanups.push(() => removeApp(appDir));
    const log = join(appDir, "..", "first-run.log");
    // sh starts `wo run` in the background and then becomes `sleep` (exec), which is now its
    // parent and never calls wait(): once killed, the server stays a zombie.
    const parent = spawn("sh", ["-c", `"$0" "$@" >"$WO_LOG" 2>&1 & echo $!; exec sleep 600`, process.execPath, join(repoRoot, "bin/wo.js"), "run", appDir, "--listen", "127.0.0.1:0"], {
      env: { ...process.env, WO_LOG: log },
      stdio: ["ignore", "pipe", "ignore"],
    });
    cleanups.push(() => parent.kill("SIGKILL")); // the zombie goes to init, which reaps it
    let printed = "";
    parent.stdout!.on("data", (d: Buffer) => (printed += d.toString()));
    const pid = await waitFor("the server's pid", () => (/^\d+\n/.test(printed) ? Number(printed.trim()) : undefined));
    await waitFor("the first server to serve", () => (existsSync(log) && /serving at http/.test(readFileSync(log, "utf8")) ? true : undefined));
    expect(readFileSync(join(appDir, ".wo/data/wo.lock"), "utf8")).toBe(`${pid}\n`);

    process.kill(pid, "SIGKILL");
    await waitFor("the killed server to be a zombie", () => (procState(pid) === "Z" ? true : undefined));
    expect(() => process.kill(pid, 0), "a zombie still answers kill(pid, 0)").not.toThrow();

    const second = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    cleanups.push(() => second.stop());
    expect((await fetch(`${second.url}/api/authors`)).status).toBe(200);
    expect(readFileSync(join(appDir, ".wo/data/wo.lock"), "utf8")).toBe(`${second.child.pid}\n`);
  }, 120_000);
});

describe("a database wo cannot use is refused at start, naming the file and the fix", () => {
  // One app started (and so built, and its database created) once; each test breaks a copy.
  let template: string;
  beforeAll(async () => {
    template = copyApp("samples/blog");
    const wo = await startWo([template, "--listen", "127.0.0.1:0"]);
    expect(await wo.stop()).toBe(0);
  }, 120_000);
  afterAll(() => removeApp(template));

  function brokenCopy() {
    const appDir = join(tempDir("wo-e2e-faults-"), "blog");
    cpSync(template, appDir, { recursive: true });
    cleanups.push(() => removeApp(appDir));
    const dataDir = join(appDir, ".wo/data");
    return { appDir, dataDir, file: join(dataDir, "app.sqlite") };
  }

  /**
   * Root ignores permission bits, so a chmod means nothing to a server running as root. As
   * root, the server runs as `nobody` instead, who is given the app's folder; as any other
   * user, the permissions bind already.
   */
  function whereModesBind(appDir: string): RunOptions {
    if (process.getuid?.() !== 0) return {};
    const uid = Number(execFileSync("id", ["-u", "nobody"]).toString());
    const gid = Number(execFileSync("id", ["-g", "nobody"]).toString());
    execFileSync("chown", ["-R", `${uid}:${gid}`, dirname(appDir)]);
    return { user: { uid, gid } };
  }

  async function refusal(appDir: string, options: RunOptions = {}): Promise<string> {
    const { code, output } = await runToExit([appDir, "--listen", "127.0.0.1:0"], options);
    expect(output).not.toContain("serving at");
    expect(output).not.toContain("internal error");
    expect(code, output).toBe(1);
    return output;
  }

  it("a read-only app.sqlite (it would start and then fail every write)", async () => {
    const { appDir, file } = brokenCopy();
    const options = whereModesBind(appDir);
    chmodSync(file, 0o444);
    const output = await refusal(appDir, options);
    expect(output).toContain(`The database file ${file} is read-only for the user running wo (EACCES)`);
    expect(output).toContain(`chmod u+w ${file}`);
  }, 60_000);

  it("a read-only data folder (the lock, and SQLite's -wal and -shm files, cannot be created)", async () => {
    const { appDir, dataDir, file } = brokenCopy();
    const options = whereModesBind(appDir);
    chmodSync(dataDir, 0o555);
    const before = readFileSync(file);
    const output = await refusal(appDir, options);
    expect(output).toContain(`The data folder ${dataDir} cannot be written (EACCES)`);
    expect(output).toContain(`chmod u+w ${dataDir}`);
    expect(readFileSync(file).equals(before)).toBe(true);
  }, 60_000);

  it.each([
    ["the first 100 bytes of a real database (its header only)", (db: Buffer) => db.subarray(0, 100)],
    ["random bytes", () => randomBytes(16_384)],
  ])("a database file holding %s", async (_what, damage) => {
    const { appDir, file } = brokenCopy();
    writeFileSync(file, damage(readFileSync(file)));
    const output = await refusal(appDir);
    expect(output).toContain(`The database ${file} is not a SQLite database or is damaged`);
    expect(output).toContain("Restore it from a backup, or move it away together with its -wal and -shm files");
  }, 60_000);

  it("a database with one damaged page in the middle (it would start and fail the requests that reach it)", async () => {
    const { appDir, file } = brokenCopy();
    const db = new Database(file);
    const insert = db.prepare("INSERT INTO author (name, email) VALUES (?, ?)");
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`author ${i} ${"x".repeat(200)}`, `a${i}@example.org`);
    })();
    db.close();
    const bytes = readFileSync(file);
    const pageSize = 4096;
    const middle = Math.floor(bytes.length / pageSize / 2) * pageSize;
    randomBytes(pageSize).copy(bytes, middle);
    writeFileSync(file, bytes);

    const output = await refusal(appDir);
    expect(output).toContain(`The database ${file} is not a SQLite database or is damaged (SQLite: `);
    expect(readFileSync(file).equals(bytes), "the check changes nothing").toBe(true);
  }, 60_000);
});
