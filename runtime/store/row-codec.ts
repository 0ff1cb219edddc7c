// Row ⇄ column values for one table. Rows are what the API shows (booleans, nested JSON);
// columns are what SQLite stores (0/1, JSON text). Reads are the hot path, so the decoder is
// built once per table and only touches the columns that need converting; key order comes
// from the SELECT list (id first, then fields in declaration order).

import type { Row } from "./store.js";
import type { ColumnShape, TableShape } from "./shape.js";

export interface RowCodec {
  /** Converts a raw SELECT result in place and returns it. */
  decode(raw: Row): Row;
  /** The bound value for one column; undefined (absent) stores NULL. */
  encode(column: ColumnShape, value: unknown): unknown;
  /** Encodes a `where` operand: like encode, but never JSON (filters are on scalar columns). */
  encodeOperand(column: ColumnShape, value: unknown): unknown;
}

export function createRowCodec(table: TableShape): RowCodec {
  const bools = table.columns.filter((c) => c.codec === "bool").map((c) => c.name);
  const jsons = table.columns.filter((c) => c.codec === "json").map((c) => c.name);
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
  return { decode, encode: encodeValue, encodeOperand };
}

function encodeValue(column: ColumnShape, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (column.codec === "json") return JSON.stringify(value);
  return encodeScalar(value);
}

function encodeOperand(_column: ColumnShape, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return encodeScalar(value);
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Only a hand-edited database gets here; show the text rather than fail the read.
    return text;
  }
}
