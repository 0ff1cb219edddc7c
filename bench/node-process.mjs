// The benches' servers as child processes: a Node script of this repository (bin/wo.js, a
// baseline server) started with this Node, its URL read from what it prints, and a SIGTERM
// stop that waits for the exit. (Tests have their own, richer test/support/wo-process.ts.)
import { spawn } from "node:child_process";
import { resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "..");

/**
 * Starts `node <script> <args>` (script relative to the repository); resolves with the child
 * and the first group of `pattern` once the output matches it, rejects with the output if the
 * process exits first.
 */
export function startNode(script, args, pattern) {
  const child = spawn(process.execPath, [resolve(repoRoot, script), ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolveStart, reject) => {
    const onData = (d) => {
      out += d;
      const m = pattern.exec(out);
      if (!m) return;
      // Stop collecting: a server under load may print a lot, and nobody reads it.
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      resolveStart({ child, url: m[1] });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${script} ${args.join(" ")} exited ${code}:\n${out}`)));
  });
}

export async function stopNode(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
