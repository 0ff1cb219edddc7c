// Storage faults, seen as a user of `wo run` sees them (spec/security.md, "Storage faults"):
// a restart after a crash is not refused, a database wo cannot use is refused at start with
// what is wrong and how to fix it, and a full database answers 503 without flooding the log.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpClient, post } from "../methods/wo-process.js";
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
  it.runIf(existsSync("/proc/self/stat"))(
    "a server SIGKILLed and not yet reaped by its parent (a zombie) does not block the restart",
    async () => {
      const appDir = copyApp("samples/blog");
      cleanups.push(() => removeApp(appDir));
      const log = join(appDir, "..", "first-run.log");
      // sh starts `wo run` in the background and then becomes `sleep` (exec), which is now its
      // parent and never calls wait(): once killed, the server stays a zombie.
      const parent = spawn(
        "sh",
        [
          "-c",
          `"$0" "$@" >"$WO_LOG" 2>&1 & echo $!; exec sleep 600`,
          process.execPath,
          join(repoRoot, "bin/wo.js"),
          "run",
          appDir,
          "--listen",
          "127.0.0.1:0",
        ],
        {
          env: { ...process.env, WO_LOG: log },
          stdio: ["ignore", "pipe", "ignore"],
        },
      );
      cleanups.push(() => parent.kill("SIGKILL")); // the zombie goes to init, which reaps it
      let printed = "";
      parent.stdout!.on("data", (d: Buffer) => (printed += d.toString()));
      const pid = await waitFor("the server's pid", () =>
        /^\d+\n/.test(printed) ? Number(printed.trim()) : undefined,
      );
      await waitFor("the first server to serve", () =>
        existsSync(log) && /serving at http/.test(readFileSync(log, "utf8")) ? true : undefined,
      );
      expect(readFileSync(join(appDir, ".wo/data/wo.lock"), "utf8")).toBe(`${pid}\n`);

      process.kill(pid, "SIGKILL");
      await waitFor("the killed server to be a zombie", () => (procState(pid) === "Z" ? true : undefined));
      expect(() => process.kill(pid, 0), "a zombie still answers kill(pid, 0)").not.toThrow();

      const second = await startWo([appDir, "--listen", "127.0.0.1:0"]);
      cleanups.push(() => second.stop());
      expect((await fetch(`${second.url}/api/authors`)).status).toBe(200);
      expect(readFileSync(join(appDir, ".wo/data/wo.lock"), "utf8")).toBe(`${second.child.pid}\n`);
    },
    120_000,
  );
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
  function whereModesBind(appDir: string, skip: (note: string) => never): RunOptions {
    if (process.getuid?.() !== 0) return {};
    const uid = Number(execFileSync("id", ["-u", "nobody"]).toString());
    const gid = Number(execFileSync("id", ["-g", "nobody"]).toString());
    // A clone under a private folder (/root/…) is out of nobody's reach: then there is no user
    // whose permissions bind, and the case cannot be produced here.
    const reach = spawnSync(process.execPath, [join(repoRoot, "bin/wo.js"), "--help"], { uid, gid, stdio: "ignore" });
    if (reach.status !== 0) skip(`user nobody cannot run ${repoRoot}/bin/wo.js, and root ignores file modes`);
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

  it("a read-only app.sqlite (it would start and then fail every write)", async (ctx) => {
    const { appDir, file } = brokenCopy();
    const options = whereModesBind(appDir, ctx.skip);
    chmodSync(file, 0o444);
    const output = await refusal(appDir, options);
    expect(output).toContain(`The database file ${file} is read-only for the user running wo (EACCES)`);
    expect(output).toContain(`chmod u+w ${file}`);
  }, 60_000);

  it("a read-only data folder (the lock, and SQLite's -wal and -shm files, cannot be created)", async (ctx) => {
    const { appDir, dataDir, file } = brokenCopy();
    const options = whereModesBind(appDir, ctx.skip);
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
  ])(
    "a database file holding %s",
    async (_what, damage) => {
      const { appDir, file } = brokenCopy();
      writeFileSync(file, damage(readFileSync(file)));
      const output = await refusal(appDir);
      expect(output).toContain(`The database ${file} is not a SQLite database or is damaged`);
      expect(output).toContain("Restore it from a backup, or move it away together with its -wal and -shm files");
    },
    60_000,
  );

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

describe("a database locked by another program", () => {
  it("a write answers 503 busy with Retry-After (not 500), nothing written; reads go on, and writes work once the lock is gone", async () => {
    const appDir = copyApp("samples/blog");
    cleanups.push(() => removeApp(appDir));
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    cleanups.push(() => wo.stop());
    expect((await post(wo.url, "/api/authors", { name: "Ada", email: "ada@example.org" })).status).toBe(201);

    // As the sqlite3 shell would, inside a transaction someone forgot to finish.
    const outsider = new Database(join(appDir, ".wo/data/app.sqlite"));
    cleanups.push(() => outsider.close());
    outsider.prepare("BEGIN IMMEDIATE").run();
    const res = await fetch(`${wo.url}/api/authors`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bo", email: "bo@example.org" }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toMatchObject({
      type: "urn:wo:problem:busy",
      title: "Busy",
      detail: "The database is locked by another program right now; nothing was changed. Retry shortly.",
    });
    expect((await fetch(`${wo.url}/api/authors`)).status).toBe(200);
    expect(wo.output()).toMatch(
      /wo: the database is locked from outside: the database \S+app\.sqlite stayed locked by another process/,
    );

    outsider.prepare("ROLLBACK").run();
    expect((await post(wo.url, "/api/authors", { name: "Cy", email: "cy@example.org" })).status).toBe(201);
    const names = ((await (await fetch(`${wo.url}/api/authors`)).json()) as { items: { name: string }[] }).items.map(
      (a) => a.name,
    );
    expect(names).toEqual(["Ada", "Cy"]);
    expect(wo.output()).toContain("wo: the database accepts writes again (1 write failed while it was locked)");
  }, 120_000);
});

