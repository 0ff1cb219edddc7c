// Loads a build folder (model/build-contract.ts describes its layout) into memory: app.json, the
// compiled validators and the operations module — nothing else of the folder is read. Owns
// nothing but reading; binding the operations to a store is runtime/binding.ts's job.
//
// A missing or unreadable file is reported as a BuildLoadError naming it, so `wo run` can say
// "rebuild" instead of printing a stack trace.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  buildFormat,
  type AppContract,
  type BuildInfo,
  type OperationsModule,
  type Validator,
  type ValidatorsModule,
} from "../model/build-contract.js";

export interface LoadedBuild {
  dir: string;
  /** app.json: the model (no method bodies), the operations table, routes and resource templates. */
  catalog: AppContract;
  validators: Record<string, Validator>;
  /** The generated module; `createOperations(rt)` binds it to a store (runtime/binding.ts does). */
  operations: OperationsModule;
  /** build-info.json's hash of the inputs: which build this is (`wo status` shows it). */
  inputHash?: string;
}

export class BuildLoadError extends Error {}

/**
 * Each load imports the build's modules afresh: node caches an ES module by its URL for the
 * life of the process, so `wo run --watch` would get the first build's operations back for
 * every rebuild in the same folder. A query makes each load a new URL (the old modules stay in
 * memory, a few per saved edit).
 */
let loads = 0;

export async function loadBuild(dir: string): Promise<LoadedBuild> {
  const info = await readJson<Partial<BuildInfo>>(dir, "build-info.json");
  if (info.buildFormat !== buildFormat) {
    throw new BuildLoadError(
      `${dir} was built by another wo (build format ${String(info.buildFormat ?? 1)}; this wo runs format ${buildFormat}); run \`wo build\` again.`,
    );
  }
  const catalog = await readJson<AppContract>(dir, "app.json");
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

async function readJson<T>(dir: string, name: string): Promise<T> {
  const file = join(dir, name);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new BuildLoadError(`The build is incomplete: ${file} is missing; run \`wo build\`.`);
  }
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
    throw new BuildLoadError(`Cannot load ${file}: ${(err as Error).message}; run \`wo build\` again.`);
  }
}
