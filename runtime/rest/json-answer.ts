// REST answers written straight to node's response. Under `wo run`, the Response object hono's
// `c.json` makes, and the pass of @hono/node-server turning it back into node's headers, cost
// more than a GET by id's own work (the operation's SELECT), and a tenth of a create's CPU on
// PostgreSQL (spec/storage.md, "Bench"). The edge's own answer to a plain GET by id (routes.ts
// `answerGet`) is written here whole, problems too (writeAnswer); a create's 201 has the headers
// @hono/node-server writes for `c.json(row, 201, { location })`, in its order. The bytes on the
// wire are the ones hono would give.
//
// Only without Origin: a CORS answer gets its headers added to the Response by the binding's
// middleware (binding.ts). jsonAnswer only for a plain GET, not HEAD: HEAD is answered by hono
// from the GET's Response.

import type { ServerResponse } from "node:http";
import type { Context } from "hono";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { nodeBindings } from "../node-bindings.js";

export const jsonHeaders: Readonly<Record<string, string>> = Object.freeze({ "Content-Type": "application/json" });

export function jsonAnswer(c: Context, value: unknown): Response {
  const { incoming, outgoing } = nodeBindings(c);
  if (outgoing === undefined || incoming?.method !== "GET" || incoming.headers.origin !== undefined)
    return c.json(value, 200);
  writeAnswer(outgoing, 200, jsonHeaders, JSON.stringify(value));
  // What tells @hono/node-server that the answer has been written (it then writes nothing).
  return RESPONSE_ALREADY_SENT;
}

/**
 * Writes a whole answer over HTTP/1.1 as `c.body(body, status, headers)` reaches the
 * wire through @hono/node-server: one header goes as given, and node writes Content-Length
 * itself after its own headers, from the length set here (the head is stored at writeHead,
 * before the body is known); more than one become a fetch Headers, whose names are lower case
 * and sorted, followed by an explicit `Content-Length`.
 */
export function writeAnswer(
  outgoing: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
): void {
  const length = Buffer.byteLength(body);
  const names = Object.keys(headers);
  if (names.length === 1) {
    (outgoing as unknown as { _contentLength: number })._contentLength = length;
    outgoing.writeHead(status, headers);
  } else {
    // As Headers keeps them: by lower-case name, the last one set winning, in sorted order.
    const byName = new Map(names.map((name) => [name.toLowerCase(), headers[name]!]));
    const sorted: Record<string, string | number> = {};
    for (const name of [...byName.keys()].sort()) sorted[name] = byName.get(name)!;
    sorted["Content-Length"] = length;
    outgoing.writeHead(status, sorted);
  }
  outgoing.end(body);
}

/** A create's 201 answer: the row, and where it is now (`location`). */
export function createdAnswer(c: Context, row: unknown, location: string): Response {
  const { incoming, outgoing } = nodeBindings(c);
  if (outgoing === undefined || incoming?.headers.origin !== undefined) return c.json(row, 201, { location });
  // Two headers: lower-cased and sorted, then Content-Length, as writeAnswer writes c.json's.
  writeAnswer(outgoing, 201, { "content-type": "application/json", location }, JSON.stringify(row));
  return RESPONSE_ALREADY_SENT;
}
