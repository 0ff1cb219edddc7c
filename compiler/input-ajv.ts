// The ajv every input schema is checked with: the build compiles validators.js with it
// (emit/validators.ts), and the checker tests a field's default against its scalar's schema with
// it (check/fields.ts), so a default is held to exactly what a client's value would be.
import Ajv2020Module, { type Ajv2020 as AjvInstance } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// CommonJS interop under NodeNext: the default import is `module.exports`, the class is `.default`.
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: AjvInstance,
) => void;

/** The ajv used for every input schema: strict mode, 2020-12, formats, all errors reported. */
export function createInputAjv(options: { standalone: boolean }): AjvInstance {
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
