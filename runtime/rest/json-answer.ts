// A REST GET's JSON answer, and a create's. Under `wo run` they are written straight to node's
// response: the Response object hono's `c.json` makes, and the pass of @hono/node-server turning
// it back into node's headers, cost more than the GET by id's own work (the operation's SELECT),
// and a tenth of a create's CPU on PostgreSQL (spec/storage.md, "Bench"). The bytes on the wire
// are the ones `c.json` gives: for a GET node computes Content-Length from the body as it does
// for c.json, and the header keeps c.json's spelling; a create's headers are the ones
// @hono/node-server writes for `c.json(row, 201, { location })`, in its order.
//
// Only without Origin: a CORS answer gets its headers added to the Response by the binding's
// middleware (binding.ts). Only a plain GET, not HEAD: HEAD is answered by hono from the GET's
// Response.

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

/** A create's 201 answer: the row, and where it is now (`location`). */
export function createdAnswer(c: Context, row: unknown, location: string): Response {
  const { incoming, outgoing } = nodeBindings(c);
  if (outgoing === undefined || incoming?.headers.origin !== undefined) return c.json(row, 201, { location });
  const body = JSON.stringify(row);
  outgoing.writeHead(201, {
    "content-type": "application/json",
    location,
    "Content-Length": String(Buffer.byteLength(body)),
  });
  outgoing.end(body);
  return RESPONSE_ALREADY_SENT;
}
