// The build's up-to-date check: build-info.json holds a sha256 over wo's version and its
// compiler's code, wo.toml and every `.wo` file, the build format the generated code was written for, and the check's
// warnings. Kept apart from build.ts so `wo run` can decide "the build is fresh" and show the
// warnings again without loading ts-morph, TypeScript or the parser: start-up of a built app
// stays fast. buildApp uses the same functions, so the two can never disagree.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { layoutOnDisk } from "./check/layout.js";
import { loadSources } from "./check/load.js";
import { configFileName } from "./check/config.js";
import { DiagnosticBag, type Diagnostic } from "./diagnostics/diagnostic.js";
import { displayFile, displayPathOf } from "./display-path.js";
import { readOptional } from "./read-optional.js";
import { buildFormat, type BuildInfo, type RecordedWarning } from "../model/build-contract.js";
import { woVersion } from "./emit/header.js";

export const buildInfoFileName = "build-info.json";

/**
 * sha256 over wo's version, wo.toml and every `.wo` file (relative path and bytes, the shared
 * folders' files included: compiler/check/layout.ts), in program order. Undefined when the sources cannot be read; the check then reports why.
 */
export async function hashInputs(root: string): Promise<string | undefined> {
  const bag = new DiagnosticBag();
  const layout = layoutOnDisk(root);
  const sources = await loadSources(
    root,
    root,
    bag,
    undefined,
    layout.workspaceApps ? "skip" : "refuse",
    layout.shared,
  );
  if (bag.hasErrors) return undefined;
  const hash = createHash("sha256");
  const part = (label: string, text: string) => hash.update(`${label}\0${text.length}\0${text}\0`);
  part("wo", woVersion());
  part("compiler", compilerDigest());
  part(configFileName, (await readOptional(join(root, configFileName))) ?? "\u0000absent");
  for (const file of sources) part(file.path, file.text);
  return hash.digest("hex");
}

let digest: string | undefined;
/** Compiled code (dist/) or, run from the sources (the tests), the TypeScript itself. */
const isCode = (f: string) => f.endsWith(".js") || (f.endsWith(".ts") && !f.endsWith(".d.ts"));
/**
 * The compiler's and the model's own code (the folders beside this file), as each file's name,
 * size and modification time: a wo changed without a new version (a checkout rebuilt, a
 * patched install) rebuilds every app once, instead of serving a build the old code made.
 * Stats only (about 100 files, once per process): reading them would cost start-up.
 */
function compilerDigest(): string {
  if (digest !== undefined) return digest;
  const hash = createHash("sha256");
  // Not import.meta.dirname: Node 20 has it only from 20.11, and wo runs on 20.0.
  const here = dirname(fileURLToPath(import.meta.url));
  for (const folder of [here, join(dirname(here), "model")]) {
    for (const f of codeFiles(folder)) {
      const { size, mtimeMs } = statSync(join(folder, f));
      hash.update(`${f}\0${size}\0${mtimeMs}\0`);
    }
  }
  return (digest = hash.digest("hex"));
}

/** The code files under `folder`, relative and sorted (walked by hand: readdir's `recursive` is Node 20.1+). */
function codeFiles(folder: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(folder, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...codeFiles(folder, rel));
    else if (isCode(entry.name)) out.push(rel);
  }
  return out.sort();
}

/** build-info.json for a build of these inputs by this wo, with the check's warnings. */
export function buildInfoText(inputHash: string, warnings: RecordedWarning[]): string {
  const info: BuildInfo = { woVersion: woVersion(), buildFormat, inputHash, warnings };
  return `${JSON.stringify(info, null, 2)}\n`;
}

/** The warnings among `diagnostics` (display paths) with spans relative to the app folder `root`. */
export function recordWarnings(diagnostics: readonly Diagnostic[], root: string): RecordedWarning[] {
  return diagnostics
    .filter((d) => d.severity === "warning")
    .map((d) => ({
      code: d.code,
      message: d.message,
      span: { ...d.span, file: relative(root, resolve(d.span.file)).split("\\").join("/") },
    }));
}

export async function isUpToDate(outDir: string, inputHash: string): Promise<boolean> {
  return (await freshBuildInfo(outDir, inputHash)) !== undefined;
}

/** build-info.json of the build in `outDir` when it was made from `inputHash` by this wo. */
export async function freshBuildInfo(outDir: string, inputHash: string): Promise<BuildInfo | undefined> {
  const info = await readOptional(join(outDir, buildInfoFileName));
  if (info === undefined) return undefined;
  let parsed: BuildInfo;
  try {
    parsed = JSON.parse(info) as BuildInfo;
    if (parsed.inputHash !== inputHash || parsed.woVersion !== woVersion() || parsed.buildFormat !== buildFormat)
      return undefined;
    // A build from before warnings were recorded is rebuilt once, so its warnings show.
    if (!Array.isArray(parsed.warnings)) return undefined;
  } catch {
    return undefined;
  }
  // A build folder someone emptied by hand is not up to date, whatever build-info says. Asked
  // of the file system, not read: a 1,000-type app's manifest is 35 MB.
  return (await isFile(join(outDir, "manifest.json"))) ? parsed : undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * A fresh build's recorded warnings as diagnostics of the app at `dir`, with display paths and
 * the source texts to quote: what the check printed when it made the build.
 */
export async function replayWarnings(
  info: BuildInfo,
  dir: string,
): Promise<{ diagnostics: Diagnostic[]; sources: Map<string, string> }> {
  const root = resolve(dir);
  const displayDir = displayPathOf(dir, root);
  const sources = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const w of info.warnings) {
    const file = displayFile(displayDir, w.span.file);
    if (!sources.has(file)) {
      const text = await readOptional(join(root, w.span.file));
      if (text !== undefined) sources.set(file, text);
    }
    diagnostics.push({
      code: w.code as Diagnostic["code"],
      severity: "warning",
      message: w.message,
      span: { ...w.span, file },
    });
  }
  return { diagnostics, sources };
}
