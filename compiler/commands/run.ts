// `wo run [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]
//         [--background] [--runtime-dir DIR] [--token-file FILE]`: build the app if its build is
// stale (diagnostics printed, exit 1 on errors), then start the server (runtime/server.ts) and
// serve until SIGINT/SIGTERM — or, with --background, hand it to a detached child
// (background.ts) and return once that child is verified serving. wo.toml settings apply; flags
// override. User errors print one message, never a stack trace.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { hashInputs, isUpToDate } from "../build-info.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { ServerStartError, startServer } from "../../runtime/server.js";
import { logFileName } from "../../runtime/ops/instance-state.js";
import { openLogFile } from "../../runtime/ops/log-file.js";
import { checkPrivateDir, PrivateFileError, runtimeDirFor } from "../../runtime/ops/private-files.js";

const usage =
  "usage: wo run [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]\n" +
  "              [--background] [--runtime-dir DIR] [--token-file FILE]\n";

export interface RunArgs {
  dir: string;
  listen?: string;
  db?: string;
  allowDestructiveMigration: boolean;
  /** `--no-mcp-sessions` (false) / `--mcp-sessions` (true); undefined keeps wo.toml's choice. */
  mcpSessions?: boolean;
  /** `--background`: start a detached instance and return (background.ts). */
  background: boolean;
  /** Internal: this process is that detached instance (started by background.ts, never by hand). */
  backgroundChild: boolean;
  runtimeDir?: string;
  tokenFile?: string;
}

export function parseRunArgs(args: string[]): RunArgs | string {
  const out: RunArgs = { dir: ".", allowDestructiveMigration: false, background: false, backgroundChild: false };
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--listen" || flag === "--db" || flag === "--runtime-dir" || flag === "--token-file") {
      const value = inline ?? args[++i];
      if (value === undefined || value === "") return `${flag} needs a value`;
      if (flag === "--listen") out.listen = value;
      else if (flag === "--db") out.db = value;
      else if (flag === "--runtime-dir") out.runtimeDir = value;
      else out.tokenFile = value;
    } else if (flag === "--background") {
      out.background = true;
    } else if (flag === "--background-child") {
      out.backgroundChild = true;
    } else if (flag === "--allow-destructive-migration") {
      out.allowDestructiveMigration = true;
    } else if (flag === "--no-mcp-sessions" || flag === "--mcp-sessions") {
      out.mcpSessions = flag === "--mcp-sessions";
    } else if (arg.startsWith("-")) {
      return `unknown option '${arg}'`;
    } else {
      dirs.push(arg);
    }
  }
  if (dirs.length > 1) return `one directory expected, got ${dirs.length}`;
  if (out.background && out.backgroundChild) return "--background-child is internal to --background";
  out.dir = dirs[0] ?? ".";
  return out;
}

export async function runRunCommand(args: string[]): Promise<number> {
  const parsed = parseRunArgs(args);
  if (typeof parsed === "string") {
    process.stderr.write(`wo run: ${parsed}\n${usage}`);
    return 2;
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
      if (checkPrivateDir(runtimeDir!) === "missing") throw new PrivateFileError(`${runtimeDir} does not exist; start background instances with \`wo run --background\`.`);
      const log = openLogFile(join(runtimeDir!, logFileName));
      write = out = (text) => log.write(text);
      process.on("uncaughtException", (err) => {
        write(`wo: internal error: ${err.message} (this is a bug in wo)\n`);
        process.exit(70);
      });
    }
  } catch (err) {
    if (!(err instanceof PrivateFileError)) throw err;
    process.stderr.write(`wo run: ${err.message}\n`);
    return 1;
  }
  try {
    const built = await buildIfStale(parsed.dir);
    for (const d of built.diagnostics) {
      const text = built.sources?.get(d.span.file);
      const line = text === undefined ? `${d.span.file}:${d.span.line}:${d.span.col}: ${d.severity} ${d.code}: ${d.message}` : formatDiagnostic(d, text);
      write(`${line.replace(/\n+$/, "")}\n`);
    }
    if (!built.ok) {
      write(`wo run: ${built.error ?? "the app has errors; fix them and run again"}.\n`);
      return 1;
    }
    await startServer({
      appDir: resolve(parsed.dir),
      buildDir: built.outDir,
      ...(parsed.listen !== undefined ? { listen: parsed.listen } : {}),
      ...(parsed.db !== undefined ? { db: parsed.db } : {}),
      allowDestructiveMigration: parsed.allowDestructiveMigration,
      ...(parsed.mcpSessions !== undefined ? { mcpSessions: parsed.mcpSessions } : {}),
      ...(parsed.tokenFile !== undefined ? { tokenFile: parsed.tokenFile } : {}),
      ...(runtimeDir !== undefined ? { runtimeDir } : {}),
      ...(out ? { out, log: (line: string) => write(`wo: ${line}\n`) } : {}),
      background: parsed.backgroundChild,
      handleSignals: true,
    });
    // Serving: the signal handlers exit the process. Never resolve, so main() sets no exit code.
    return await new Promise<number>(() => {});
  } catch (err) {
    if (err instanceof ServerStartError) {
      write(`wo run: ${err.message}\n`);
      return 1;
    }
    const detail = process.env.WO_DEBUG === "1" && err instanceof Error ? `\n${err.stack}` : "";
    write(`wo run: internal error: ${err instanceof Error ? err.message : String(err)} (this is a bug in wo)${detail}\n`);
    return 2;
  }
}

/**
 * The up-to-date check needs only the sources; the compiler (parser, ts-morph, TypeScript —
 * seconds to load) runs only when there is something to build, and then in a worker thread,
 * so the server's heap never holds it (compiler/build-worker.ts).
 */
export async function buildIfStale(dir: string) {
  const outDir = join(resolve(dir), ".wo", "build");
  const hash = await hashInputs(resolve(dir));
  if (hash !== undefined && (await isUpToDate(outDir, hash))) {
    return { ok: true, outDir, diagnostics: [], sources: undefined, error: undefined } as const;
  }
  const { buildInWorker } = await import("../build-worker.js");
  return buildInWorker(dir);
}
