// argv → command → exit code. The commands and their flags are one table
// (cli/commands/table.ts); each command lives in cli/commands/ and returns its exit
// code. Exit 2 is a usage mistake; nothing below prints a stack trace for a user error.

import { parseArgs, resolveCommand } from "./commands/args.js";
import { commandHelp, runVersionCommand, usage, usageError } from "./commands/help.js";

export async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    process.stdout.write(usage());
    return 2;
  }
  if (first === "--help" || first === "-h") {
    process.stdout.write(usage());
    return 0;
  }
  if (first === "--version") return runVersionCommand();
  const resolved = resolveCommand(argv);
  if ("error" in resolved) return usageError(undefined, resolved.error);
  const { command, rest } = resolved;
  const parsed = parseArgs(command, rest);
  if (parsed === "help") {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  if ("error" in parsed) return usageError(command, parsed.error);
  return command.run(parsed);
}
