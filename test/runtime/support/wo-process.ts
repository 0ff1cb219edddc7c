// Runs the real CLI (`node bin/wo.js run …`) as a child process, as a user would: waits for
// the printed URL, and can stop it with a signal. Needs `npm run build` (npm test does it).
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../../..");
const bin = join(root, "bin/wo.js");

export interface WoProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): Promise<number | string>;
}

/** A copy of samples/<name> (or any app folder) in a temp dir, so builds and edits stay there. */
export function copyApp(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), "wo-e2e-"));
  cpSync(resolve(root, from), dir, { recursive: true, filter: (src) => !src.includes(`${"/"}.wo`) });
  return dir;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "wo-e2e-data-"));
}

/** Starts `wo run`; resolves once it prints its URL, rejects with the output if it exits first. */
export function startWo(args: string[], env: Record<string, string> = {}): Promise<WoProcess> {
  const child = spawn(process.execPath, [bin, "run", ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<number | string>((res) => child.on("exit", (code, signal) => res(code ?? signal ?? -1)));
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving at (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout!.off("data", onData);
        child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
        resolvePromise({
          url: m[1]!,
          child,
          output: () => out,
          exited,
          kill: (signal) => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    void exited.then((code) => reject(new Error(`wo run exited (${code}) before serving:\n${out}`)));
  });
}

/** Runs `wo run` expecting it to refuse to start; resolves with exit code and output. */
export function runToExit(args: string[]): Promise<{ code: number | string; output: string }> {
  const child = spawn(process.execPath, [bin, "run", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const collect = (c: Buffer) => {
    out += c.toString();
    // It was supposed to refuse: stop it rather than hang the test.
    if (/serving at/.test(out)) child.kill("SIGKILL");
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return new Promise((res) => child.on("exit", (code, signal) => res({ code: code ?? signal ?? -1, output: out })));
}
