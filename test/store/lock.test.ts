// The data-folder lock: a second opener is refused while the first lives; stale locks are
// replaced.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireDataLock } from "../../runtime/store/lock.js";
import { DataLockError } from "../../runtime/store/open-errors.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { blog, tempDir } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const lockFile = () => join(tmp.dir, "data", "wo.lock");

/** A pid that certainly belongs to no live process: a child that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

describe("data-folder lock", () => {
  it("a second open of the same folder is refused with the holder's pid; close releases it", async () => {
    const { store } = await openSqliteStore({ file: tmp.file, catalog: blog() });
    expect(readFileSync(lockFile(), "utf8").trim()).toBe(String(process.pid));
    const err = await openSqliteStore({ file: tmp.file, catalog: blog() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataLockError);
    expect((err as Error).message).toBe(
      `The data folder ${join(tmp.dir, "data")} is in use by another wo process (pid ${process.pid}). Stop it first, or, if no wo process is running, delete ${lockFile()}.`,
    );
    // The refused opener did not disturb the first store.
    await store.write((tx) => tx.insert("author", { name: "a", email: "a@x" }));
    await store.close();
    expect(existsSync(lockFile())).toBe(false);
    const again = await openSqliteStore({ file: tmp.file, catalog: blog() });
    expect(await again.store.read((tx) => tx.count("author"))).toBe(1);
    await again.store.close();
  });

  it("a lock held by another live process refuses; once that process is gone the lock is stale", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      mkdirSync(join(tmp.dir, "data"), { recursive: true });
      writeFileSync(lockFile(), `${child.pid}\n`);
      expect(() => acquireDataLock(join(tmp.dir, "data"))).toThrow(`in use by another wo process (pid ${child.pid})`);
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
    const lock = acquireDataLock(join(tmp.dir, "data"));
    expect(readFileSync(lockFile(), "utf8").trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
  });

  it.each([
    ["a dead pid", () => `${deadPid()}\n`],
    ["garbage (a crash mid-write)", () => "12ab"],
    ["an empty file", () => ""],
    ["this very pid, not held by this process (a restarted container)", () => `${process.pid}\n`],
  ])("a stale lock holding %s is replaced", async (_what, content) => {
    mkdirSync(join(tmp.dir, "data"), { recursive: true });
    writeFileSync(lockFile(), content());
    const { store } = await openSqliteStore({ file: tmp.file, catalog: blog() });
    expect(readFileSync(lockFile(), "utf8").trim()).toBe(String(process.pid));
    await store.close();
  });

  it("release does not remove a lock that is no longer ours", () => {
    const dir = join(tmp.dir, "data");
    const lock = acquireDataLock(dir);
    writeFileSync(lockFile(), "999999999\n");
    lock.release();
    expect(readFileSync(lockFile(), "utf8")).toBe("999999999\n");
  });
});
