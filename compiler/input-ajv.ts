// The ajv every input schema is checked with: the build compiles validators.js with it
// (emit/validators.ts), and the checker tests a field's default against its scalar's schema with
// it (check/fields.ts), so a default is held to exactly what a client's value would be.
//
// ajv (some 90 files) is loaded on the first call, not with the checker: `wo check` of an app
// whose fields have no defaults never needs it.
import { createRequire } from "node:module";
import type { Ajv2020 as AjvInstance } from "ajv/dist/2020.js";

type AjvClass = new (options: Record<string, unknown>) => AjvInstance;
const require = createRequire(import.meta.url);
/** CommonJS interop: `module.exports` is the function, or holds it as `.default`. */
const interop = <T>(m: unknown): T => ((m as { default?: unknown }).default ?? m) as T;

/** The ajv used for every input schema: strict mode, 2020-12, formats, all errors reported. */
export function createInputAjv(options: { standalone: boolean }): AjvInstance {
  const Ajv2020 = interop<AjvClass>(require("ajv/dist/2020.js"));
  const addFormats = interop<(ajv: AjvInstance) => void>(require("ajv-formats"));
  const ajv = new Ajv2020({
    strict: true,
    // `["string", "null"]` is how optional fields are written (spec/schemas.md).
    allowUnionTypes: true,
    // Agents fix every problem in one round trip when they see all of them.
    allErrors: true,
    code: { source: options.standalone, lines: options.standalone },
  });
  addFormats(ajv);
  return ajv;
}
