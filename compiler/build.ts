// buildApp: check → emit → compile the generated TypeScript → write the build folder.
//
// Owns writing build-info.json (the up-to-date check itself is build-info.ts, shared with
// `wo run`), compiling `.ts` with ts-morph's TypeScript (JavaScript + .d.ts, ES2022 modules, in memory),
// and replacing the output folder as a whole: everything is written to a temporary folder
// beside it and renamed into place, so a failed or erroring build never leaves a half-written
// or mixed build. Leaves diagnostics printing to commands/build.ts; `wo run` calls this to
// "build if stale".
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { ts as TypeScript } from "ts-morph";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { EmittedFile, WrittenFile } from "./emit/emitted-file.js";
import type { ParseCache } from "./parse-cache.js";

// The up-to-date check lives apart so `wo run` can make it without loading the compiler.
import {
  buildInfoFileName,
  buildInfoText,
  freshBuildInfo,
  hashInputs,
  recordWarnings,
  replayWarnings,
} from "./build-info.js";
export { buildInfoFileName, hashInputs, isUpToDate } from "./build-info.js";

export interface BuildOptions {
  /** Output folder; default `<dir>/.wo/build`. */
  out?: string;
  /** Build even when build-info.json says the output is up to date. */
  force?: boolean;
  /** Parses kept from this app's previous build in this process (`wo run --watch`'s worker). */
  parses?: ParseCache;
}

export interface BuildResult {
  ok: boolean;
  outDir: string;
  /** True when the output was up to date and nothing was written. */
  skipped: boolean;
  diagnostics: Diagnostic[];
  /** Display path → source text, for formatting diagnostics. */
  sources: Map<string, string>;
  /** A failure that is not about the sources (e.g. an unwritable output folder), one line. */
  error?: string;
  /** What was written (paths relative to outDir, sorted) and counts for a summary. */
  files: string[];
  summary?: { tools: number; routes: number };
}

export async function buildApp(dir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const root = resolve(dir);
  const outDir = resolve(options.out ?? join(root, ".wo", "build"));
  const base = { outDir, diagnostics: [] as Diagnostic[], sources: new Map<string, string>(), files: [] as string[] };

  const inputHash = await hashInputs(root);
  const fresh = !options.force && inputHash !== undefined ? await freshBuildInfo(outDir, inputHash) : undefined;
  if (fresh) return { ...base, ...(await replayWarnings(fresh, dir)), ok: true, skipped: true };

  // Loaded only when something must be built: the checker, ajv and TypeScript take longer to
  // load than the whole up-to-date check (bench/compile/run.mjs, no-op rebuild).
  const [{ checkApp }, { emitBuildFiles }, { ts }] = await Promise.all([
    import("./index.js"),
    import("./emit/index.js"),
    import("ts-morph"),
  ]);
  const checked = await checkApp(dir, options.parses ? { parses: options.parses } : {});
  const result = { ...base, diagnostics: checked.diagnostics, sources: checked.sources };
  if (!checked.catalog || inputHash === undefined) return { ...result, ok: false, skipped: false };

  const { files: emitted, summary } = emitBuildFiles(checked.catalog);
  const info = { path: buildInfoFileName, text: buildInfoText(inputHash, recordWarnings(checked.diagnostics, root)) };
  const written: string[] = [];
  try {
    await replaceFolder(outDir, withCompiled(emitted, ts, info, written));
  } catch (error) {
    const why = reasonOf(error);
    return {
      ...result,
      ok: false,
      skipped: false,
      error:
        error instanceof BuildFolderError
          ? `cannot write the build: ${why}`
          : `cannot write the build to ${outDir}: ${why}`,
    };
  }
  return { ...result, ok: true, skipped: false, files: written.sort(), summary };
}

