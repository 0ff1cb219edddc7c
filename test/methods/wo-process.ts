// The methods suite's ways of talking to a running `wo run` (test/support/wo-process.ts starts
// it): a JSON POST with its status, and an official MCP SDK client.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** POST a JSON body; the parsed answer and its status. */
export async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function mcpClient(base: string): Promise<Client> {
  const client = new Client({ name: "wo-methods-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}
