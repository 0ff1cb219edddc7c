// `wo run [dir] [flags]` (flags: cli/commands/table.ts): build the app if its build is
// stale (diagnostics printed, exit 1 on errors) — or show the warnings a fresh build recorded —
// then start the server (runtime/server.ts) and serve until SIGINT/SIGTERM; or, with
// --background, hand it to a detached child (background.ts) and return once that child is
// verified serving. wo.toml settings apply; flags override. User errors print one message,
// never a stack trace. With --watch, edits are rebuilt and swapped in while serving (watch.ts).

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { freshBuildInfo, hashInputs, replayWarnings } from "../../compiler/build-info.js";
import { workspaceRefusal } from "../../compiler/check/layout.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";
import { ServerStartError, startServer } from "../../runtime/server.js";
import type { RequestLogFormat } from "../../runtime/request-log.js";
import { logFileName, takeDatabaseUrl } from "../../runtime/ops/instance-state.js";
import { openLogFile } from "../../runtime/ops/log-file.js";
import { checkPrivateDir, PrivateFileError, runtimeDirFor } from "../../runtime/ops/private-files.js";
import type { ParsedArgs } from "./args.js";

export interface RunArgs {
  dir: string;
  listen?: string;
  db?: string;
  allowDestructiveMigration: boolean;
  /** `--watch`: rebuild on changes and swap the new build in (watch.ts). */
  watch: boolean;
  /** `--no-mcp-sessions` (false) / `--mcp-sessions` (true); undefined keeps wo.toml's choice. */
  mcpSessions?: boolean;
  /** `--quiet` → "off", `--log json` → "json", else "text". */
  requestLog: RequestLogFormat;
  /** `--background`: start a detached instance and return (background.ts). */
  background: boolean;
  /** Internal: this process is that detached instance (started by background.ts, never by hand). */
  backgroundChild: boolean;
  /** Internal: that instance's `--db` URL is in its runtime directory (background.ts). */
  dbInRuntimeDir: boolean;
  runtimeDir?: string;
  tokenFile?: string;
}

/** The flags of `wo run` as the server and background.ts take them. */
export function runArgsOf(args: ParsedArgs): RunArgs | string {
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    value !== undefined ? ({ [key]: value } as Record<K, V>) : {};
  const mcpSessions = args.has("--no-mcp-sessions") ? false : args.has("--mcp-sessions") ? true : undefined;
  const out: RunArgs = {
    dir: args.first ?? ".",
    ...optional("listen", args.value("--listen")),
    ...optional("db", args.value("--db")),
    allowDestructiveMigration: args.has("--allow-destructive-migration"),
    watch: args.has("--watch"),
    ...optional("mcpSessions", mcpSessions),
    requestLog: args.has("--quiet") ? "off" : args.value("--log") === "json" ? "json" : "text",
    background: args.has("--background"),
    backgroundChild: args.has("--background-child"),
    dbInRuntimeDir: args.has("--db-in-runtime-dir"),
    ...optional("runtimeDir", args.value("--runtime-dir")),
    ...optional("tokenFile", args.value("--token-file")),
  };
  if (out.background && out.backgroundChild) return "--background-child is internal to --background";
  if (out.dbInRuntimeDir && !out.backgroundChild) return "--db-in-runtime-dir is internal to --background";
  return out;
}

