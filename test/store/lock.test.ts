// The data-folder lock: a second opener is refused while the first lives; stale locks are
// replaced.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

  it.runIf(process.platform === "linux")(
    "a lock held by an exited but unreaped process (a zombie) is stale",
    async () => {
      // The short sleep exits after its parent has exec'd the long one, which never reaps it: a
      // zombie, as a killed detached server stays where the container's first process is no init.
      const parent = spawn("sh", ["-c", "sleep 0.2 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
      try {
        const zombie = Number(
          await new Promise<string>((resolve) => parent.stdout!.once("data", (d: Buffer) => resolve(d.toString()))),
        );
        while (!/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${zombie}/stat`, "utf8")))
          await new Promise((r) => setTimeout(r, 10));
        mkdirSync(join(tmp.dir, "data"), { recursive: true });
        writeFileSync(lockFile(), `${zombie}\n`);
        const lock = acquireDataLock(join(tmp.dir, "data"));
        expect(readFileSync(lockFile(), "utf8").trim()).toBe(String(process.pid));
        lock.release();
      } finally {
        parent.kill("SIGKILL");
      }
    },
  );

  it("a takeover of a stale lock left half-done by a process that died is finished", () => {
    const dir = join(tmp.dir, "data");
    mkdirSync(dir, { recursive: true });
    writeFileSync(lockFile(), `${deadPid()}\n`);
    writeFileSync(`${lockFile()}.takeover`, `${deadPid()}\n`);
    const lock = acquireDataLock(dir);
    expect(readFileSync(lockFile(), "utf8")).toBe(`${process.pid}\n`);
    expect(readdirSync(dir)).toEqual(["wo.lock"]);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a stale lock another live process is taking over is not touched; giving up says so", () => {
    const dir = join(tmp.dir, "data");
    mkdirSync(dir, { recursive: true });
    const stale = `${deadPid()}\n`;
    writeFileSync(lockFile(), stale);
    // process.ppid: a live process that is not this one (the "taker" that never finishes).
    writeFileSync(`${lockFile()}.takeover`, `${process.ppid}\n`);
    expect(() => acquireDataLock(dir)).toThrow(
      `Could not lock the data folder ${dir}: ${lockFile()} keeps reappearing (another wo process starting?).`,
    );
    expect(readFileSync(lockFile(), "utf8")).toBe(stale);
  });

  it("release does not remove a lock that is no longer ours", () => {
    const dir = join(tmp.dir, "data");
    const lock = acquireDataLock(dir);
    writeFileSync(lockFile(), "999999999\n");
    lock.release();
    expect(readFileSync(lockFile(), "utf8")).toBe("999999999\n");
  });
});

// The race the lock exists for: several `wo run` started at the same moment on one folder.
// Real processes, because a lock in one process cannot race itself (acquire is synchronous).
// Each child loads the built lock module (dist/, so `npm run build` first), waits for "go" on
// stdin, tries to take the lock, reports, and holds what it won until its stdin closes, so a
// second winner cannot be a legitimate later acquisition.
describe("data-folder lock under concurrent starts", () => {
  const racers = 8;
  const builtLock = join(import.meta.dirname, "../../dist/runtime/store/lock.js");
  const racer = `
    import { pathToFileURL } from "node:url";
    const [modulePath, dir] = process.argv.slice(1);
    const { acquireDataLock } = await import(pathToFileURL(modulePath).href);
    let lock;
    process.stdin.setEncoding("utf8");
    process.stdin.once("data", () => {
      try {
        lock = acquireDataLock(dir);
        process.stdout.write("won\\n");
      } catch (err) {
        process.stdout.write(err.pid > 0 ? "refused " + err.pid + "\\n" : "error " + err.message + "\\n");
      }
    });
    process.stdin.on("end", () => lock?.release());
    process.stdout.write("ready\\n");
  `;

  interface Racer {
    child: ReturnType<typeof spawn>;
    /** The first line after "ready": `won`, `refused <pid>` or `error <message>`. */
    report: Promise<string>;
    exited: Promise<unknown>;
  }

  function startRacer(dir: string): Promise<Racer> {
    const child = spawn(process.execPath, ["--input-type=module", "-e", racer, builtLock, dir], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = new Promise((r) => child.once("exit", r));
    child.stdin!.on("error", () => {}); // EPIPE from a racer already killed
    let out = "";
    const onLine: ((line: string) => void)[] = [];
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      let nl: number;
      while ((nl = out.indexOf("\n")) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        onLine.shift()?.(line);
      }
    });
    const nextLine = () => new Promise<string>((r) => onLine.push(r));
    const ready = nextLine();
    const report = nextLine();
    return Promise.race([
      ready.then(() => ({ child, report, exited })),
      exited.then((code) => Promise.reject(new Error(`racer exited (${String(code)}) before it was ready`))),
    ]);
  }

  it("exactly one of many processes starting at once wins, from a free folder and from stale locks", async () => {
    if (!existsSync(builtLock)) throw new Error(`${builtLock} is missing: run \`npm run build\` first`);
    const dir = join(tmp.dir, "data");
    mkdirSync(dir, { recursive: true });
    // What the folder holds when each round starts. "the last winner, killed" is the lock of a
    // process that died holding it, as a crashed server leaves it.
    const rounds = [
      "a free folder",
      "a free folder",
      "the last winner, killed",
      "a dead pid",
      "the last winner, killed",
      "an empty file",
      "a free folder",
      "the last winner, killed",
      "garbage",
      "a dead pid",
    ] as const;
    const all: Racer[] = [];
    let previous: Racer[] = [];
    let lastWinner: Racer | undefined;
    try {
      for (const start of rounds) {
        if (start === "the last winner, killed") lastWinner!.child.kill("SIGKILL");
        // End the previous round: losers exit, a winner still alive releases and exits.
        for (const r of previous) r.child.stdin!.end();
        await Promise.all(previous.map((r) => r.exited));
        if (start === "the last winner, killed")
          expect(existsSync(lockFile()), "a killed winner leaves its lock").toBe(true);
        if (start === "a dead pid") writeFileSync(lockFile(), `${deadPid()}\n`);
        if (start === "an empty file") writeFileSync(lockFile(), "");
        if (start === "garbage") writeFileSync(lockFile(), "12ab");

        const round = await Promise.all(Array.from({ length: racers }, () => startRacer(dir)));
        all.push(...round);
        for (const r of round) r.child.stdin!.write("go\n");
        const reports = await Promise.all(round.map((r) => r.report));
        const winners = round.filter((_, i) => reports[i] === "won");
        expect(winners.length, `winners starting from ${start}: ${reports.join(", ")}`).toBe(1);
        const winnerPid = winners[0]!.child.pid;
        expect(
          reports.filter((r) => r !== "won"),
          `losers starting from ${start}`,
        ).toEqual(Array(racers - 1).fill(`refused ${winnerPid}`));
        expect(readFileSync(lockFile(), "utf8")).toBe(`${winnerPid}\n`);
        lastWinner = winners[0];
        previous = round;
      }
      for (const r of previous) r.child.stdin!.end();
      await Promise.all(previous.map((r) => r.exited));
      // Released, and nothing left behind: no temp files, no takeover lock.
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      for (const r of all) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    }
  }, 120_000);
});
