// JSON-RPC 2.0 for one POSTed MCP message: shape validation, the error codes both protocol
// eras use, and serialization of responses. It knows nothing about HTTP statuses or eras;
// `era.ts` and the HTTP modules (`post.ts`, `http.ts`) decide those.
//
// Batches are not accepted (T1: batching was removed in 2025-06-18 and never came back); the
// caller rejects an array before it gets here.

export type JsonRpcId = string | number;

/** Protocol error codes, referred to by name so code and tests read as the protocol does. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Transport-level rejections (bad session, bad version header, wrong content type). */
  ServerError: -32000,
  SessionNotFound: -32001,
  /** 2025 era: resources/read of an unknown URI. */
  ResourceNotFound: -32002,
  /** 2026-07-28: a standard header is missing or disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the envelope claims a revision this server does not speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type Params = Record<string, unknown>;

export type Message =
  | { kind: "request"; id: JsonRpcId; method: string; params: Params | undefined }
  | { kind: "notification"; method: string; params: Params | undefined }
  | { kind: "response"; id: JsonRpcId | null };

/** A JSON-RPC error raised by a method handler or a transport check. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The id of a message when it can be read, so every error echoes it (SEP-2575). */
export function readableId(v: unknown): JsonRpcId | null {
  if (!isPlainObject(v)) return null;
  const id = v.id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Classifies a parsed JSON value as one JSON-RPC message, or throws InvalidRequest. */
export function parseMessage(v: unknown): Message {
  if (!isPlainObject(v) || v.jsonrpc !== "2.0") {
    throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: expected a JSON-RPC 2.0 object");
  }
  const hasId = "id" in v;
  if (typeof v.method === "string") {
    if (v.params !== undefined && !isPlainObject(v.params)) {
      throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: params must be an object");
    }
    const params = v.params as Params | undefined;
    if (!hasId) return { kind: "notification", method: v.method, params };
    const id = readableId(v);
    if (id === null) {
      throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: id must be a string or a number");
    }
    return { kind: "request", id, method: v.method, params };
  }
  if (hasId && ("result" in v || "error" in v) && !("method" in v)) {
    return { kind: "response", id: readableId(v) };
  }
  throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: not a request, notification or response");
}

/**
 * A result whose members are already JSON text (`"a":1,"b":2`, without the braces). A tool
 * result carries its row twice (the text rendering and structuredContent): serializing the row
 * once and writing the members around it spares a second JSON.stringify of the row and the
 * objects that would hold it, on every call.
 */
export class SerializedResult {
  constructor(readonly members: string) {}
}

/**
 * A response to `id`. `tail` is more members for the result object, as JSON text
 * (`"a":1,"b":2`): what an era adds to every result, written once rather than per call.
 * Spliced as text, not JSON.stringify'd: every call's answer passes here, and its members and
 * tail are JSON already (SerializedResult), so stringifying would serialize them again.
 */
export function resultBody(id: JsonRpcId, result: object, tail = ""): string {
  const members = result instanceof SerializedResult ? result.members : JSON.stringify(result).slice(1, -1);
  const sep = members !== "" && tail !== "" ? "," : "";
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${members}${sep}${tail}}}`;
}

export function errorBody(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** The answer to `id` for a thrown or returned RpcError. */
export function rpcErrorBody(id: JsonRpcId, err: RpcError): string {
  return errorBody(id, err.code, err.message, err.data);
}

export function notificationBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}
