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

/** Two samples/ledger accounts with 1,000,000 each: what the crash tests transfer between. */
export async function openTwoAccounts(base: string): Promise<void> {
  for (const owner of ["a", "b"]) await post(base, "/api/accounts", { owner });
  await post(base, "/api/accounts/1/deposit", { amount: 1_000_000 });
  await post(base, "/api/accounts/2/deposit", { amount: 1_000_000 });
}

/**
 * `inFlight` workers send transfers between accounts 1 and 2 to `base` without pause; after 100
 * are acknowledged, `kill` runs (SIGKILL of the server) while calls are in flight, and the
 * workers stop once it has. Resolves with what was acknowledged and what was sent.
 */
export async function transfersUntilKilled(
  base: string,
  kill: () => Promise<unknown>,
  inFlight: number,
): Promise<{ acked: number; sent: number }> {
  let acked = 0;
  let sent = 0;
  let killed = false;
  let dead = false;
  const worker = async (w: number) => {
    for (let i = 0; !dead; i++) {
      const from = (w + i) % 2 === 0 ? 1 : 2;
      sent++;
      try {
        const r = await post(base, `/api/accounts/${from}/transfer`, {
          to: 3 - from,
          amount: 1 + ((w * 31 + i) % 97),
        });
        if (r.status === 200) acked++;
        else throw new Error(`unexpected ${r.status}: ${JSON.stringify(r.body)}`);
      } catch (err) {
        if (!killed) throw err;
      }
    }
  };
  const workers = Array.from({ length: inFlight }, (_, w) => worker(w));
  while (acked < 100) await new Promise((r) => setTimeout(r, 5));
  killed = true;
  await kill();
  dead = true;
  await Promise.all(workers);
  return { acked, sent };
}
