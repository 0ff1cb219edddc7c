// types.d.ts: an interface per row, per operation input and per list page / method result,
// for clients of the REST API. Derived from the JSON Schemas (json-schema.ts), not from the
// catalog directly, so a client type can never disagree with what the validators accept.
import type { BuildSchemas } from "../../model/build-contract.js";
import type { JsonSchema } from "./json-schema.js";
import { jsComment, jsIdentifier, jsJson, objectKey } from "./js-literal.js";

/** `blog_post_set_price` → `BlogPostSetPrice`. */
export function pascalCase(snake: string): string {
  return snake
    .split("_")
    .filter((p) => p.length > 0)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

// Written as plain lines (4-space indent, LF) rather than through ts-morph: printing thousands
// of interfaces through a Project, or even CodeBlockWriter, took seconds on the 1,000-type
// bench app; these declarations are simple enough to print directly.
export function emitTypesText(schemas: BuildSchemas, rowNames: Record<string, string>, header: string): string {
  const lines: string[] = [header];
  const declare = (name: string, schema: JsonSchema) => {
    lines.push("");
    writeDeclaration(lines, name, schema);
  };
  for (const [snake, schema] of Object.entries(schemas.rows))
    declare(rowNames[snake] ?? pascalCase(snake), schema as JsonSchema);
  for (const [tool, schema] of Object.entries(schemas.inputs))
    declare(`${pascalCase(tool)}Input`, schema as JsonSchema);
  for (const [tool, schema] of Object.entries(schemas.outputs))
    declare(`${pascalCase(tool)}Output`, schema as JsonSchema);
  return `${lines.join("\n")}\n`;
}

function writeDeclaration(lines: string[], name: string, schema: JsonSchema): void {
  writeDocs(lines, "", schema.description);
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== "object" || !props) {
    lines.push(`export type ${jsIdentifier(name)} = ${tsType(schema)};`);
    return;
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  lines.push(`export interface ${jsIdentifier(name)} {`);
  for (const [key, value] of Object.entries(props)) {
    writeDocs(lines, "    ", value.description);
    lines.push(`    ${objectKey(key)}${required.has(key) ? "" : "?"}: ${tsType(value)};`);
  }
  lines.push("}");
}

function writeDocs(lines: string[], indent: string, description: unknown): void {
  if (typeof description !== "string" || description === "") return;
  // Each line through jsComment: `*/` or a line terminator would end the comment early.
  const text = description.split("\n").map(jsComment);
  if (text.length === 1) lines.push(`${indent}/** ${text[0]} */`);
  else lines.push(`${indent}/**`, ...text.map((l) => `${indent} * ${l}`.trimEnd()), `${indent} */`);
}

/** The TypeScript type of one schema; covers exactly the keywords json-schema.ts emits. */
export function tsType(schema: JsonSchema): string {
  if (schema.const !== undefined) return jsJson(schema.const);
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map((s) => wrap(tsType(s))).join(" | ");
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => jsJson(v)).join(" | ");
  const types =
    schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.length === 0) return "unknown";
  return types.map((t) => wrap(oneType(t, schema))).join(" | ");
}

function oneType(t: string, schema: JsonSchema): string {
  switch (t) {
    case "integer":
    case "number":
      return "number";
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = schema.items ? tsType(schema.items as JsonSchema) : "unknown";
      return `${wrap(item)}[]`;
    }
    case "object": {
      const props = schema.properties as Record<string, JsonSchema> | undefined;
      if (!props) return "Record<string, unknown>";
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const members = Object.entries(props).map(
        ([k, v]) => `${objectKey(k)}${required.has(k) ? "" : "?"}: ${tsType(v)}`,
      );
      return members.length ? `{ ${members.join("; ")} }` : "Record<string, never>";
    }
    default:
      return "unknown";
  }
}

/** Parenthesizes a union so it can be an array element or a union member. */
function wrap(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "{" || ch === "(" || ch === "<") depth++;
    else if (ch === "}" || ch === ")" || ch === ">") depth--;
    else if (ch === "|" && depth === 0) return `(${text})`;
    else if (ch === '"') i = text.indexOf('"', i + 1); // string literal types may contain "|"
  }
  return text;
}
