// `wo run --background`: start the app as a terminal-independent child and return once that
// exact child is serving. The steps (spec/operations.md, "Background start"):
//
// 1. The private runtime directory is made sure of (runtime/ops/private-files.ts).
// 2. The state file is claimed; if another instance's is there, the probe decides: a verified
//    running instance is returned as is (no second server), a stale one is replaced, anything
//    else (starting, stopping, not answering) is reported and left alone.
// 3. The app is built here, so diagnostics reach the terminal; the agent token is resolved here
//    too (and the automatic one created), so a bad token fails before anything starts.
// 4. A fresh management key is written to the runtime directory — the only channel it takes:
//    never argv or the environment, which other users' `ps` can read. So is a `--db`
//    PostgreSQL URL (it may hold a password); the child removes it once read.
// 5. The child (`wo run --background-child`) is spawned detached in its own session with no
//    inherited stdio; it logs to the runtime directory's bounded wo.log.
// 6. Ready means: the state file names the child's PID and the management endpoint at its URL
//    proves the key over a fresh nonce. If the child exits first, its log's new lines say why.

import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { AppContract } from "../../model/build-contract.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { resolveAgentToken, TokenError } from "../../runtime/ops/agent-token.js";
import {
  claimInstance,
  logFileName,
  readInstanceState,
  readManagementKey,
  removeInstance,
  renewClaim,
  writeDatabaseUrl,
  writeNewManagementKey,
} from "../../runtime/ops/instance-state.js";
import { callManagement } from "../../runtime/ops/management.js";
import { ensurePrivateDir, PrivateFileError, readPrivateFile, runtimeDirFor } from "../../runtime/ops/private-files.js";
import { describeStatus, probeInstance, sleep, startTimeoutMs } from "./instance.js";
import { buildIfStale, type RunArgs } from "./run.js";
import { isPostgresUrl } from "../../runtime/store/open.js";

const bin = fileURLToPath(new URL("../../../bin/wo.js", import.meta.url));

export async function runInBackground(args: RunArgs): Promise<number> {
  const appDir = resolve(args.dir);
  try {
    const runtimeDir = runtimeDirFor(appDir, args.runtimeDir);
    ensurePrivateDir(runtimeDir);
    const claimed = await claim(appDir, runtimeDir, args.runtimeDir);
    if (claimed !== true) return claimed;
    try {
      return await startChild(appDir, runtimeDir, args);
    } catch (err) {
      removeInstance(runtimeDir);
      throw err;
    }
  } catch (err) {
    if (err instanceof PrivateFileError || err instanceof TokenError) {
      process.stderr.write(`wo run: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** True once the runtime directory is ours to start in; else the exit code to return. */
async function claim(appDir: string, runtimeDir: string, explicitDir: string | undefined): Promise<true | number> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (claimInstance(runtimeDir)) return true;
    const probe = await probeInstance(runtimeDir);
    switch (probe.kind) {
      case "none":
        continue; // it stopped in between: claim again
      case "stale":
        process.stderr.write(`wo: replacing stale instance state in ${runtimeDir} (${probe.why}).\n`);
        removeInstance(runtimeDir);
        continue;
      case "running":
        if (probe.status.state === "stopping") {
          process.stderr.write(
            `wo run: ${appDir} is stopping; start it again once \`wo status\` says it is not running.\n`,
          );
          return 1;
        }
        process.stdout.write(
          `wo: ${appDir} is already running in the background at ${probe.status.url}\n${describeStatus(probe.status)}`,
        );
        process.stdout.write(
          `  stop      wo stop ${quote(appDir)}${explicitDir !== undefined ? ` --runtime-dir ${quote(runtimeDir)}` : ""}\n`,
        );
        return 0;
      case "starting":
        process.stderr.write(
          `wo run: ${appDir} is already being started (since ${probe.state.startedAt}); check \`wo status\` in a moment.\n`,
        );
        return 1;
      case "no_answer":
        process.stderr.write(
          `wo run: an instance of ${appDir} is recorded at ${probe.state.url} but does not answer (${probe.why}); check \`wo status\`.\n`,
        );
        return 1;
    }
  }
  process.stderr.write(`wo run: could not claim ${runtimeDir}: other starts keep taking it.\n`);
  return 1;
}

