// argv → command → exit code. Each command lives in compiler/commands/ and returns its exit
// code; nothing below prints a stack trace for a user error.


const usage = `usage: wo <command> [dir] [options]

commands:
  check [dir]                         parse and check the .wo files in dir (default .)
  build [dir] [--out DIR]             check, then generate the build (default dir/.wo/build)
  run   [dir] [--listen HOST:PORT] [--db PATH] [--allow-destructive-migration] [--no-mcp-sessions]
                                      build if stale, open the store, serve /api and /mcp
`;

// Loaded on demand: `wo check` should not pay for the emitters (ts-morph) and the runtime.
const commands: Record<string, (args: string[]) => Promise<number>> = {
  check: async (args) => (await import("./commands/check.js")).runCheckCommand(args),
  build: async (args) => (await import("./commands/build.js")).runBuildCommand(args),
  run: async (args) => (await import("./commands/run.js")).runRunCommand(args),
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
