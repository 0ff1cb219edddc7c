// Test support: a real `node bin/wo.js run <app> --listen 127.0.0.1:0` (the compiled CLI in
// dist/, so `npm run build` first — `npm test` does), restartable on the same app folder and
// killable with any signal, plus a raw look at its SQLite file and an MCP SDK client.

import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const repoRoot = resolve(import.meta.dirname, "../..");

/** A copy of samples/<name> (or the given files) in a fresh temp folder; returns the app dir. */
export function appCopy(sample: string, files?: Record<string, string>): string {
  const appDir = join(mkdtempSync(join(tmpdir(), `wo-methods-${sample}-`)), sample);
  if (files) {
    mkdirSync(appDir, { recursive: true });
    for (const [p, text] of Object.entries(files)) writeFileSync(join(appDir, p), text);
  } else {
    cpSync(join(repoRoot, "samples", sample), appDir, { recursive: true });
  }
  return appDir;
}

/**
 * The Node that runs `wo`: the first `node` on PATH outside node_modules. Under `npx`, a
 * dev dependency's node_modules/.bin/node (another Node major) may come first, and
 * better-sqlite3 is built for the project's Node only.
 */
export function projectNode(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir.includes("node_modules")) continue;
    const candidate = join(dir, "node");
    if (existsSync(candidate)) return candidate;
  }
  return process.execPath;
}

export interface WoProcess {
  base: string;
  child: ChildProcess;
  /** SIGTERM (or the given signal) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWo(appDir: string): Promise<WoProcess> {
  const child = spawn(projectNode(), [join(repoRoot, "bin/wo.js"), "run", appDir, "--listen", "127.0.0.1:0"], {
    cwd: appDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const base = await new Promise<string>((res, rej) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) res(m[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => rej(new Error(`wo run exited ${code}:\n${out}`)));
  });
  return {
    base,
    child,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
}

/** POST a JSON body; the parsed answer and its status. */
export async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function mcpClient(base: string): Promise<Client> {
  const client = new Client({ name: "wo-methods-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

/** Every user table with its rows in id order: "nothing changed" is equality of two dumps. */
export function dumpDb(appDir: string, options: { afterCrash?: boolean } = {}): Record<string, unknown[]> {
  // After a crash the first connection replays the write-ahead log, which needs write access.
  const db = new Database(join(appDir, ".wo/data/app.sqlite"), { readonly: !options.afterCrash, fileMustExist: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_wo_%' ORDER BY name")
      .all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) out[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY id`).all();
    return out;
  } finally {
    db.close();
  }
}
