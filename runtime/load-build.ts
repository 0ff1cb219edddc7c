// Loads a build folder (model/build-contract.ts describes its layout) into memory: app.json,
// operation-faces.json, the compiled validators and the operations module — nothing else of the
// folder is read. Owns nothing but reading; binding the operations to a store is
// runtime/binding.ts's job.
//
// The operations' faces (descriptions and schemas: most of the table's text, which serving a
// call never reads) are read with the rest, as bytes, and parsed on the first read of any of them
// (MCP's tools/list, the explorer): a 1,000-type app starts without parsing 17 MB of schemas.
// They are read at load, not on first use, because a rebuild replaces the folder while this
// build may still serve (`wo run --watch`).
//
// A missing or unreadable file is reported as a BuildLoadError naming it, so `wo run` can say
// "rebuild" instead of printing a stack trace.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  buildFormat,
  operationFaceFields,
  type AppContract,
  type AppJson,
  type OperationEntry,
  type OperationFace,
  type OperationFaces,
  type StoredOperationEntry,
  type BuildInfo,
  type OperationsModule,
  type Validator,
  type ValidatorsModule,
} from "../model/build-contract.js";

export interface LoadedBuild {
  dir: string;
  /**
   * app.json: the model (no method bodies), the operations table, routes and resource templates;
   * each operation's face comes from operation-faces.json when first read.
   */
  catalog: AppContract;
  validators: Record<string, Validator>;
  /** The generated module; `createOperations(rt)` binds it to a store (runtime/binding.ts does). */
  operations: OperationsModule;
  /** build-info.json's hash of the inputs: which build this is (`wo status` shows it). */
  inputHash?: string;
}

export class BuildLoadError extends Error {
  /** A file of the build was not there (as opposed to one that does not parse). */
  constructor(
    message: string,
    readonly missingFile = false,
  ) {
    super(message);
  }
}

/**
 * Each load imports the build's modules afresh: node caches an ES module by its URL for the
 * life of the process, so `wo run --watch` would get the first build's operations back for
 * every rebuild in the same folder. A query makes each load a new URL (the old modules stay in
 * memory, a few per saved edit).
 */
let loads = 0;

/** How long a load waits out another process swapping a build into the same folder. */
const swapAttempts = 40;
const swapPauseMillis = 25;

/**
 * The build in `dir`, every part of it from one build. Another process may swap a fresh build
 * into the same folder while this one reads it (two `wo run` of one app started together, a
 * `wo build` beside a `--watch`): compiler/build.ts replaceFolder renames the old folder away
 * and the new one in, so for an instant the folder is absent, and a load spanning a swap could
 * read app.json of one build and validators.js of the next. So a load is taken again, after a
 * short pause, when a file is missing or build-info.json (which names the build's inputs)
 * changed under it; within about a second of such trouble the last error is reported.
 */
export async function loadBuild(dir: string): Promise<LoadedBuild> {
  for (let attempt = 1; ; attempt++) {
    try {
      const info = await readBytes(dir, "build-info.json");
      const build = await loadBuildOnce(dir, info);
      if ((await readBytes(dir, "build-info.json")).equals(info)) return build;
      if (attempt >= swapAttempts)
        throw new BuildLoadError(`${dir} kept changing while it was read; stop the other build and try again.`);
    } catch (err) {
      if (!(err instanceof BuildLoadError && err.missingFile && attempt < swapAttempts)) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, swapPauseMillis));
  }
}

async function loadBuildOnce(dir: string, infoBytes: Buffer): Promise<LoadedBuild> {
  const info = parseJson<Partial<BuildInfo>>(infoBytes.toString("utf8"), join(dir, "build-info.json"));
  if (info.buildFormat !== buildFormat) {
    throw new BuildLoadError(
      `${dir} was built by another wo (build format ${String(info.buildFormat ?? 1)}; this wo runs format ${buildFormat}); run \`wo build\` again.`,
    );
  }
  const contract = await readJson<AppJson>(dir, "app.json");
  const faces = await readBytes(dir, facesFile);
  const catalog: AppContract = {
    ...contract,
    operations: withFaces(contract.operations, faces, join(dir, facesFile)),
  };
  const load = ++loads;
  const validatorsModule = await importModule<ValidatorsModule>(dir, "validators.js", load);
  const operations = await importModule<OperationsModule>(dir, "operations.js", load);
  if (typeof validatorsModule.createValidators !== "function")
    throw new BuildLoadError(`${join(dir, "validators.js")} does not export createValidators; run \`wo build\` again.`);
  if (typeof operations.createOperations !== "function")
    throw new BuildLoadError(`${join(dir, "operations.js")} does not export createOperations; run \`wo build\` again.`);
  // Validators need ajv's runtime helpers (ajv-formats, ucs2length, …), resolved from wo's own
  // install: the app folder has no node_modules.
  const validators = validatorsModule.createValidators(createRequire(import.meta.url));
  return {
    dir,
    catalog,
    validators,
    operations,
    ...(typeof info.inputHash === "string" ? { inputHash: info.inputHash } : {}),
  };
}

const facesFile = "operation-faces.json";

/**
 * The entries with their faces: `description`, `inputSchema` and `outputSchema` are enumerable
 * getters (so a spread or JSON.stringify of an entry has them), and the first read of any of
 * them parses `faces`, the bytes of operation-faces.json, for all. A damaged file fails that
 * read, naming the file.
 */
function withFaces(entries: StoredOperationEntry[], faces: Buffer, file: string): OperationEntry[] {
  let bytes: Buffer | undefined = faces;
  let parsed: OperationFaces | undefined;
  const faceOf = (name: string): OperationFace => {
    if (parsed === undefined) {
      parsed = parseJson<OperationFaces>(bytes!.toString("utf8"), file);
      bytes = undefined;
    }
    const face = Object.hasOwn(parsed, name) ? parsed[name] : undefined;
    if (face === undefined) throw new BuildLoadError(`${file} has no entry for ${name}; run \`wo build\` again.`);
    return face;
  };
  const getters: PropertyDescriptorMap = {};
  for (const field of operationFaceFields)
    getters[field] = {
      enumerable: true,
      configurable: true,
      get(this: StoredOperationEntry) {
        return faceOf(this.name)[field];
      },
    };
  for (const entry of entries) Object.defineProperties(entry, getters);
  return entries as OperationEntry[];
}

async function readJson<T>(dir: string, name: string): Promise<T> {
  return parseJson<T>((await readBytes(dir, name)).toString("utf8"), join(dir, name));
}

async function readBytes(dir: string, name: string): Promise<Buffer> {
  const file = join(dir, name);
  try {
    return await readFile(file);
  } catch {
    throw new BuildLoadError(`The build is incomplete: ${file} is missing; run \`wo build\`.`, true);
  }
}

function parseJson<T>(text: string, file: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new BuildLoadError(`${file} is not valid JSON; run \`wo build\` again.`);
  }
}

async function importModule<T>(dir: string, name: string, load: number): Promise<T> {
  const file = join(dir, name);
  try {
    return (await import(`${pathToFileURL(file).href}?load=${load}`)) as T;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const missing = code === "ERR_MODULE_NOT_FOUND" || code === "ENOENT";
    throw new BuildLoadError(`Cannot load ${file}: ${(err as Error).message}; run \`wo build\` again.`, missing);
  }
}
