// Starts a real `wo run` (test/support/wo-process.ts) of a copy of a sample, or of an app a test
// wrote, and hands back its address, its MCP endpoint and the build's manifest; stop() also
// deletes the app folder. Plus
// sampleArgs: plain arguments for a create tool.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "../../../model/build-contract.js";
import { copyApp, removeApp, startWo } from "../../support/wo-process.js";

export interface WoRun {
  base: string;
  /** The MCP endpoint: `${base}/mcp`. */
  url: string;
  appDir: string;
  manifest: Manifest;
  stop(): Promise<void>;
}

/**
 * `wo run samples/<sample>` on a free port; `extraToml` is appended to the copy's wo.toml and
 * `extraArgs` are added to the command line.
 */
export async function startWoRun(sample: string, extraToml = "", extraArgs: string[] = []): Promise<WoRun> {
  const appDir = copyApp(`samples/${sample}`);
  if (extraToml) appendFileSync(join(appDir, "wo.toml"), `\n${extraToml}\n`);
  return startWoRunApp(appDir, extraArgs);
}

/** `wo run <appDir>` (a copyApp or writeApp folder; stop() deletes it) on a free port, with `env` added. */
export async function startWoRunApp(
  appDir: string,
  extraArgs: string[] = [],
  env?: Record<string, string>,
): Promise<WoRun> {
  const wo = await startWo([appDir, "--listen", "127.0.0.1:0", ...extraArgs], env ? { env } : {});
  const manifest = JSON.parse(readFileSync(join(appDir, ".wo/build/manifest.json"), "utf8")) as Manifest;
  return {
    base: wo.url,
    url: `${wo.url}/mcp`,
    appDir,
    manifest,
    async stop() {
      await wo.stop();
      removeApp(appDir);
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