async function startChild(appDir: string, runtimeDir: string, args: RunArgs): Promise<number> {
  const built = await buildIfStale(appDir);
  for (const d of built.diagnostics) process.stderr.write(`${formatWithSources(d, built.sources)}\n`);
  if (!built.ok) {
    removeInstance(runtimeDir);
    process.stderr.write(`wo run: ${built.error ?? "the app has errors; fix them and run again"}.\n`);
    return 1;
  }
  renewClaim(runtimeDir);
  const catalog = JSON.parse(readFileSync(join(built.outDir, "app.json"), "utf8")) as AppContract;
  const token = resolveAgentToken({
    config: catalog.config,
    env: process.env,
    ...(args.tokenFile !== undefined ? { tokenFile: resolve(args.tokenFile) } : {}),
    automaticIn: runtimeDir,
  });
  writeNewManagementKey(runtimeDir);

  const logFile = join(runtimeDir, logFileName);
  const logStart = sizeOf(logFile);
  const childArgs = [bin, "run", appDir, "--background-child", "--runtime-dir", runtimeDir];
  if (args.listen !== undefined) childArgs.push("--listen", args.listen);
  // A folder or file is made absolute for the child; a postgres:// URL, which may hold a
  // password, goes through a private file: argv is readable by every user (/proc/PID/cmdline).
  if (args.db !== undefined && isPostgresUrl(args.db)) {
    writeDatabaseUrl(runtimeDir, args.db);
    childArgs.push("--db-in-runtime-dir");
  } else if (args.db !== undefined) childArgs.push("--db", resolve(args.db));
  if (args.allowDestructiveMigration) childArgs.push("--allow-destructive-migration");
  if (args.watch) childArgs.push("--watch");
  if (args.mcpSessions !== undefined) childArgs.push(args.mcpSessions ? "--mcp-sessions" : "--no-mcp-sessions");
  if (args.tokenFile !== undefined) childArgs.push("--token-file", resolve(args.tokenFile));
  if (args.requestLog !== "text") childArgs.push(...(args.requestLog === "off" ? ["--quiet"] : ["--log", "json"]));
  const child = spawn(process.execPath, childArgs, { detached: true, stdio: "ignore", cwd: appDir });
  let exited: number | string | undefined;
  child.on("exit", (code, signal) => (exited = code ?? signal ?? -1));
  const spawnFailed = new Promise<Error>((r) => child.once("error", r));
  let spawnError: Error | undefined;
  void spawnFailed.then((e) => (spawnError = e));

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (spawnError) throw spawnError;
    if (exited !== undefined) {
      removeInstance(runtimeDir);
      const said = newLogText(logFile, logStart).trim();
      process.stderr.write(
        `wo run: the background instance exited (${exited}) before serving${said ? `:\n${said}\n` : `; see ${logFile}.\n`}`,
      );
      return 1;
    }
    const read = readInstanceState(runtimeDir);
    if (read.kind === "state" && read.state.state === "running" && read.state.pid === child.pid) {
      const key = readManagementKey(runtimeDir);
      const answer = key ? await callManagement(read.state.url!, key, "status") : undefined;
      if (answer?.kind === "ok" && answer.status.pid === child.pid) {
        child.unref();
        const tokenLine = token?.file
          ? `  token     ${token.file}\n`
          : token
            ? `  token     from $${catalog.config.tokenEnv}\n`
            : "";
        process.stdout.write(`wo: ${catalog.app.name} running in the background at ${answer.status.url}\n`);
        process.stdout.write(
          `  mcp       ${answer.status.url}/mcp\n${tokenLine}  pid       ${child.pid} (for inspection)\n  log       ${logFile}\n  stop      wo stop ${quote(appDir)}${args.runtimeDir !== undefined ? ` --runtime-dir ${quote(runtimeDir)}` : ""}\n`,
        );
        return 0;
      }
    }
    await sleep(100);
  }
  // Never left running unverified: it is ours (we spawned it), so we may end it.
  child.kill("SIGTERM");
  removeInstance(runtimeDir);
  process.stderr.write(
    `wo run: the background instance did not become ready within ${startTimeoutMs / 1000} s; stopped it. See ${logFile}.\n`,
  );
  return 1;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What the child added to its log since `from` (last 4 KB at most): why it did not start. */
function newLogText(file: string, from: number): string {
  const bytes = Buffer.from(readPrivateFile(file) ?? "");
  const added = (bytes.length >= from ? bytes.subarray(from) : bytes).toString("utf8"); // shorter: it rotated
  return added.length > 4096 ? added.slice(-4096) : added;
}

function quote(path: string): string {
  return /^[A-Za-z0-9_./:@%+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
