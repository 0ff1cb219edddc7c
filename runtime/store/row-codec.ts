// Row ⇄ column values for one table. Rows are what the API shows (booleans, nested JSON);
// columns are what SQLite stores (0/1, JSON text). Reads are the hot path, so the decoder is
// built once per table and only touches the columns that need converting; key order comes
// from the SELECT list (id first, then fields in declaration order).

import { isScalarName, scalars } from "../../model/scalars.js";
import type { Row } from "../../model/store.js";
import { valueKind, type ColumnShape, type TableShape } from "../../model/storage-shape.js";
import type { TypeDesc } from "../../model/type-desc.js";

export interface RowCodec {
  /** Converts a raw SELECT result in place and returns it. */
  decode(raw: Row): Row;
  /** The bound value for one column; undefined (absent) stores NULL. */
  encode(column: ColumnShape, value: unknown): unknown;
  /** Encodes a `where` operand: like encode, but never JSON (filters are on scalar columns). */
  encodeOperand(column: ColumnShape, value: unknown): unknown;
}

export function createRowCodec(table: TableShape): RowCodec {
  const bools = table.columns.filter((c) => valueKind(c.type) === "bool").map((c) => c.name);
  const jsons = table.columns.filter((c) => valueKind(c.type) === "json").map((c) => c.name);
  const isJson = new Set(jsons);
  const decode =
    bools.length === 0 && jsons.length === 0
      ? (raw: Row) => raw
      : (raw: Row) => {
          for (const name of bools) {
            const v = raw[name];
            if (v !== null) raw[name] = v !== 0;
          }
          for (const name of jsons) {
            const v = raw[name];
            if (typeof v === "string") raw[name] = parseJson(v);
          }
          return raw;
        };
  // A scalar with one canonical form (a Timestamp: UTC) is written in it, top-level or nested in JSON.
  const normalisers = new Map<string, (value: unknown) => unknown>();
  for (const c of table.columns) {
    const normalise = canonicaliser(c.type);
    if (normalise) normalisers.set(c.name, normalise);
  }
  const encode = (column: ColumnShape, value: unknown): unknown => {
    if (value === undefined || value === null) return null;
    const normalise = normalisers.get(column.name);
    const v = normalise ? normalise(value) : value;
    return isJson.has(column.name) ? JSON.stringify(v) : encodeScalar(v);
  };
  const encodeOperand = (column: ColumnShape, value: unknown): unknown => {
    if (value === undefined || value === null) return null;
    const normalise = normalisers.get(column.name);
    return encodeScalar(normalise ? normalise(value) : value);
  };
  return { decode, encode, encodeOperand };
}

/** A copy of a value of `type` with every scalar in its canonical form; undefined when none has one. */
function canonicaliser(type: TypeDesc): ((value: unknown) => unknown) | undefined {
  switch (type.kind) {
    case "scalar":
      // A shape read from an older database may name a scalar this version does not have.
      return isScalarName(type.scalar) ? scalars[type.scalar].canonical : undefined;
    case "array": {
      const element = canonicaliser(type.element);
      return element && ((v) => (Array.isArray(v) ? v.map((x) => (x === null ? x : element(x))) : v));
    }
    case "struct": {
      const fields = type.fields.flatMap((f) => {
        const normalise = canonicaliser(f.type);
        return normalise ? [[f.name, normalise] as const] : [];
      });
      if (fields.length === 0) return undefined;
      return (v) => {
        if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
        const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
        for (const [name, normalise] of fields)
          if (out[name] !== undefined && out[name] !== null) out[name] = normalise(out[name]);
        return out;
      };
    }
    default:
      return undefined;
  }
}

// Validation happens before the store, so these fallbacks exist only so that a value of an
// unexpected JS type is stored as something readable instead of throwing a bind error.
function encodeScalar(value: unknown): unknown {
  switch (typeof value) {
    case "boolean":
      return value ? 1 : 0;
    case "number":
    case "string":
    case "bigint":
      return value;
    default:
      return JSON.stringify(value);
  }
}

/** A stored JSON text decoded; text that is none shows as it is. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Only a hand-edited database gets here; show the text rather than fail the read.
    return text;
  }
}
