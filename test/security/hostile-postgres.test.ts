// spec/security.md, "Hostile input", the PostgreSQL findings: against a real PostgreSQL
// (test/support/postgres.ts) and real `wo run` processes, raw HTTP. Each would fail without its fix.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rawRequest } from "../support/raw-http.js";
import { pgPassword, startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runToExit, runWoCommand, startWo, tempDir, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = {
  "wo.toml": 'name = "notes"\n',
  "app.wo": `type Note {
  title: Text
  service rest "/api/notes" expose list, get, create, update
  service mcp "/mcp" expose list, create
}
`,
};

let server: PostgresServer;
const apps: string[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const dir of apps.splice(0)) removeApp(dir);
  await server?.stop();
});

function newApp(): string {
  const dir = writeApp("notes", app);
  apps.push(dir);
  return dir;
}

const json = { "content-type": "application/json" };

describe("hostile input against wo run on PostgreSQL", () => {
  it("U+0000 in a Text value or a filter is 400 naming the field (was 500), REST and MCP", async () => {
    const wo = await startWo([newApp(), "--db", await server.createDatabase(), "--listen", "127.0.0.1:0"]);
    try {
      expect((await rawRequest(wo.url, "POST", "/api/notes", json, `{"title":"fine"}`)).status).toBe(201);
      const create = await rawRequest(wo.url, "POST", "/api/notes", json, `{"title":"a\\u0000b"}`);
      expect(create.status, create.text).toBe(400);
      expect(create.json.errors).toEqual([{ path: "/title", message: expect.stringContaining("U+0000") }]);
      const update = await rawRequest(wo.url, "PATCH", "/api/notes/1", json, `{"title":"\\u0000"}`);
      expect(update.status, update.text).toBe(400);
      for (const query of ["?title=%00", "?title[contains]=x%00", "?title[ne]=%00"]) {
        const list = await rawRequest(wo.url, "GET", `/api/notes${query}`);
        expect(list.status, `${query}: ${list.text}`).toBe(400);
        expect(list.json.errors[0].message).toContain("U+0000");
      }
      const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
      const mcp = await rawRequest(
        wo.url,
        "POST",
        "/mcp",
        {
          ...json,
          accept: "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "note_list",
        },
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note_list","arguments":{"title":"\\u0000"},"_meta":${meta}}}`,
      );
      expect(mcp.json.result.isError, mcp.text).toBe(true);
      expect(mcp.json.result.content[0].text).toContain("U+0000");
      const rows = await rawRequest(wo.url, "GET", "/api/notes");
      expect(rows.json.items.map((n: { title: string }) => n.title)).toEqual(["fine"]);
      expect(wo.output()).not.toMatch(/unexpected|internal/i);
    } finally {
      await wo.stop();
    }
  });

  it("a URL with options= is refused before serving, saying why (was an internal error)", async () => {
    const url = `${await server.createDatabase()}?options=-c%20search_path%3Dother`;
    const { code, output } = await runToExit([newApp(), "--db", url, "--listen", "127.0.0.1:0"]);
    expect(code).toBe(1);
    expect(output).toContain("sets options=, which wo does not support");
    expect(output).not.toMatch(/internal error|bug in wo/);
    expect(output).not.toContain(pgPassword);
  });

  it("--background --db postgres://user:PASS@…: the password is not in the child's command line", async () => {
    const appDir = newApp();
    const runtimeDir = join(tempDir("wo-hostile-"), "rt");
    const url = await server.createDatabase();
    expect(url).toContain(pgPassword);
    const started = await runWoCommand([
      "run",
      appDir,
      "--background",
      "--db",
      url,
      "--listen",
      "127.0.0.1:0",
      "--runtime-dir",
      runtimeDir,
    ]);
    const pid = Number(/pid\s+(\d+)/.exec(started.stdout)?.[1]);
    try {
      expect(started.code, started.stdout + started.stderr).toBe(0);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      expect(cmdline).toContain("--background-child");
      expect(cmdline.join(" ")).not.toContain(pgPassword);
      expect(cmdline.join(" ")).not.toContain("postgres://");
      // The hand-over file is gone once the child has read it.
      expect(existsSync(join(runtimeDir, "database.url"))).toBe(false);
      // And the instance serves from that database (with its automatic token).
      const base = /running in the background at (http:\/\/\S+)/.exec(started.stdout)![1]!;
      const token = readFileSync(/token\s+(\S+)/.exec(started.stdout)![1]!, "utf8").trim();
      const auth = { ...json, authorization: `Bearer ${token}` };
      expect((await rawRequest(base, "POST", "/api/notes", auth, `{"title":"bg"}`)).status).toBe(201);
    } finally {
      await runWoCommand(["stop", appDir, "--runtime-dir", runtimeDir]);
      try {
        if (pid) process.kill(pid, "SIGKILL");
      } catch {
        // already stopped
      }
    }
  });
});
