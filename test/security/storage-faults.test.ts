// Storage faults, seen as a user of `wo run` sees them (spec/security.md, "Storage faults"):
// a restart after a crash is not refused, a database wo cannot use is refused at start with
// what is wrong and how to fix it, and a full database answers 503 without flooding the log.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyApp, removeApp, repoRoot, startWo, type WoProcess } from "../support/wo-process.js";

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
