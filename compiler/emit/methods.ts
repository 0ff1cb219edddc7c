// Placeholder until the method compiler lands (owner: methods work).
// emitMethodHandler returns the TypeScript text of one object-literal member of the object
// that `createOperations(rt)` returns, e.g. `async product_set_price(input, call) { … }`,
// for an exposed method. The operations emitter inserts it verbatim.
import type { Catalog, CatalogMethod, CatalogType } from "../catalog.js";
import { toolName } from "../naming.js";

export function emitMethodHandler(_catalog: Catalog, type: CatalogType, method: CatalogMethod): string {
  const name = toolName(type.name, method.name);
  return `async ${name}(_input: unknown, _call: unknown) {\n    return rt.abort("method '${method.name}' is not compiled by this build");\n  }`;
}
