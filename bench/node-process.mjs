// The benches' servers as child processes: a Node script of this repository (bin/wo.js, a
// baseline server) started with this Node, its URL read from what it prints, and a SIGTERM
// stop that waits for the exit. (Tests have their own, richer test/support/wo-process.ts.)
import { execFileSync, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "..");

/**
 * Pins the load generator (this process) to the last CPU and the servers to the others, so a
 * server and the load never share a core and the scheduler cannot move them around between
 * cases: on a small shared machine that placement alone swung results by tens of percent.
 * Needs Linux `taskset` and two CPUs; BENCH_PIN=0 turns it off. Returns what it did, to print.
 */
let serverCpus;
export function pinCpus() {
  const cpus = availableParallelism();
  if (process.env.BENCH_PIN === "0" || process.platform !== "linux" || cpus < 2) return "not pinned";
  try {
    execFileSync("taskset", ["-p", "-c", String(cpus - 1), String(process.pid)], { stdio: "ignore" });
  } catch {
    return "not pinned (no taskset)";
  }
  serverCpus = cpus === 2 ? "0" : `0-${cpus - 2}`;
  return `servers on CPU ${serverCpus}, load generator on CPU ${cpus - 1}`;
}

/**
 * Moves a process this one forked (all its threads) onto the servers' CPUs, when pinCpus
 * pinned them: for a forked process that stands where a server would.
 */
export function moveToServerCpus(pid) {
  if (!serverCpus) return;
  try {
    execFileSync("taskset", ["-a", "-p", "-c", serverCpus, String(pid)], { stdio: "ignore" });
  } catch {
    // No taskset after all: leave it where the scheduler puts it.
  }
}

/**
 * Starts `node <script> <args>` (script relative to the repository; `env` added to this
 * process's environment); resolves with the child
 * and the first group of `pattern` once the output matches it, rejects with the output if the
 * process exits first.
 */
export function startNode(script, args, pattern, env = {}) {
  const command = [process.execPath, resolve(repoRoot, script), ...args];
  const [file, ...rest] = serverCpus ? ["taskset", "-c", serverCpus, ...command] : command;
  const child = spawn(file, rest, {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
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

/** `--name N` from the command line as a number, else `fallback`. */
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** `--old CHECKOUT`: another checkout (built) a bench measures beside this one, as an absolute path; else undefined. */
export function oldCheckoutArg() {
  const i = process.argv.indexOf("--old");
  return i > 0 ? resolve(process.argv[i + 1]) : undefined;
}

/** `wo run DIR` on a free loopback port, quiet; resolves once it serves, with its URL. */
export function serveApp(dir, env = {}) {
  return startNode("bin/wo.js", ["run", dir, "--quiet", "--listen", "127.0.0.1:0"], /serving at (http:\/\/\S+)/, env);
}
