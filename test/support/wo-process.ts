// Test support for running the real CLI as a user would: `node bin/wo.js run …` as a child
// process (the compiled CLI in dist/, so `npm run build` first — `npm test` does), on a copy
// of an app in a temp folder. Waits for the printed `serving at http://…` URL, stops with any
// signal, and reads the app's SQLite file directly.
//
// Shared by the runtime, REST, methods and MCP end-to-end suites; what only one suite needs
// (MCP sample arguments, an MCP SDK client, a JSON POST) stays in that suite's support.
//
// The Node running the tests (`process.execPath`: the one better-sqlite3 was built for) unless
// WO_TEST_NODE names another of the same major version: .ci/run runs wo's end-to-end suites
// again with the oldest Node wo supports that way (vitest itself needs a newer one).

import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";

export const repoRoot = resolve(import.meta.dirname, "../..");
const bin = join(repoRoot, "bin/wo.js");
/** The Node that runs `bin/wo.js` in these tests. */
export const woNode = process.env.WO_TEST_NODE || process.execPath;

/** A fresh empty temp folder (a data folder for `--db`, say). */
export function tempDir(prefix = "wo-e2e-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A copy of an app folder (absolute, or relative to the repository: `samples/hello`) as
 * `<temp>/<its name>`, so builds, data and edits stay out of the repository. A `.wo` build
 * or data folder in the original is not copied.
 */
export function copyApp(from: string): string {
  const name = basename(from);
  const appDir = join(tempDir(`wo-e2e-${name}-`), name);
  cpSync(resolve(repoRoot, from), appDir, { recursive: true, filter: (src) => basename(src) !== ".wo" });
  return appDir;
}

/** An app written from `files` (relative path → text) as `<temp>/<name>`. */
export function writeApp(name: string, files: Record<string, string>): string {
  const appDir = join(tempDir(`wo-e2e-${name}-`), name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(appDir, path)), { recursive: true });
    writeFileSync(join(appDir, path), text);
  }
  return appDir;
}

/** Deletes an app made by copyApp or writeApp, with the temp folder around it. */
export function removeApp(appDir: string): void {
  rmSync(dirname(appDir), { recursive: true, force: true });
}

export interface WoProcess {
  /** Where it serves: `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  child: ChildProcess;
  /** Everything printed so far, stdout and stderr. */
  output: () => string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** Sends `signal` (SIGTERM unless told) unless it has already ended; resolves like `exited`. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface RunOptions {
  /** Added to the test process's environment. */
  env?: Record<string, string>;
  /** Run as this user (the test process must be root), e.g. so that file permissions bind. */
  user?: { uid: number; gid: number };
}

function spawnWo(args: string[], options: RunOptions) {
  const child = spawn(woNode, [bin, "run", ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...options.user,
  });
  let out = "";
  const collect = (c: Buffer) => (out += c.toString());
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<number | string>((res) => child.on("exit", (code, signal) => res(code ?? signal ?? -1)));
  return { child, output: () => out, exited };
}

// The URL counts only once the whitespace after it has arrived: output can come in chunks
// split mid-address, and `\S+` alone would then accept `http://127.0.0.1:41` for port 41234.
const servingAt = /serving at (http:\/\/\S+)\s/;

/** Starts `wo run <args>`; resolves once it prints its URL, rejects with the output if it exits first. */
export function startWo(args: string[], options: RunOptions = {}): Promise<WoProcess> {
  const { child, output, exited } = spawnWo(args, options);
  const hasEnded = () => child.exitCode !== null || child.signalCode !== null;
  return new Promise((resolvePromise, reject) => {
    const onData = () => {
      const m = servingAt.exec(output());
      if (!m) return;
      child.stdout!.off("data", onData);
      child.stderr!.off("data", onData);
      resolvePromise({
        url: m[1]!,
        child,
        output,
        exited,
        stop(signal = "SIGTERM") {
          if (!hasEnded()) child.kill(signal);
          return exited;
        },
      });
    };
    // Registered after spawnWo's collectors, so output() already holds the chunk.
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) =>
      reject(new Error(`wo run ${args.join(" ")} exited (${code}) before serving:\n${output()}`)),
    );
  });
}

/** Runs `wo run <args>` expecting it to refuse to start; resolves with exit code and output. */
export async function runToExit(
  args: string[],
  options: RunOptions = {},
): Promise<{ code: number | string; output: string }> {
  const { child, output, exited } = spawnWo(args, options);
  // It was supposed to refuse: stop it rather than hang the test.
  const stopIfServing = () => {
    if (servingAt.test(output())) child.kill("SIGKILL");
  };
  child.stdout!.on("data", stopIfServing);
  child.stderr!.on("data", stopIfServing);
  const code = await exited;
  return { code, output: output() };
}

/**
 * Every user table of the app's database (`<appDir>/.wo/data/app.sqlite`, where `wo run`
 * keeps it without `--db`) with its rows in id order; wo's own `_wo_` tables and SQLite's are
 * left out. "Nothing changed" is equality of two dumps.
 */
export function dumpDb(appDir: string, options: { afterCrash?: boolean } = {}): Record<string, unknown[]> {
  // After a crash the first connection replays the write-ahead log, which needs write access.
  const db = new Database(join(appDir, ".wo/data/app.sqlite"), { readonly: !options.afterCrash, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_wo\\_%' ESCAPE '\\' ORDER BY name",
      )
      .all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) out[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY id`).all();
    return out;
  } finally {
    db.close();
  }
}

export interface CommandResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs `wo <args>` (any command) to its end: `wo status`, `wo stop`, `wo run --background`, … */
export function runWoCommand(args: string[], options: RunOptions = {}): Promise<CommandResult> {
  const child = spawn(woNode, [bin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((res) => child.on("close", (code, signal) => res({ code: code ?? signal ?? -1, stdout, stderr })));
}
