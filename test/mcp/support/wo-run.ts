// Starts a real `node bin/wo.js run <copy of a sample> --listen 127.0.0.1:0` (the compiled
// CLI in dist/, so `npm run build` first — `npm test` does) and hands back its address and
// the build's manifest. The sample is copied to a temp folder so the build and the database
// never touch the repository.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Manifest } from "../../../runtime/build.js";

export const repoRoot = resolve(__dirname, "../../..");

export interface WoRun {
  base: string;
  url: string;
  appDir: string;
  manifest: Manifest;
  stop(): Promise<void>;
}

export async function startWoRun(sample: string, extraToml = ""): Promise<WoRun> {
  const dir = mkdtempSync(join(tmpdir(), `wo-mcp-${sample}-`));
  const appDir = join(dir, sample);
  cpSync(join(repoRoot, "samples", sample), appDir, { recursive: true });
  if (extraToml) cpSync(join(appDir, "wo.toml"), join(appDir, "wo.toml.orig"));
  if (extraToml) {
    const { appendFileSync } = await import("node:fs");
    appendFileSync(join(appDir, "wo.toml"), `\n${extraToml}\n`);
  }
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, "bin/wo.js"), "run", appDir, "--listen", "127.0.0.1:0"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const base = await new Promise<string>((res, rej) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) res(m[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => rej(new Error(`wo run ${sample} exited ${code}:\n${out}`)));
  });
  const manifest = JSON.parse(readFileSync(join(appDir, ".wo/build/manifest.json"), "utf8")) as Manifest;
  return {
    base,
    url: `${base}/mcp`,
    appDir,
    manifest,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let unique = 0;

/** Arguments that satisfy a create tool's inputSchema with plain values (refs get id 1). */
export function sampleArgs(schema: { properties?: Record<string, any>; required?: string[] }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of schema.required ?? []) out[name] = sampleValue(schema.properties?.[name] ?? {}, name);
  return out;
}

function sampleValue(s: any, name: string): unknown {
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "integer":
    case "number":
      return Math.max(1, s.minimum ?? 1);
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return sampleArgs(s);
    default:
      if (s.format === "email") return "someone@example.com";
      if (s.format === "uri") return "https://example.com/x";
      if (s.format === "date-time") return "2026-01-01T00:00:00.000Z";
      // Unique per call: samples may declare @unique fields, and both clients create a row.
      if (s.pattern) return `sample-${name}-${++unique}`.replace(/_/g, "-");
      return `sample ${name} ${++unique}`;
  }
}
