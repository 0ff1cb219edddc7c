// `wo mcp stdio` with the official SDK clients' stdio transports as the peer (v1
// `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`): they launch the real `wo`
// process, as a desktop agent does, and list, call, read a resource and get list_changed after an
// edit under --watch. Also: stdout carries only protocol messages, a refused WO_TOKEN stops the
// start, and `wo mcp install claude-desktop` writes the entry that launches it.
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeApp, repoRoot, runWoCommand, tempDir, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 90_000 });

const bin = join(repoRoot, "bin/wo.js");
const note = `type Note {
  title: Text
  service mcp "/mcp" expose list, get, create
}
`;
let apps: string[] = [];
afterEach(() => {
  for (const a of apps) removeApp(a);
  apps = [];
});
function app(): string {
  const dir = writeApp("notes", { "wo.toml": 'name = "notes"\n', "note.wo": note });
  apps.push(dir);
  return dir;
}

describe("wo mcp stdio", () => {
  it("the v1 SDK's stdio client lists, calls, reads a resource, and gets list_changed after an edit (--watch)", async () => {
    const dir = app();
    const stderr: string[] = [];
    const transport = new StdioV1({
      command: process.execPath,
      args: [bin, "mcp", "stdio", dir, "--watch"],
      stderr: "pipe",
    });
    transport.stderr?.on("data", (c: Buffer) => stderr.push(c.toString()));
    const client = new ClientV1({ name: "stdio-test", version: "1" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("notes");
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(["note_create", "note_get", "note_list"]);
      const created = await client.callTool({ name: "note_create", arguments: { title: "from stdio ✓" } });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ id: 1, title: "from stdio ✓" });
      const read = await client.readResource({ uri: "wo://note/1" });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ title: "from stdio ✓" });
      const invalid = await client.callTool({ name: "note_create", arguments: { title: 5 } });
      expect(invalid.isError).toBe(true);

      // An edit while it serves: the server tells this client its tools changed.
      const changed = new Promise<void>((res) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => res()),
      );
      writeFileSync(join(dir, "note.wo"), note.replace("expose list, get, create", "expose list, get, create, update"));
      await changed;
      const after = await client.listTools();
      expect(after.tools.map((t) => t.name)).toContain("note_update");
    } finally {
      await client.close();
    }
    expect(stderr.join("")).toContain("serving notes over MCP stdio as owner");
  });

  it("the v2 SDK's stdio client connects and calls a tool", async () => {
    const dir = app();
    const client = new ClientV2({ name: "stdio-test-v2", version: "1" });
    await client.connect(
      new StdioV2({ command: process.execPath, args: [bin, "mcp", "stdio", dir], stderr: "ignore" }),
    );
    try {
      const made = await client.callTool({ name: "note_create", arguments: { title: "v2" } });
      expect(made.structuredContent).toMatchObject({ title: "v2" });
      const listed = await client.callTool({ name: "note_list", arguments: {} });
      expect((listed.structuredContent as { items: unknown[] }).items).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("stdout holds only JSON-RPC lines, a bad line gets a parse error, and stdin's end stops the server", () => {
    const dir = app();
    // Build first, so the run below prints nothing but protocol on stdout.
    const lines = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      "this is not json",
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note_create","arguments":{"title":"raw"}}}',
    ];
    const r = spawnSync(process.execPath, [bin, "mcp", "stdio", dir], {
      input: `${lines.join("\n")}\n`,
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number } });
    expect(out.find((m) => m.id === 1)).toMatchObject({ result: { protocolVersion: "2025-06-18" } });
    expect(out.find((m) => m.id === 2)).toMatchObject({ result: { structuredContent: { title: "raw" } } });
    expect(out.some((m) => m.error?.code === -32700)).toBe(true);
    expect(r.stderr).toContain("serving notes over MCP stdio");
  });

  it("a WO_TOKEN no identity source knows stops the start, naming why and never the token", async () => {
    const dir = app();
    // The owner's token configured, so identities are on and a wrong token is refused.
    writeFileSync(join(dir, "wo.toml"), 'name = "notes"\n[server]\ntoken_env = "NOTES_TOKEN"\n');
    const r = spawnSync(process.execPath, [bin, "mcp", "stdio", dir], {
      input: "",
      encoding: "utf8",
      env: { ...process.env, NOTES_TOKEN: "the-owner-token-long-enough-0123456789", WO_TOKEN: "not-a-known-token" },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("wo mcp stdio: WO_TOKEN is refused:");
    expect(r.stderr).not.toContain("not-a-known-token");
    expect(r.stdout).toBe("");
  });

  it("wo mcp install claude-desktop writes the entry that launches wo mcp stdio, keeping the others", async () => {
    const dir = app();
    const home = tempDir("wo-desktop-home-");
    const configDir = join(home, ".config", "Claude");
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      join(configDir, "claude_desktop_config.json"),
      JSON.stringify({ mcpServers: { other: { command: "x" } }, theme: "dark" }),
    );
    const r = await runWoCommand(["mcp", "install", "claude-desktop", dir], {
      env: { HOME: home, XDG_CONFIG_HOME: "" },
    });
    expect(r.code).toBe(0);
    const written = JSON.parse(readFileSync(join(configDir, "claude_desktop_config.json"), "utf8"));
    expect(written.theme).toBe("dark");
    expect(written.mcpServers.other).toEqual({ command: "x" });
    expect(written.mcpServers.notes).toEqual({ command: process.execPath, args: [bin, "mcp", "stdio", dir] });
    expect(r.stdout).toContain("Restart Claude Desktop");
  });
});
