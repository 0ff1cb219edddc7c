// `wo run [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]`: build the app
// if its build is stale (diagnostics printed, exit 1 on errors), then start the server
// (runtime/server.ts) and serve until SIGINT/SIGTERM. wo.toml settings apply; flags override.
// User errors print one message, never a stack trace.

import { join, resolve } from "node:path";
import { hashInputs, isUpToDate } from "../build-info.js";
import { formatDiagnostic } from "../diagnostics/format.js";
import { ServerStartError, startServer } from "../../runtime/server.js";

const usage = "usage: wo run [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]\n";

interface RunArgs {
  dir: string;
  listen?: string;
  db?: string;
  allowDestructiveMigration: boolean;
  /** `--no-mcp-sessions` (false) / `--mcp-sessions` (true); undefined keeps wo.toml's choice. */
  mcpSessions?: boolean;
}

export function parseRunArgs(args: string[]): RunArgs | string {
  const out: RunArgs = { dir: ".", allowDestructiveMigration: false };
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--listen" || flag === "--db") {
      const value = inline ?? args[++i];
      if (value === undefined || value === "") return `${flag} needs a value`;
      if (flag === "--listen") out.listen = value;
      else out.db = value;
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
  out.dir = dirs[0] ?? ".";
  return out;
}

export async function runRunCommand(args: string[]): Promise<number> {
  const parsed = parseRunArgs(args);
  if (typeof parsed === "string") {
    process.stderr.write(`wo run: ${parsed}\n${usage}`);
    return 2;
  }
  try {
    const built = await buildIfStale(parsed.dir);
    for (const d of built.diagnostics) {
      const text = built.sources?.get(d.span.file);
      const line = text === undefined ? `${d.span.file}:${d.span.line}:${d.span.col}: ${d.severity} ${d.code}: ${d.message}` : formatDiagnostic(d, text);
      process.stderr.write(`${line.replace(/\n+$/, "")}\n`);
    }
    if (!built.ok) {
      process.stderr.write(`wo run: ${built.error ?? "the app has errors; fix them and run again"}.\n`);
      return 1;
    }
    await startServer({
      appDir: resolve(parsed.dir),
      buildDir: built.outDir,
      ...(parsed.listen !== undefined ? { listen: parsed.listen } : {}),
      ...(parsed.db !== undefined ? { db: parsed.db } : {}),
      allowDestructiveMigration: parsed.allowDestructiveMigration,
      ...(parsed.mcpSessions !== undefined ? { mcpSessions: parsed.mcpSessions } : {}),
      handleSignals: true,
    });
    // Serving: the signal handlers exit the process. Never resolve, so main() sets no exit code.
    return await new Promise<number>(() => {});
  } catch (err) {
    if (err instanceof ServerStartError) {
      process.stderr.write(`wo run: ${err.message}\n`);
      return 1;
    }
    const detail = process.env.WO_DEBUG === "1" && err instanceof Error ? `\n${err.stack}` : "";
    process.stderr.write(`wo run: internal error: ${err instanceof Error ? err.message : String(err)} (this is a bug in wo)${detail}\n`);
    return 2;
  }
}

/**
 * The up-to-date check needs only the sources; the compiler (parser, ts-morph, TypeScript —
 * seconds to load) runs only when there is something to build, and then in a worker thread,
 * so the server's heap never holds it (compiler/build-worker.ts).
 */
async function buildIfStale(dir: string) {
  const outDir = join(resolve(dir), ".wo", "build");
  const hash = await hashInputs(resolve(dir));
  if (hash !== undefined && (await isUpToDate(outDir, hash))) {
    return { ok: true, outDir, diagnostics: [], sources: undefined, error: undefined } as const;
  }
  const { buildInWorker } = await import("../build-worker.js");
  return buildInWorker(dir);
}