export async function runRunCommand(args: ParsedArgs): Promise<number> {
  const parsed = runArgsOf(args);
  if (typeof parsed === "string") {
    const { usageError } = await import("./help.js");
    const { findCommand } = await import("./table.js");
    return usageError(findCommand("run"), parsed);
  }
  if (parsed.background) return (await import("./background.js")).runInBackground(parsed);
  // The detached instance has no terminal: what it would print goes to its bounded log.
  let write: (text: string) => void = (text) => void process.stderr.write(text);
  let out: ((text: string) => void) | undefined;
  let runtimeDir: string | undefined;
  try {
    // Where the automatic token lives if wo.toml asks for it (`token = "auto"`); created only then.
    if (existsSync(parsed.dir)) runtimeDir = runtimeDirFor(resolve(parsed.dir), parsed.runtimeDir);
    if (parsed.backgroundChild) {
      if (checkPrivateDir(runtimeDir!) === "missing")
        throw new PrivateFileError(
          `${runtimeDir} does not exist; start background instances with \`wo run --background\`.`,
        );
      const log = openLogFile(join(runtimeDir!, logFileName));
      write = out = (text) => log.write(text);
      if (parsed.dbInRuntimeDir) {
        const url = takeDatabaseUrl(runtimeDir!);
        if (url === undefined)
          throw new PrivateFileError(`${runtimeDir} holds no database URL; start with \`wo run --background\`.`);
        parsed.db = url;
      }
      process.on("uncaughtException", (err) => {
        write(`wo: internal error: ${err.message} (this is a bug in wo)\n`);
        process.exit(70);
      });
    }
  } catch (err) {
    if (!(err instanceof PrivateFileError)) throw err;
    write(`wo run: ${err.message}\n`);
    return 1;
  }
  try {
    const built = await buildIfStale(parsed.dir);
    for (const d of built.diagnostics) write(`${formatWithSources(d, built.sources)}\n`);
    if (!built.ok) {
      write(`wo run: ${built.error ?? "the app has errors; fix them and run again"}.\n`);
      return 1;
    }
    const server = await startServer({
      appDir: resolve(parsed.dir),
      buildDir: built.outDir,
      ...(parsed.listen !== undefined ? { listen: parsed.listen } : {}),
      ...(parsed.db !== undefined ? { db: parsed.db } : {}),
      allowDestructiveMigration: parsed.allowDestructiveMigration,
      ...(parsed.mcpSessions !== undefined ? { mcpSessions: parsed.mcpSessions } : {}),
      ...(parsed.tokenFile !== undefined ? { tokenFile: parsed.tokenFile } : {}),
      ...(runtimeDir !== undefined ? { runtimeDir } : {}),
      ...(out ? { out, log: (line: string) => write(`wo: ${line}\n`) } : {}),
      requestLog: parsed.requestLog,
      requestLogTo: write,
      background: parsed.backgroundChild,
      handleSignals: true,
      watch: parsed.watch,
    });
    if (parsed.watch) (await import("./watch.js")).watchApp(parsed.dir, server, write);
    // Serving: the signal handlers exit the process. Never resolve, so main() sets no exit code.
    return await new Promise<number>(() => {});
  } catch (err) {
    if (err instanceof ServerStartError) {
      write(`wo run: ${err.message}\n`);
      return 1;
    }
    const detail = process.env.WO_DEBUG === "1" && err instanceof Error ? `\n${err.stack}` : "";
    write(
      `wo run: internal error: ${err instanceof Error ? err.message : String(err)} (this is a bug in wo)${detail}\n`,
    );
    return 2;
  }
}

/**
 * The up-to-date check needs only the sources; the compiler (parser, ts-morph, TypeScript —
 * seconds to load) runs only when there is something to build, and then in a worker thread,
 * so the server's heap never holds it (compiler/build-worker.ts). A fresh build's warnings
 * come from its build-info.json, so they show on every start without checking again.
 */
export async function buildIfStale(dir: string, command = "run", workspace: "refuse" | "allow" = "refuse") {
  const outDir = join(resolve(dir), ".wo", "build");
  // A workspace root is no one app (compiler/check/layout.ts); only `wo test` builds its program.
  const refused = workspace === "refuse" ? workspaceRefusal(dir, command) : undefined;
  if (refused)
    return { ok: false, outDir, error: "nothing to serve or build in a workspace root", ...refused } as const;
  const hash = await hashInputs(resolve(dir));
  const fresh = hash !== undefined ? await freshBuildInfo(outDir, hash) : undefined;
  if (fresh) return { ok: true, outDir, error: undefined, ...(await replayWarnings(fresh, dir)) } as const;
  const { buildInWorker } = await import("../../compiler/build-worker.js");
  return buildInWorker(dir);
}
