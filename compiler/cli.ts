// argv → command → exit code. Each command lives in compiler/commands/ and returns its exit
// code; nothing below prints a stack trace for a user error.


const usage = `usage: wo <command> [dir] [options]

commands:
  check [dir]                         parse and check the .wo files in dir (default .)
  build [dir] [--out DIR]             check, then generate the build (default dir/.wo/build)
  run   [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]
        [--background] [--runtime-dir DIR] [--token-file FILE]
                                      build if stale, open the store, serve /api and /mcp;
                                      --background: detach, print the URL, token file and PID
  exec  [dir] [--db PATH]              run the app's main { … } block once against its store
                                      (print(…) writes to stdout); refused while wo run holds it
  test  [dir]                         run every test "name" { … } block, each on a fresh store
  status [dir] [--runtime-dir DIR]    the background instance: state, URL, PID, uptime, requests
  stop   [dir] [--runtime-dir DIR]    stop the background instance gracefully
  token-path [dir] [--runtime-dir DIR]
                                      print the automatic agent token's path (never the token)
  mcp install <claude|codex|cursor|vscode> [dir] [--name NAME] [--runtime-dir DIR] [--token-file FILE] [--no-token]
                                      register the MCP endpoint with an agent
  lsp [--stdio]                       language server for editors on stdin/stdout
`;

// Loaded on demand: `wo check` should not pay for the emitters (ts-morph) and the runtime.
const commands: Record<string, (args: string[]) => Promise<number>> = {
  check: async (args) => (await import("./commands/check.js")).runCheckCommand(args),
  build: async (args) => (await import("./commands/build.js")).runBuildCommand(args),
  run: async (args) => (await import("./commands/run.js")).runRunCommand(args),
  exec: async (args) => (await import("./commands/exec.js")).runExecCommand(args),
  test: async (args) => (await import("./commands/test.js")).runTestCommand(args),
  status: async (args) => (await import("./commands/instance.js")).runStatusCommand(args),
  stop: async (args) => (await import("./commands/instance.js")).runStopCommand(args),
  "token-path": async (args) => (await import("./commands/token-path.js")).runTokenPathCommand(args),
  mcp: async (args) => (await import("./commands/mcp-install.js")).runMcpCommand(args),
  lsp: async (args) => (await import("./commands/lsp.js")).runLspCommand(args),
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`wo: unknown command '${name}'\n\n${usage}`);
    return 2;
  }
  return command(rest);
}