/**
 * A build of `dir` that writes nothing: checked, emitted and compiled, the text dropped as it
 * comes. `wo run --watch`'s worker runs one while nobody waits, so the first saved edit is
 * built by warm (JIT-compiled) code and finds its parses kept (spec/live.md). It gives way to a
 * real build: between files it lets messages in and stops as soon as `giveWay()` says so.
 */
export async function rehearseBuild(dir: string, parses: ParseCache, giveWay: () => boolean): Promise<void> {
  const [{ checkApp }, { emitBuildFiles }, { ts }] = await Promise.all([
    import("./index.js"),
    import("./emit/index.js"),
    import("ts-morph"),
  ]);
  const checked = await checkApp(dir, { parses });
  if (!checked.catalog) return;
  const sources: EmittedFile[] = [];
  for (const f of emitBuildFiles(checked.catalog).files) {
    await new Promise((resolveTurn) => setImmediate(resolveTurn));
    if (giveWay()) return;
    if ("text" in f) {
      if (f.path.endsWith(".ts") && !f.path.endsWith(".d.ts")) sources.push(f);
    } else {
      // Rendered as a write renders it, then dropped.
      for (const chunk of f.chunks) if (chunk.length < 0) break;
    }
  }
  compileTypeScript(sources, ts);
}

/**
 * The emitted files as they come, then the JavaScript and declarations compiled from their
 * `.ts` files, then `info`; each path is added to `written` as it goes by. Written as they come,
 * the folder's text is never all in memory at once (a 1,000-type app's is over 100 MB).
 */
function* withCompiled(
  emitted: Iterable<WrittenFile>,
  ts: typeof TypeScript,
  info: EmittedFile,
  written: string[],
): Generator<WrittenFile> {
  const sources: EmittedFile[] = [];
  for (const f of emitted) {
    written.push(f.path);
    if ("text" in f && f.path.endsWith(".ts") && !f.path.endsWith(".d.ts")) sources.push(f);
    yield f;
  }
  for (const f of [...compileTypeScript(sources, ts, new Set(written)), info, moduleMarker]) {
    written.push(f.path);
    yield f;
  }
}

/**
 * The build's `.js` files are ES modules; Node before 22 (and 20.19) does not tell that from
 * their syntax and loads a `.js` file without a `"type": "module"` above it as CommonJS
 * (`Unexpected token 'export'`). The app folder rarely has a package.json, so the build
 * carries its own (model/build-contract.ts).
 */
const moduleMarker: EmittedFile = { path: "package.json", text: `${JSON.stringify({ type: "module" })}\n` };

/**
 * JavaScript and declarations for every emitted `.ts` file (not `.d.ts`). Each file is
 * compiled on its own with ts-morph's TypeScript (`transpileModule` + `transpileDeclaration`):
 * generated files are self-contained, so no program-wide type check is needed, and the build of
 * a 1,000-type app stays well under a second here instead of several seconds for a full
 * `Project.emit` (measured: bench/compile/run.mjs). `present`: every path of the build, so
 * what an emitter already wrote is not derived again.
 */
export function compileTypeScript(
  files: readonly EmittedFile[],
  ts: typeof TypeScript,
  present: ReadonlySet<string> = new Set(files.map((f) => f.path)),
): EmittedFile[] {
  const compilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    newLine: ts.NewLineKind.LineFeed,
    // Type-only imports (`import type { OperationRuntime } from "wo/model/build-contract"`) vanish.
    verbatimModuleSyntax: false,
  };
  const out: EmittedFile[] = [];
  for (const f of files) {
    if (!f.path.endsWith(".ts") || f.path.endsWith(".d.ts")) continue;
    const stem = f.path.slice(0, -".ts".length);
    // What an emitter already wrote (validators.js, operations.d.ts) is not derived again.
    if (!present.has(`${stem}.js`)) {
      out.push({
        path: `${stem}.js`,
        text: ts.transpileModule(f.text, { fileName: f.path, compilerOptions }).outputText,
      });
    }
    if (!present.has(`${stem}.d.ts`)) {
      out.push({
        path: `${stem}.d.ts`,
        text: ts.transpileDeclaration(f.text, { fileName: f.path, compilerOptions }).outputText,
      });
    }
  }
  return out;
}

