// manifest.json as spec/schemas.md specifies: { tools, resourceTemplates, routes }, each
// sorted (tools and templates by name, routes by path then method), read off the operations
// table. A user-visible contract for clients; the runtime serves from app.json instead.
import type { Catalog } from "../catalog.js";
import type { Manifest, OperationEntry } from "../../model/build-contract.js";
import { SchemaBuilder } from "./json-schema.js";
import { operationTable, runtimeRoutes } from "./operation-table.js";
import { emitResourceTemplates, emitTools } from "./tools.js";
import { emitRoutes } from "./routes.js";

export function emitManifest(
  catalog: Catalog,
  b = new SchemaBuilder(catalog),
  table: readonly OperationEntry[] = operationTable(catalog, b),
): Manifest {
  return {
    tools: emitTools(table),
    resourceTemplates: emitResourceTemplates(catalog),
    routes: emitRoutes(table, runtimeRoutes(catalog)),
  };
}

/** Two-space JSON with a final newline: readable, diffable, byte-stable. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * jsonText's text in pieces of about `size` characters, for a writer that writes them as they
 * come: a 1,000-type app's app.json is 43 MB of text, and held whole (with the copy a write
 * makes of it) it set the build's peak memory. The top two levels are laid out here, the rest
 * by JSON.stringify, with the same rules (undefined members left out, null in arrays).
 */
export function* jsonChunks(value: unknown, size = 1 << 20): Generator<string> {
  let pending = "";
  for (const piece of jsonPieces(value, "", 2)) {
    pending += piece;
    if (pending.length >= size) {
      yield pending;
      pending = "";
    }
  }
  yield `${pending}\n`;
}

/**
 * Compact JSON (no indentation) in pieces: for files only wo reads (app.json), where the
 * indentation of jsonChunks would be half the bytes the runtime parses at every start. Each
 * member of a top-level array is stringified on its own, so no piece is the whole text.
 */
export function* compactJsonChunks(value: unknown, size = 1 << 20): Generator<string> {
  let pending = "";
  const push = function* (piece: string): Generator<string> {
    pending += piece;
    if (pending.length >= size) {
      yield pending;
      pending = "";
    }
  };
  if (value === null || typeof value !== "object" || Array.isArray(value) || "toJSON" in value) {
    yield `${JSON.stringify(value)}\n`;
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => !omitted(v));
  yield* push("{");
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!;
    yield* push(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
    if (Array.isArray(v)) {
      yield* push("[");
      for (let j = 0; j < v.length; j++)
        yield* push(`${j > 0 ? "," : ""}${JSON.stringify(omitted(v[j]) ? null : v[j])}`);
      yield* push("]");
    } else yield* push(JSON.stringify(v));
  }
  yield `${pending}}\n`;
}

function* jsonPieces(value: unknown, indent: string, levels: number): Generator<string> {
  if (levels === 0 || value === null || typeof value !== "object" || "toJSON" in value) {
    yield stringifiedAt(value, indent.length / 2);
    return;
  }
  const inner = `${indent}  `;
  const isArray = Array.isArray(value);
  const entries = isArray
    ? value.map((v, i) => [String(i), omitted(v) ? null : v] as const)
    : Object.entries(value).filter(([, v]) => !omitted(v));
  const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    yield open + close;
    return;
  }
  yield open;
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!;
    yield `${i > 0 ? "," : ""}\n${inner}${isArray ? "" : `${JSON.stringify(key)}: `}`;
    yield* jsonPieces(v, inner, levels - 1);
  }
  yield `\n${indent}${close}`;
}

/**
 * JSON.stringify(value, null, 2) as it reads `depth` levels deep: stringified inside `depth`
 * arrays and cut out, which costs one native call, not a second pass to indent its lines.
 */
function stringifiedAt(value: unknown, depth: number): string {
  let wrapped = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Each wrapper adds "[\n" + its indent before and "\n" + the outer indent + "]" after.
  let before = 0;
  for (let i = 1; i <= depth; i++) before += 2 + 2 * i;
  const after = depth * 2 + depth * (depth - 1);
  return text.slice(before, text.length - after);
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}
