// Cancellation is bound to its caller (spec/mcp.md, "Cancellation"): without sessions
// (`--no-mcp-sessions`) a `notifications/cancelled` reaches only calls made on its own
// connection. The review's reproduction against a real `wo run`: as one client makes a write,
// another sends cancellations naming that call's JSON-RPC id. Every write must commit and be
// answered as a success.
import { afterAll, beforeAll, expect, it } from "vitest";
import { liveApp } from "../live/support.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

let wo: WoProcess;
let appDir: string;

beforeAll(async () => {
  appDir = writeApp("sessionless-cancel", liveApp);
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet", "--no-mcp-sessions"]);
}, 60_000);

afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

const post = (body: unknown) =>
  fetch(`${wo.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body), keepalive: false });

it("another client's notifications/cancelled naming the victim's ids suppresses none of its writes", async () => {
  const ids = Array.from({ length: 20 }, (_, i) => i + 1);
  const failed: string[] = [];
  for (const id of ids) {
    // The victim's call, and at the same moment three cancellations of its id from another
    // client (on connections of their own: the victim's is busy with its call). Before the fix
    // this suppressed 7 writes in 10.
    const call = post({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "note_create", arguments: { title: `victim ${id}` } },
    });
    const cancels = Array.from({ length: 3 }, () =>
      post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }),
    );
    for (const res of await Promise.all(cancels)) expect(res.status).toBe(202);
    const res = await call;
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    if (answer.result.isError) failed.push(answer.result.content[0]!.text);
  }
  expect(failed).toEqual([]);
  const stored = (await (await fetch(`${wo.url}/api/notes?limit=100`)).json()) as { items: { title: string }[] };
  expect(stored.items.map((n) => n.title).sort()).toEqual(ids.map((id) => `victim ${id}`).sort());
}, 60_000);
