// The build's up-to-date check: build-info.json holds a sha256 over wo's version, wo.toml and
// every `.wo` file, and the build format the generated code was written for. Kept apart from build.ts (moved from there) so `wo run` can decide "the
// build is fresh" without loading ts-morph, TypeScript or the parser: start-up of a built app
// stays fast. buildApp uses the same functions, so the two can never disagree.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadSources } from "./check/load.js";
import { configFileName } from "./check/config.js";
import { DiagnosticBag } from "./diagnostics/diagnostic.js";
import { buildFormat, type BuildInfo } from "../runtime/build.js";
import { woVersion } from "./emit/header.js";

export const buildInfoFileName = "build-info.json";

/**
 * sha256 over wo's version, wo.toml and every `.wo` file (relative path and bytes), in program
 * order. Undefined when the sources cannot be read; the check then reports why.
 */
export async function hashInputs(root: string): Promise<string | undefined> {
  const bag = new DiagnosticBag();
  const sources = await loadSources(root, root, bag);
  if (bag.hasErrors) return undefined;
  const hash = createHash("sha256");
  const part = (label: string, text: string) => hash.update(`${label}\0${text.length}\0${text}\0`);
  part("wo", woVersion());
  part(configFileName, (await readOptional(join(root, configFileName))) ?? "\u0000absent");
  for (const file of sources) part(file.path, file.text);
  return hash.digest("hex");
}

/** build-info.json for a build of these inputs by this wo. */
export function buildInfoText(inputHash: string): string {
  const info: BuildInfo = { woVersion: woVersion(), buildFormat, inputHash };
  return `${JSON.stringify(info, null, 2)}\n`;
}

export async function isUpToDate(outDir: string, inputHash: string): Promise<boolean> {
  const info = await readOptional(join(outDir, buildInfoFileName));
  if (info === undefined) return false;
  try {
    const parsed = JSON.parse(info) as Partial<Record<keyof BuildInfo, unknown>>;
    if (parsed.inputHash !== inputHash || parsed.woVersion !== woVersion() || parsed.buildFormat !== buildFormat) return false;
  } catch {
    return false;
  }
  // A build folder someone emptied by hand is not up to date, whatever build-info says.
  return (await readOptional(join(outDir, "manifest.json"))) !== undefined;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
