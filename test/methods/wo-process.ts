// The methods suite's ways of talking to a running `wo run` (test/support/wo-process.ts starts
// it): a JSON POST with its status, an official MCP SDK client, and one app served for a suite.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

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

export interface ServedApp {
  /** The app folder (its `.wo/data` holds the database). */
  dir: string;
  wo: WoProcess;
  mcp: Client;
}

/**
 * A fresh app folder holding `files`, served by `wo run` with an MCP client connected, for the
 * suite (describe block) that calls this: started before its tests, stopped and removed after.
 * The members are set once the suite has started.
 */
export function serveForSuite(name: string, files: Record<string, string>): ServedApp {
  const served = {} as ServedApp;
  beforeAll(async () => {
    served.dir = writeApp(name, files);
    served.wo = await startWo([served.dir, "--listen", "127.0.0.1:0"]);
    served.mcp = await mcpClient(served.wo.url);
  });
  afterAll(async () => {
    await served.mcp?.close();
    await served.wo?.stop();
    if (served.dir) removeApp(served.dir);
  });
  return served;
}
