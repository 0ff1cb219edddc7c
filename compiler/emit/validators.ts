// validators.ts of the build: ajv standalone code for every operation input schema, so the
// runtime validates without compiling schemas at start-up (model/build-contract.ts ValidatorsModule).
//
// The build folder lives in a user's app without node_modules, so the generated code must not
// import packages by name. ajv's standalone output is CommonJS that `require`s its runtime
// helpers (ajv/dist/runtime/*, ajv-formats); we wrap it in `createValidators(require)` and the
// runtime hands in its own `createRequire(...)`, which resolves them from wo's installation.
import type { Ajv2020 as AjvInstance } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { BuildSchemas } from "../../model/build-contract.js";
import { createInputAjv } from "../input-ajv.js";
import type { EmittedFile } from "./emitted-file.js";
import { objectKey } from "./js-literal.js";

// CommonJS interop under NodeNext: the default import is `module.exports`, the function is `.default`.
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (
  ajv: AjvInstance,
  refs: Record<string, string>,
) => string;

/**
 * validators.ts (for readers), validators.js and validators.d.ts. The body is ajv's standalone
 * JavaScript, so the .js is written directly rather than transpiled: running TypeScript over
 * megabytes of generated validator code would dominate the build time for no change in output.
 */
export function emitValidators(
  schemas: BuildSchemas,
  header: string,
  /** Inputs the runtime checks that are no operation's (the filters of a live stream). */
  others: Record<string, object> = {},
): EmittedFile[] {
  // Validation ignores annotations, so schemas that differ only in descriptions (every type's
  // get/delete `{ id }`, types of the same shape) share one compiled validator.
  const ajv = createInputAjv({ standalone: true });
  const byShape = new Map<string, string>();
  const toolToValidator: [string, string][] = [];
  for (const [name, schema] of Object.entries({ ...schemas.inputs, ...others })) {
    const bare = withoutAnnotations(schema);
    const shape = JSON.stringify(bare);
    let key = byShape.get(shape);
    if (key === undefined) {
      key = `v${byShape.size}`;
      byShape.set(shape, key);
      ajv.addSchema(bare, key);
    }
    toolToValidator.push([name, key]);
  }
  const refs = Object.fromEntries([...byShape.values()].map((k) => [k, k]));
  const code = byShape.size > 0 ? standaloneCode(ajv, refs) : "";
  const table = toolToValidator.map(([tool, key]) => `    ${objectKey(tool)}: module.exports.${key},`);
  const body = (typed: boolean) => [
    `export function createValidators(require${typed ? ": (id: string) => unknown" : ""})${typed ? ": Record<string, Validator>" : ""} {`,
    `  const exports${typed ? ": Record<string, Validator>" : ""} = {};`,
    "  const module = { exports };",
    code,
    "  return {",
    ...table,
    "  };",
    "}",
    "",
  ];
  const doc = "/** One validator per operation input, keyed by operation (tool) name. */";
  const validatorType = "type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };";
  return [
    {
      path: "validators.ts",
      text: [
        header,
        "// @ts-nocheck — the body is ajv's standalone JavaScript, checked by ajv's own tests.",
        "",
        validatorType,
        "",
        doc,
        ...body(true),
      ].join("\n"),
    },
    { path: "validators.js", text: [header, "", doc, ...body(false)].join("\n") },
    {
      path: "validators.d.ts",
      text: [
        header,
        "",
        validatorType,
        "",
        doc,
        "export declare function createValidators(require: (id: string) => unknown): Record<string, Validator>;",
        "export {};",
        "",
      ].join("\n"),
    },
  ];
}

/** A schema without `description`/`title`, walking only schema positions (a property may be named "description"). */
function withoutAnnotations(schema: object): object {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "description" || keyword === "title") continue;
    if (keyword === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, object>).map(([k, v]) => [k, withoutAnnotations(v)]),
      );
    } else if (keyword === "items") {
      out.items = withoutAnnotations(value as object);
    } else if (keyword === "anyOf") {
      out.anyOf = (value as object[]).map(withoutAnnotations);
    } else {
      out[keyword] = value;
    }
  }
  return out;
}
