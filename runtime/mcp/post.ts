// POST /mcp: admits one JSON-RPC message — Content-Type, the body limit, UTF-8, JSON, no
// batches, the message's shape — and hands it to the era it belongs to (era.ts classifies).

import { declaresMoreThan, decodeUtf8 } from "../body-bytes.js";
import type { Endpoint } from "./endpoint.js";
import { classify } from "./era.js";
import { jsonReply, rejection, transportError, type McpReply, type McpRequest } from "./http.js";
import { ErrorCode, errorBody, parseMessage, readableId, type Message, type RpcError } from "./json-rpc.js";
import { serveLegacy } from "./legacy.js";
import { mediaTypeOf } from "../media-type.js";
import { serveModern } from "./modern.js";

export async function post(ep: Endpoint, req: McpRequest): Promise<McpReply> {
  const h = req.headers;
  const ct = h.get("content-type");
  if (ct === null || ct === undefined || mediaTypeOf(ct) !== "application/json") {
    return transportError(415, "Unsupported Media Type: Content-Type must be application/json");
  }
  const maxBody = ep.maxBody;
  const bytes = declaresMoreThan(h.get("content-length"), maxBody) ? "too_large" : await req.body(maxBody);
  if (bytes === "too_large") return transportError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
  const text = decodeUtf8(bytes);
  if (text === undefined)
    return jsonReply(400, errorBody(null, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8"));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return jsonReply(400, errorBody(null, ErrorCode.ParseError, "Parse error: the body is not valid JSON"));
  }
  if (Array.isArray(parsed)) {
    return jsonReply(
      400,
      errorBody(
        null,
        ErrorCode.InvalidRequest,
        "Invalid Request: JSON-RPC batches are not supported; send one message per POST",
      ),
    );
  }
  let msg: Message;
  try {
    msg = parseMessage(parsed);
  } catch (err) {
    const e = err as RpcError;
    return jsonReply(400, errorBody(readableId(parsed), e.code, e.message));
  }
  req.message = msg;
  const cls = classify(msg, h);
  if (cls.era === "rejected") return rejection(cls.rejection, readableId(parsed));
  // `return await`, not `return`: an async function returning a promise pays two more ticks.
  return cls.era === "modern" ? await serveModern(ep, msg, req) : await serveLegacy(ep, msg, cls.version, req);
}
