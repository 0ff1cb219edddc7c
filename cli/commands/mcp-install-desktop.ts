// `wo mcp install claude-desktop [dir] [--name NAME]`: register the app with Claude Desktop,
// which launches its servers itself and speaks MCP over their stdio (`wo mcp stdio`,
// cli/commands/mcp-stdio.ts). Merges one entry into claude_desktop_config.json —
// `mcpServers[NAME] = { command: <this node>, args: [<this wo>, "mcp", "stdio", <app>] }` —
// keeping every other entry and setting, written whole (a temp file renamed over it). No token
// is involved: the server is a child process of the desktop app, running as its user.

import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir, platform } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Where Claude Desktop keeps its configuration on this system. */
export function claudeDesktopConfigPath(): string {
  const home = homedir();
  if (platform() === "darwin")
    return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (platform() === "win32")
    return join(process.env.APPDATA || join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
  // XDG: an unset, empty or relative XDG_CONFIG_HOME means ~/.config.
  const xdg = process.env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), "Claude", "claude_desktop_config.json");
}

export function installClaudeDesktop(name: string, appDir: string, woBin: string): number {
  const file = claudeDesktopConfigPath();
  let config: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
      config = parsed as Record<string, unknown>;
    } catch (err) {
      process.stderr.write(
        `wo mcp install: ${file} is not valid JSON (${(err as Error).message}); fix or move it, then run again. Nothing was changed.\n`,
      );
      return 1;
    }
  }
  const servers =
    typeof config.mcpServers === "object" && config.mcpServers !== null && !Array.isArray(config.mcpServers)
      ? (config.mcpServers as Record<string, unknown>)
      : {};
  const had = name in servers;
  servers[name] = { command: process.execPath, args: [resolve(woBin), "mcp", "stdio", resolve(appDir)] };
  config.mcpServers = servers;
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  const temp = `${file}.wo-${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode });
  renameSync(temp, file);
  process.stdout.write(
    `wo: ${had ? "updated" : "registered"} '${name}' in ${file}: Claude Desktop starts \`wo mcp stdio ${resolve(appDir)}\` itself. Restart Claude Desktop to pick it up.\n`,
  );
  return 0;
}
