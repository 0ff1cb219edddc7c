// A raw JSON-RPC client for /mcp over fetch: POST one message with exactly the headers a test
// chooses, and read back status, headers, text and parsed JSON. For the rules an SDK client
// would hide (statuses, error objects, header checks); both eras.
export const V = "2026-07-28";
/** The 2026-07-28 `_meta` envelope a request carries. */
export const env = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
export const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let nextId = 1;
export const req = (method: string, params?: object, id: number | string = nextId++) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {}),
});
export const modernHeaders = (method: string, name?: string) => ({
  ...base,
  "mcp-protocol-version": V,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});
export const sessionHeaders = (sid: string, version = "2025-11-25") => ({
  ...base,
  "mcp-session-id": sid,
  "mcp-protocol-version": version,
});

export async function post(url: string, body: unknown, headers: Record<string, string> = base) {
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A 2025-era initialize; `sid` is the minted Mcp-Session-Id (null in sessionless mode). */
export async function initialize(url: string, version = "2025-11-25") {
  const r = await post(
    url,
    req("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } }),
  );
  return { ...r, sid: r.headers.get("mcp-session-id")! };
}
