// The compiler's view of the app model (model/app.ts): the same data with every method body as
// its checked AST, which the method emitter compiles. Everything else is the model's.

import type { Block } from "./ast.js";
import type * as model from "../model/app.js";

export * from "../model/app.js";

export type Catalog = model.Catalog<Block>;
export type CatalogType = model.CatalogType<Block>;
export type CatalogMethod = model.CatalogMethod<Block>;
