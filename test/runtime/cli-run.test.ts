// `wo init` then `wo run` as a user would: the scaffold serves, an official MCP client calls
// its tools, and stderr carries one log line per request (text, JSON, or none with --quiet)
// without bodies or query values. The check's warnings show on every start, also when the
// build is fresh and nothing is checked again.
import { spawnSync } from "node:child_process";
import { request, type IncomingMessage } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpClient } from "../methods/wo-process.js";
import { removeApp, repoRoot, startWo, tempDir, woNode, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let app: string;
beforeAll(() => {
  app = join(tempDir("wo-e2e-init-"), "todo");
  const init = spawnSync(woNode, ["bin/wo.js", "init", app], { cwd: repoRoot, encoding: "utf8" });
  expect(init.status, init.stderr).toBe(0);
  // Something the check warns about, to see the warning on every start.
  writeFileSync(join(app, "note.wo"), "type Note {\n  text: Text\n  fn go() -> Int {\n    return 1\n  }\n}\n");
});
afterAll(() => removeApp(app));

const warning = /note\.wo:3:6: warning WO2103: 'fn go' in plain type 'Note' is not executed/;

async function serve(...flags: string[]): Promise<WoProcess> {
  return startWo([app, "--listen", "127.0.0.1:0", ...flags]);
}

/** The output's lines after offset `from`, once one of them matches `last`. */
async function linesUntil(wo: WoProcess, from: number, last: RegExp): Promise<string[]> {
  for (;;) {
    const lines = wo.output().slice(from).split("\n");
    if (lines.some((l) => last.test(l))) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("wo init, then wo run", () => {
  it("serves the scaffold: MCP tools work, and each request is one log line without bodies or query values", async () => {
    const wo = await serve();
    try {
      expect(wo.output()).toMatch(warning);
      const from = wo.output().length;
      const client = await mcpClient(wo.url);
      const created = await client.callTool({ name: "task_create", arguments: { title: "secret body text" } });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ title: "secret body text", done: false });
      const listed = await client.callTool({ name: "task_list", arguments: {} });
      expect((listed.structuredContent as any).items).toHaveLength(1);
      await client.close();
      const res = await fetch(`${wo.url}/api/tasks?done=false&limit=secret-value`);
      expect(res.status).toBe(400);
      const lines = await linesUntil(wo, from, /^wo: GET \/api\/tasks/);
      expect(lines).toContainEqual(
        expect.stringMatching(/^wo: POST \/mcp tools\/call task_create 200 \d+(\.\d)? ms by owner$/),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(/^wo: POST \/mcp tools\/call task_list 200 \d+(\.\d)? ms by owner$/),
      );
      expect(lines).toContainEqual(expect.stringMatching(/^wo: POST \/mcp initialize 200 /));
      expect(lines).toContainEqual(
        expect.stringMatching(/^wo: GET \/api\/tasks\?done&limit 400 \d+(\.\d)? ms by owner$/),
      );
      expect(wo.output()).not.toContain("secret");
    } finally {
      await wo.stop();
    }
  });

  it("a stream the client closes is logged when it closes, marked as cut short", async () => {
    const wo = await serve();
    try {
      const init = await fetch(`${wo.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
      const session = init.headers.get("mcp-session-id")!;
      await init.text();
      const from = wo.output().length;
      const headers = { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      const req = request(`${wo.url}/mcp`, { headers });
      const res = await new Promise<IncomingMessage>((resolve) => req.on("response", resolve).end());
      expect(res.statusCode).toBe(200);
      req.destroy();
      const lines = await linesUntil(wo, from, /^wo: GET \/mcp /);
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^wo: GET \/mcp 200 \d+(\.\d)? ms by owner \(connection closed before the answer was complete\)$/,
        ),
      );
    } finally {
      await wo.stop();
    }
  });

  it("--log json: one object per line; a fresh build still shows its warnings", async () => {
    const wo = await serve("--log", "json");
    try {
      expect(wo.output()).toMatch(warning);
      const from = wo.output().length;
      await fetch(`${wo.url}/api/tasks?limit=5`);
      const lines = await linesUntil(wo, from, /^\{/);
      expect(JSON.parse(lines.find((l) => l.startsWith("{"))!)).toEqual({
        time: expect.stringMatching(/Z$/),
        method: "GET",
        path: "/api/tasks?limit",
        status: 200,
        ms: expect.any(Number),
        principal: "owner",
      });
    } finally {
      await wo.stop();
    }
  });

  it("--quiet: no request log", async () => {
    const wo = await serve("--quiet");
    try {
      const from = wo.output().length;
      const res = await fetch(`${wo.url}/api/tasks`);
      expect(res.status).toBe(200);
      await res.text();
      // The answer has been read; a log line would have been written before it was sent.
      await new Promise((r) => setTimeout(r, 100));
      expect(wo.output().slice(from)).toBe("");
    } finally {
      await wo.stop();
    }
  });
});
