// A type's fields as the runtime shows them to people and agents: the MCP schema resource
// (`wo://schema/t`, runtime/mcp/methods.ts) and the web explorer's model (runtime/explorer/)
// list the same facts in the same words, so they come from here.

import type { CatalogType } from "../model/app.js";
import { fieldTypeText } from "../model/field-type-text.js";

export interface FieldSummary {
  name: string;
  /** As written in `.wo`: `Text`, `Draft | Published`, `ref Author`. */
  type: string;
  optional: boolean;
  unique: boolean;
  /** Accepted by create input (spec/mcp.md): `@readonly` fields are not. */
  writable: boolean;
  /** Accepted by update input: `@immutable` fields are set once, at create. */
  updatable: boolean;
  requiredOnCreate: boolean;
  description?: string;
}

export function fieldSummaries(type: CatalogType): FieldSummary[] {
  return type.fields.map((f) => ({
    name: f.name,
    type: fieldTypeText(f.type),
    optional: f.isOptional,
    unique: f.isUnique,
    writable: f.isWritable && !f.isReadonly,
    updatable: f.isWritable && !f.isReadonly && !f.isImmutable,
    requiredOnCreate: f.isRequiredOnCreate,
    ...(f.doc ? { description: f.doc } : {}),
  }));
}
