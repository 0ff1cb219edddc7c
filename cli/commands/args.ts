// argv → a command of the table (table.ts) and its flags. Owns the command-line grammar:
// `--flag value`, `--flag=value`, `-o value`, switches, `--` before positionals that start
// with `-`, and `--help`/`-h` anywhere. Every mistake is a message naming what was typed
// (with the nearest flag or command when one is close); nothing here prints.

import { closestMatch } from "../../compiler/check/did-you-mean.js";
import { commands, helpFlag, type Command, type Flag } from "./table.js";

export class ParsedArgs {
  constructor(
    readonly positionals: readonly string[],
    private readonly flags: ReadonlyMap<string, string | true>,
  ) {}

  /** The value of a flag that takes one (the last one given wins). */
  value(name: `--${string}`): string | undefined {
    const v = this.flags.get(name);
    return typeof v === "string" ? v : undefined;
  }

  has(name: `--${string}`): boolean {
    return this.flags.has(name);
  }

  /** The first positional (every command takes at most one today). */
  get first(): string | undefined {
    return this.positionals[0];
  }
}

export type Resolved = { command: Command; rest: string[] } | { error: string };

/** The command argv starts with (a two-word name wins over a one-word one), and what follows it. */
export function resolveCommand(argv: readonly string[]): Resolved {
  const matches = commands.filter((c) => {
    const words = c.name.split(" ");
    return words.every((w, i) => argv[i] === w);
  });
  const command = matches.sort((a, b) => b.name.length - a.name.length)[0];
  if (command) return { command, rest: argv.slice(command.name.split(" ").length) };
  const typed = argv[0] ?? "";
  const subcommands = commands.filter((c) => c.name.startsWith(`${typed} `)).map((c) => `'${c.name}'`);
  if (subcommands.length > 0) return { error: `'${typed}' needs a subcommand: ${subcommands.join(", ")}` };
  const near = closestMatch(
    typed,
    commands.map((c) => c.name.split(" ")[0]!),
  );
  return { error: `unknown command '${typed}'${near ? `; did you mean '${near}'?` : ""}` };
}

/** The arguments after the command name; "help" when --help/-h was given, or a message. */
export function parseArgs(command: Command, args: readonly string[]): ParsedArgs | "help" | { error: string } {
  const flags = [...command.flags, helpFlag];
  const byName = new Map<string, Flag>();
  for (const f of flags) {
    byName.set(f.name, f);
    if (f.short) byName.set(f.short, f);
  }
  const positionals: string[] = [];
  const values = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const typed = eq < 0 ? arg : arg.slice(0, eq);
    const flag = byName.get(typed);
    if (!flag) {
      const near = closestMatch(
        typed,
        flags.map((f) => f.name),
      );
      return { error: `unknown option '${typed}'${near ? `; did you mean '${near}'?` : ""}` };
    }
    if (flag === helpFlag) return "help";
    if (flag.value === undefined) {
      if (eq >= 0) return { error: `${flag.name} takes no value` };
      values.set(flag.name, true);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") return { error: `${typed} needs ${flag.value}` };
    if (flag.choices && !flag.choices.includes(value)) {
      return { error: `${flag.name} must be ${flag.choices.map((c) => `'${c}'`).join(" or ")}, not '${value}'` };
    }
    values.set(flag.name, value);
  }
  const missing = command.positionals.find((p, i) => p.required && positionals[i] === undefined);
  if (missing) return { error: `needs <${missing.name}> (${missing.help})` };
  if (positionals.length > command.positionals.length && !command.positionals.at(-1)?.rest) {
    const extra = positionals[command.positionals.length]!;
    const expected =
      command.positionals.length === 0
        ? "no arguments"
        : `at most ${command.positionals.map((p) => p.name).join(", ")}`;
    return { error: `unexpected argument '${extra}' (${command.name} takes ${expected})` };
  }
  return new ParsedArgs(positionals, values);
}
