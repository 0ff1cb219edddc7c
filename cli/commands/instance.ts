// What the CLI knows about an app's background instance, and `wo status` / `wo stop`.
// probeInstance reads the private runtime directory and asks the instance itself over the
// authenticated management endpoint (runtime/ops/management.ts): a state file alone, or a live
// PID, proves nothing. `wo run --background` and `wo mcp install` use the same probe.
//
//   wo status [dir] [--runtime-dir DIR]   exit 0 starting/running/stopping, 3 not running or stale, 1 unknown
//   wo stop   [dir] [--runtime-dir DIR]   exit 0 once stopped (or when it was not running), 1 otherwise

import { resolve } from "node:path";
import { callManagement, type InstanceStatus } from "../../runtime/ops/management.js";
import { readInstanceState, readManagementKey, type InstanceState } from "../../runtime/ops/instance-state.js";
import { checkPrivateDir, PrivateFileError, runtimeDirFor } from "../../runtime/ops/private-files.js";
import type { ParsedArgs } from "./args.js";

/** How long a "starting" claim may stand before it counts as abandoned (a start that died). */
export const startTimeoutMs = 60_000;
/** How long `wo stop` waits for the instance to finish its shutdown (drain is 5 s, then the store). */
const stopWaitMs = 20_000;

export type Probe =
  | { kind: "none" }
  | { kind: "starting"; state: InstanceState }
  | { kind: "running"; state: InstanceState; status: InstanceStatus }
  /** Its state is there but no instance answers for it: killed, or the URL is someone else's now. */
  | { kind: "stale"; why: string; state?: InstanceState }
  /** Something is there but did not answer in time: not proof it is gone. */
  | { kind: "no_answer"; state: InstanceState; why: string };

export async function probeInstance(runtimeDir: string): Promise<Probe> {
  if (checkPrivateDir(runtimeDir) === "missing") return { kind: "none" };
  const read = readInstanceState(runtimeDir);
  if (read.kind === "none") return { kind: "none" };
  if (read.kind === "invalid") return { kind: "stale", why: `its state file is unusable: ${read.why}` };
  const { state } = read;
  if (state.state === "starting") {
    const age = Date.now() - Date.parse(state.startedAt);
    if (age >= 0 && age < startTimeoutMs) return { kind: "starting", state };
    return { kind: "stale", state, why: `a start claimed it at ${state.startedAt} and never finished` };
  }
  const key = readManagementKey(runtimeDir);
  if (!key) return { kind: "stale", state, why: "its management key is missing or unreadable" };
  const answer = await callManagement(state.url!, key, "status");
  if (answer.kind === "ok") return { kind: "running", state, status: answer.status };
  if (answer.kind === "unreachable") return { kind: "stale", state, why: `nothing answers at ${state.url}` };
  if (answer.kind === "foreign")
    return { kind: "stale", state, why: `${state.url} is not this instance (${answer.why})` };
  return { kind: "no_answer", state, why: answer.why };
}

export function describeStatus(status: InstanceStatus): string {
  return [
    `state     ${status.state}`,
    `url       ${status.url}`,
    `mcp       ${status.url}/mcp`,
    `pid       ${status.pid} (for inspection; wo stop does not use it)`,
    `uptime    ${formatDuration(status.uptimeSeconds)} (since ${status.startedAt})`,
    `requests  ${status.requests}`,
    ...(status.build ? [`build     ${status.build}`] : []),
  ]
    .map((line) => `  ${line}\n`)
    .join("");
}

export async function runStatusCommand(args: ParsedArgs): Promise<number> {
  return withInstanceArgs("status", args, async (appDir, runtimeDir) => {
    const probe = await probeInstance(runtimeDir);
    switch (probe.kind) {
      case "none":
        process.stdout.write(`wo: ${appDir} is not running (no instance in ${runtimeDir}).\n`);
        return 3;
      case "starting":
        process.stdout.write(
          `wo: ${appDir} is starting (claimed at ${probe.state.startedAt} by pid ${probe.state.pid}).\n`,
        );
        return 0;
      case "running":
        process.stdout.write(`wo: ${appDir} is ${probe.status.state}\n${describeStatus(probe.status)}`);
        return 0;
      case "stale":
        process.stdout.write(
          `wo: ${appDir} is not running: stale instance state in ${runtimeDir} (${probe.why}${probe.state ? `; last pid ${probe.state.pid}` : ""}). \`wo run --background\` replaces it.\n`,
        );
        return 3;
      case "no_answer":
        process.stdout.write(
          `wo: ${appDir}: the instance at ${probe.state.url} (pid ${probe.state.pid}) does not answer (${probe.why}); it may be busy. Try again.\n`,
        );
        return 1;
    }
  });
}

export async function runStopCommand(args: ParsedArgs): Promise<number> {
  return withInstanceArgs("stop", args, async (appDir, runtimeDir) => {
    const probe = await probeInstance(runtimeDir);
    switch (probe.kind) {
      case "none":
        process.stdout.write(`wo: ${appDir} is not running; nothing to stop.\n`);
        return 0;
      case "stale":
        // Left in place: a wrong key must not make a live instance unmanageable. A new start
        // replaces stale state (and meets the data folder's lock if an instance does live on).
        process.stdout.write(
          `wo: ${appDir} is not running: ${probe.why}. Nothing was stopped; \`wo run --background\` replaces the stale state.\n`,
        );
        return 0;
      case "starting":
        process.stderr.write(
          `wo stop: ${appDir} is still starting (since ${probe.state.startedAt}); try again in a moment.\n`,
        );
        return 1;
      case "no_answer":
        process.stderr.write(
          `wo stop: the instance at ${probe.state.url} does not answer (${probe.why}); it was not asked to stop. Try again.\n`,
        );
        return 1;
      case "running":
        break;
    }
    const key = readManagementKey(runtimeDir)!;
    const answer = await callManagement(probe.state.url!, key, "stop");
    if (answer.kind !== "ok") {
      // It answered the status call a moment ago: it may have stopped in between.
      if (answer.kind === "unreachable" && readInstanceState(runtimeDir).kind === "none") {
        process.stdout.write(`wo: ${appDir} stopped.\n`);
        return 0;
      }
      process.stderr.write(`wo stop: the instance did not accept the stop request (${answer.kind}).\n`);
      return 1;
    }
    // Stopped means its store is closed, the data folder's lock released and its state removed:
    // the instance removes the state file last.
    const deadline = Date.now() + stopWaitMs;
    while (Date.now() < deadline) {
      const read = readInstanceState(runtimeDir);
      if (read.kind === "none" || (read.kind === "state" && read.state.pid !== probe.state.pid)) {
        process.stdout.write(
          `wo: ${appDir} stopped (pid ${probe.status.pid}, served ${probe.status.requests} requests).\n`,
        );
        return 0;
      }
      await sleep(100);
    }
    process.stderr.write(
      `wo stop: asked ${probe.state.url} to stop; it is still stopping after ${stopWaitMs / 1000} s. Check with \`wo status\`.\n`,
    );
    return 1;
  });
}

/** `[dir] [--runtime-dir DIR]`: resolves the runtime directory and reports its errors. */
async function withInstanceArgs(
  name: string,
  args: ParsedArgs,
  body: (appDir: string, runtimeDir: string) => Promise<number>,
): Promise<number> {
  try {
    const appDir = resolve(args.first ?? ".");
    return await body(appDir, runtimeDirFor(appDir, args.value("--runtime-dir")));
  } catch (err) {
    if (err instanceof PrivateFileError) {
      process.stderr.write(`wo ${name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h ${m}m ${s}s` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}