/** Writes `files` (in the order they come) to a fresh folder beside `outDir`, then swaps it in. */
async function replaceFolder(outDir: string, files: Iterable<WrittenFile>): Promise<void> {
  await assertReplaceable(outDir);
  const parent = dirname(outDir);
  await ensureFolder(parent);
  const suffix = `${process.pid}-${Date.now().toString(36)}`;
  const temp = join(parent, `.${basename(outDir)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(outDir)}.old-${suffix}`);
  try {
    await mkdir(temp);
    for (const f of files) {
      const path = join(temp, f.path);
      await ensureFolder(dirname(path));
      writeWhole(path, "text" in f ? [f.text] : f.chunks);
    }
    let hadOld = true;
    try {
      await rename(outDir, old);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      hadOld = false;
    }
    try {
      await rename(temp, outDir);
    } catch (error) {
      if (hadOld) await rename(old, outDir).catch(() => undefined);
      throw error;
    }
    if (hadOld) await rm(old, { recursive: true, force: true });
  } finally {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Writes `pieces` to a new file at `path`, synchronously: builds run in the CLI or in a build
 * worker, where nothing else waits on the thread. A string handed to writeSync is encoded
 * straight into the write, where fs/promises' writeFile makes a Buffer of each piece first: a
 * 400-type app's 50 MB of them cost about 0.1 s of CPU and its garbage per build.
 */
function writeWhole(path: string, pieces: Iterable<string>): void {
  const fd = openSync(path, "w");
  try {
    for (const piece of pieces) {
      const written = writeSync(fd, piece);
      // A short write (never seen for a file, but allowed) goes on with the rest of the bytes.
      let rest = written < Buffer.byteLength(piece) ? Buffer.from(piece).subarray(written) : undefined;
      while (rest !== undefined && rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The swap deletes the old folder, so it must be a previous build (or empty): `--out .` or
 * `--out src` must never wipe a user's files.
 */
async function assertReplaceable(outDir: string): Promise<void> {
  let entries: string[];
  try {
    if (!(await stat(outDir)).isDirectory()) throw new BuildFolderError(`${outDir} is a file, not a folder`);
    entries = await readdir(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (entries.length > 0 && !entries.includes(buildInfoFileName)) {
    throw new BuildFolderError(
      `${outDir} is not empty and holds no wo build (no ${buildInfoFileName}); choose another --out or empty it`,
    );
  }
}

class BuildFolderError extends Error {}

/**
 * `mkdir -p` one level at a time. Node's `mkdir({ recursive: true })` spins forever on some
 * special file systems (`--out /proc/x` never returned), so each missing level is made plainly.
 */
async function ensureFolder(path: string): Promise<void> {
  try {
    if ((await stat(path)).isDirectory()) return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const parent = dirname(path);
    if (parent !== path) await ensureFolder(parent);
    try {
      await mkdir(path);
    } catch (made) {
      if ((made as NodeJS.ErrnoException).code !== "EEXIST") throw made;
    }
    return;
  }
  throw Object.assign(new Error(`${path} is a file`), { code: "ENOTDIR" });
}

function reasonOf(error: unknown): string {
  if (error instanceof BuildFolderError) return error.message;
  const e = error as NodeJS.ErrnoException;
  switch (e.code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "read-only file system";
    case "ENOTDIR":
      return "a path component is a file, not a folder";
    case "ENOENT":
      return "a folder cannot be created there";
    case "ENOSPC":
      return "no space left on device";
    case "EEXIST":
    case "ENOTEMPTY":
      return "the folder is in use by another build";
    default:
      return e.code ? e.code.toLowerCase() : String(e.message ?? error);
  }
}
