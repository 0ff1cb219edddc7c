// Opaque cursors for the paginated MCP lists (tools/list, resources/list,
// resources/templates/list). A cursor names the list it belongs to and an offset into it;
// clients must treat it as opaque, and one minted for another list or another build is
// refused (-32602) rather than silently walking the wrong sequence. Lists only change when
// the build changes, so an offset is stable for the life of the process.

import { ErrorCode, RpcError } from "./json-rpc.js";

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export function paginate<T>(
  all: readonly T[],
  list: string,
  fingerprint: string,
  pageSize: number,
  cursor: unknown,
): Page<T> {
  let start = 0;
  if (cursor !== undefined && cursor !== null) {
    start = decodeCursor(cursor, list, fingerprint, all.length);
  }
  const end = Math.min(all.length, start + pageSize);
  const page: Page<T> = { items: all.slice(start, end) };
  if (end < all.length) page.nextCursor = encodeCursor(list, fingerprint, end);
  return page;
}

function encodeCursor(list: string, fingerprint: string, offset: number): string {
  return Buffer.from(`${list}|${fingerprint}|${offset}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: unknown, list: string, fingerprint: string, length: number): number {
  const invalid = () =>
    new RpcError(ErrorCode.InvalidParams, "Invalid cursor: start the listing again without a cursor");
  if (typeof cursor !== "string" || cursor.length > 512) throw invalid();
  const parts = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (parts.length !== 3 || parts[0] !== list || parts[1] !== fingerprint) throw invalid();
  const offset = Number(parts[2]);
  if (!Number.isInteger(offset) || offset <= 0 || offset > length) throw invalid();
  return offset;
}