describe("a full database", () => {
  // SQLite reports a full disk and a database at its [database] max_bytes the same way
  // (SQLITE_FULL, at the same places); the size limit produces it without filling a disk.
  it("answers 503 'Storage full' (an MCP tool error), keeps serving reads, logs it once, and takes writes again once space is freed", async () => {
    const appDir = copyApp("samples/blog");
    cleanups.push(() => removeApp(appDir));
    const toml = join(appDir, "wo.toml");
    // An empty blog database is 15 pages of 4 KiB; 32 pages leave room for a few dozen authors.
    writeFileSync(
      toml,
      readFileSync(toml, "utf8").replace('data_dir = ".wo/data"', 'data_dir = ".wo/data"\nmax_bytes = 131072'),
    );
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    cleanups.push(() => wo.stop());
    const author = (i: number) => ({ name: `author ${i} ${"x".repeat(2000)}`, email: `a${i}@example.org` });

    const created: number[] = [];
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const res = await post(wo.url, "/api/authors", author(i));
      if (res.status === 201) created.push(res.body.id as number);
      else refused = res;
    }
    expect(created.length).toBeGreaterThan(5);
    expect(refused?.status).toBe(503);
    expect(refused?.body).toEqual({
      type: "urn:wo:problem:storage-full",
      title: "Storage full",
      status: 503,
      detail:
        "The database is full, so nothing was written. Reads still work; writes succeed again once space is freed on the server.",
    });

    // It stays full: every write is refused the same way, none is half done.
    for (let i = 0; i < 20; i++) expect((await post(wo.url, "/api/authors", author(1000 + i))).status).toBe(503);
    const client = await mcpClient(wo.url);
    cleanups.push(() => client.close());
    const viaMcp = await client.callTool({ name: "author_create", arguments: author(2000) });
    expect(viaMcp.isError).toBe(true);
    expect((viaMcp.content as { text: string }[])[0]!.text).toMatch(
      /^Storage full: The database is full, so nothing was written\./,
    );
    const failures = 1 + 20 + 1;

    // Reads go on.
    const list = await fetch(`${wo.url}/api/authors?limit=500`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { items: { id: number }[] }).items.map((a) => a.id)).toEqual(created);

    // One log line for all those failures, naming the file and why.
    const file = join(appDir, ".wo/data/app.sqlite");
    const logged = () =>
      wo
        .output()
        .split("\n")
        .filter((l) => /full|writes again/.test(l));
    expect(logged()).toHaveLength(1);
    expect(logged()[0]).toMatch(
      new RegExp(
        `^wo: the database is full; writes fail until space is freed, reads still work: the database ${file} cannot grow: it holds \\d+ bytes of its \\[database\\] max_bytes = 131072; \\d+ bytes free on its disk$`,
      ),
    );

    // Space is freed (rows deleted): writes work again, and the log says the episode is over.
    for (const id of created.slice(0, 4))
      expect((await fetch(`${wo.url}/api/authors/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await post(wo.url, "/api/authors", author(3000))).status).toBe(201);
    expect(logged()).toEqual([
      logged()[0],
      `wo: the database accepts writes again (${failures} writes failed while it was full)`,
    ]);
  }, 120_000);

  // The same on a real full disk: a small tmpfs, where mounting is allowed (as root here; a CI
  // that may not mount skips this and keeps the test above).
  it.runIf(canMountTmpfs())(
    "on a real full disk the same: 503, one log line, and writes again once a file is deleted",
    async () => {
      const appDir = copyApp("samples/blog");
      cleanups.push(() => removeApp(appDir));
      const disk = join(dirname(appDir), "disk");
      mkdirSync(disk);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk]);
      cleanups.push(() => execFileSync("umount", [disk]));
      const wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--db", disk]);
      cleanups.push(() => wo.stop());
      // Leave about 1 MiB: a few hundred 2 KB rows, each commit appending to the write-ahead log.
      const filler = join(disk, "filler");
      writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024 - statSync(join(disk, "app.sqlite")).size));

      let created = 0;
      let refused: Awaited<ReturnType<typeof post>> | undefined;
      for (let i = 0; i < 2000 && refused === undefined; i++) {
        const res = await post(wo.url, "/api/authors", {
          name: `author ${i} ${"x".repeat(2000)}`,
          email: `a${i}@example.org`,
        });
        if (res.status === 201) created++;
        else refused = res;
      }
      expect(created).toBeGreaterThan(5);
      expect(refused?.status, JSON.stringify(refused?.body)).toBe(503);
      expect(refused?.body.type).toBe("urn:wo:problem:storage-full");
      // As large as the refused row: a small one may still fit in a page's free space, and where
      // that space lies depends on the schema's page layout, not on the disk being full.
      for (let i = 0; i < 10; i++)
        expect(
          (await post(wo.url, "/api/authors", { name: `late ${i} ${"x".repeat(2000)}`, email: `late${i}@example.org` }))
            .status,
        ).toBe(503);
      const list = await fetch(`${wo.url}/api/authors?limit=1000`);
      expect(list.status).toBe(200);
      expect(((await list.json()) as { items: unknown[] }).items).toHaveLength(created);

      const logged = () =>
        wo
          .output()
          .split("\n")
          .filter((l) => /full|writes again/.test(l));
      expect(logged()).toHaveLength(1);
      expect(logged()[0]).toMatch(
        new RegExp(
          `^wo: the database is full; writes fail until space is freed, reads still work: the database ${join(disk, "app.sqlite")} cannot grow: \\d+ bytes free on its disk$`,
        ),
      );

      rmSync(filler);
      expect((await post(wo.url, "/api/authors", { name: "after", email: "after@example.org" })).status).toBe(201);
      expect(logged()).toEqual([
        logged()[0],
        "wo: the database accepts writes again (11 writes failed while it was full)",
      ]);
    },
    120_000,
  );
});

/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as on the dev box). */
function canMountTmpfs(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const probe = tempDir("wo-mount-probe-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
