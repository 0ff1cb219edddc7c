// Which protocol era a POSTed message belongs to, and the 2026-07-28 header cross-checks.
//
// The body decides, not the header: a message whose `params._meta` carries
// `io.modelcontextprotocol/protocolVersion` (the envelope claim) is 2026-07-28 traffic;
// anything else is 2025-era. `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` only
// cross-check the body. The order of the checks is the official SDK's "ladder"
// (spec/mcp.md, "Era classification"), so a request that breaks several rules gets the same
// answer from us as from the SDK. Session rules of the 2025 era live in sessions.ts.

import { ErrorCode, type Message, type Params } from "./json-rpc.js";

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** T6: a 2025-era request without MCP-Protocol-Version is taken to speak this revision. */
export const DEFAULT_LEGACY_HEADER_VERSION = "2025-03-26";

const CLAIM = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

export interface HeaderView {
  get(name: string): string | null | undefined;
}

/** A rejection the transport answers with an HTTP status and a JSON-RPC error body. */
export interface Rejection {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

export type Classified =
  | { era: "modern" }
  | { era: "legacy"; version: string }
  | { era: "rejected"; rejection: Rejection };

const MODERN: Classified = { era: "modern" };

function isModernVersion(v: string | null | undefined): boolean {
  return typeof v === "string" && v.trim() >= MODERN_VERSION;
}

function mismatch(header: string, headerValue: string | null | undefined, body: unknown, message: string): Rejection {
  return {
    status: 400,
    code: ErrorCode.HeaderMismatch,
    message,
    data: { mismatch: { header, headerValue: headerValue ?? null, body: body ?? null } },
  };
}

function meta(params: Params | undefined): Record<string, unknown> | undefined {
  const m = params?._meta;
  return typeof m === "object" && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

/** `=?base64?…?=` header values carry names that are not plain printable ASCII. */
export function decodeHeaderValue(raw: string): string | undefined {
  const v = raw.trim();
  if (!(v.startsWith("=?base64?") && v.endsWith("?="))) return v;
  const b64 = v.slice(9, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(b64, "base64");
  // Non-canonical payloads (padding bits set, trailing junk) do not round-trip: refuse them.
  if (decoded.toString("base64") !== b64) return undefined;
  return decoded.toString("utf8");
}

/** The body parameter that `Mcp-Name` must mirror, per method. */
export function nameParam(method: string): "name" | "uri" | undefined {
  if (method === "tools/call" || method === "prompts/get") return "name";
  if (method === "resources/read") return "uri";
  return undefined;
}

export function classify(msg: Message, headers: HeaderView): Classified {
  if (msg.kind === "response")
    return { era: "legacy", version: headers.get("mcp-protocol-version")?.trim() || DEFAULT_LEGACY_HEADER_VERSION };
  const headerVersion = headers.get("mcp-protocol-version")?.trim() || undefined;
  const m = meta(msg.params);
  const hasClaim = m !== undefined && CLAIM in m;
  const headerIsModern = isModernVersion(headerVersion);

  if (!hasClaim) {
    if (msg.kind === "notification") {
      return headerIsModern ? MODERN : { era: "legacy", version: headerVersion ?? DEFAULT_LEGACY_HEADER_VERSION };
    }
    if (msg.method === "initialize" && headerIsModern) {
      return {
        era: "rejected",
        rejection: mismatch(
          "MCP-Protocol-Version",
          headerVersion,
          null,
          `initialize is not part of protocol revision ${headerVersion}`,
        ),
      };
    }
    if (headerIsModern) {
      return {
        era: "rejected",
        rejection: {
          status: 400,
          code: ErrorCode.InvalidParams,
          message: `Invalid params: a ${headerVersion} request must carry params._meta with '${CLAIM}'`,
          data: { envelope: { missing: [CLAIM] } },
        },
      };
    }
    return { era: "legacy", version: headerVersion ?? DEFAULT_LEGACY_HEADER_VERSION };
  }

  // Claim present: a bad envelope is an error, never a fallback to the 2025 era.
  const claim = m[CLAIM];
  const missing: string[] = [];
  const invalid: string[] = [];
  if (typeof claim !== "string" || claim === "") invalid.push(CLAIM);
  if (!(CAPS in m)) missing.push(CAPS);
  else if (typeof m[CAPS] !== "object" || m[CAPS] === null || Array.isArray(m[CAPS])) invalid.push(CAPS);
  if (CLIENT_INFO in m) {
    const ci = m[CLIENT_INFO] as Record<string, unknown> | null;
    if (typeof ci !== "object" || ci === null || typeof ci.name !== "string" || typeof ci.version !== "string")
      invalid.push(CLIENT_INFO);
  }
  if (msg.kind === "request" && (missing.length > 0 || invalid.length > 0)) {
    return {
      era: "rejected",
      rejection: {
        status: 400,
        code: ErrorCode.InvalidParams,
        message: `Invalid params: the request _meta envelope is ${missing.length > 0 ? `missing ${missing.join(", ")}` : `malformed at ${invalid.join(", ")}`}`,
        data: { envelope: { missing, invalid } },
      },
    };
  }
  if (headerVersion !== undefined && headerVersion !== claim) {
    return {
      era: "rejected",
      rejection: mismatch(
        "MCP-Protocol-Version",
        headerVersion,
        claim,
        "MCP-Protocol-Version header does not match params._meta protocolVersion",
      ),
    };
  }
  const methodHeader = headers.get("mcp-method");
  if (
    msg.kind === "request" &&
    methodHeader !== null &&
    methodHeader !== undefined &&
    methodHeader.trim() !== msg.method
  ) {
    return {
      era: "rejected",
      rejection: mismatch("Mcp-Method", methodHeader, msg.method, "Mcp-Method header does not match the body's method"),
    };
  }
  if (claim !== MODERN_VERSION) {
    return {
      era: "rejected",
      rejection: {
        status: 400,
        code: ErrorCode.UnsupportedProtocolVersion,
        message: `Unsupported protocol version ${String(claim)}`,
        data: { supported: [MODERN_VERSION], requested: claim },
      },
    };
  }
  // Notifications are exempt from the presence checks (the SDK client sends no Mcp-Method).
  if (msg.kind === "notification") return MODERN;
  if (headerVersion === undefined) {
    return {
      era: "rejected",
      rejection: mismatch("MCP-Protocol-Version", null, claim, "MCP-Protocol-Version header is required"),
    };
  }
  if (methodHeader === null || methodHeader === undefined) {
    return { era: "rejected", rejection: mismatch("Mcp-Method", null, msg.method, "Mcp-Method header is required") };
  }
  const param = nameParam(msg.method);
  if (param !== undefined) {
    const bodyValue = msg.params?.[param];
    const raw = headers.get("mcp-name");
    if (raw === null || raw === undefined) {
      return {
        era: "rejected",
        rejection: mismatch("Mcp-Name", null, bodyValue, `Mcp-Name header is required for ${msg.method}`),
      };
    }
    const decoded = decodeHeaderValue(raw);
    // A body without the parameter is an in-band -32602 from the method, not a header problem.
    if (decoded === undefined || (typeof bodyValue === "string" && decoded !== bodyValue)) {
      return {
        era: "rejected",
        rejection: mismatch("Mcp-Name", raw, bodyValue, `Mcp-Name header does not match params.${param}`),
      };
    }
  }
  return MODERN;
}
