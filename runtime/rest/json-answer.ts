// A REST GET's JSON answer. Under `wo run` it is written straight to node's response: the
// Response object hono's `c.json` makes, and the pass of @hono/node-server turning it back into
// node's headers, cost more than the GET by id's own work (the operation's SELECT). The bytes
// on the wire are the ones `c.json` gives: node computes Content-Length from the body as it does
// for c.json, and the header keeps c.json's spelling.
//
// Only a plain GET without Origin: HEAD is answered by hono from the GET's Response, and a CORS
// answer gets its headers added to the Response by the binding's middleware (binding.ts).

import type { Context } from "hono";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { nodeBindings } from "../node-bindings.js";

const jsonHeaders = { "Content-Type": "application/json" };

export function jsonAnswer(c: Context, value: unknown): Response {
  const { incoming, outgoing } = nodeBindings(c);
  if (outgoing === undefined || incoming?.method !== "GET" || incoming.headers.origin !== undefined)
    return c.json(value, 200);
  const body = JSON.stringify(value);
  // As @hono/node-server does for c.json: node writes Content-Length itself, after its own
  // headers, from this length (the head is stored at writeHead, before the body is known).
  (outgoing as unknown as { _contentLength: number })._contentLength = Buffer.byteLength(body);
  outgoing.writeHead(200, jsonHeaders);
  outgoing.end(body);
  // What tells @hono/node-server that the answer has been written (it then writes nothing).
  return RESPONSE_ALREADY_SENT;
}
