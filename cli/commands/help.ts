// `wo help [command]`, `wo <command> --help`, `wo version`: text made from the command table
// (table.ts), so the help cannot list a flag the parser refuses or miss one it accepts.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ParsedArgs } from "./args.js";
import { resolveCommand } from "./args.js";
import { commands, helpFlag, type Command, type Flag } from "./table.js";

/** `wo run [dir] [--listen HOST:PORT] …`: one line naming every flag. */
export function synopsis(command: Command): string {
  const parts = [`wo ${command.name}`];
  if (command.positionals.length > 0) parts.push(positionalText(command));
  for (const f of shownFlags(command)) parts.push(`[${flagText(f)}]`);
  return parts.join(" ");
}

/** The list of commands (`wo`, `wo help`). */
export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length + positionalText(c).length + 1));
  const lines = ["usage: wo <command> [dir] [options]", "", "commands:"];
  for (const c of commands) lines.push(`  ${`${c.name} ${positionalText(c)}`.padEnd(width)}  ${c.summary}`);
  lines.push(
    "",
    "wo help <command> (or wo <command> --help) lists a command's flags. wo --version prints the version.",
    "",
  );
  return lines.join("\n");
}

/** One command's synopsis, arguments and every flag. */
export function commandHelp(command: Command): string {
  const lines = [`usage: ${synopsis(command)}`, "", command.summary, ""];
  const rows: [string, string][] = [
    ...command.positionals.map((p): [string, string] => [p.name, p.help]),
    ...[...shownFlags(command), helpFlag].map((f): [string, string] => [
      (f.short ? `${f.short}, ` : "") + flagText(f),
      f.help,
    ]),
  ];
  const width = Math.max(...rows.map(([left]) => left.length));
  if (command.positionals.length > 0) lines.push("arguments:");
  rows.forEach(([left, help], i) => {
    if (i === command.positionals.length) lines.push("options:");
    lines.push(`  ${left.padEnd(width)}  ${help}`);
  });
  lines.push("");
  return lines.join("\n");
}

/** The commands that share a first word: each one's synopsis and summary. */
function groupHelp(group: Command[]): string {
  const lines: string[] = [];
  for (const c of group) lines.push(`usage: ${synopsis(c)}`, `  ${c.summary}`, "");
  const word = group[0]!.name.split(" ")[0]!;
  lines.push(`wo help ${word} <subcommand> lists the flags of one.`, "");
  return lines.join("\n");
}

/** A usage mistake: the message, then how to get help. Exit status 2. */
export function usageError(command: Command | undefined, message: string): number {
  const hint = command ? `usage: ${synopsis(command)}\nwo help ${command.name} lists its flags.` : usage().trimEnd();
  process.stderr.write(`wo${command ? ` ${command.name}` : ""}: ${message}\n${hint}\n`);
  return 2;
}

export async function runHelpCommand(args: ParsedArgs): Promise<number> {
  if (args.first === undefined) {
    process.stdout.write(usage());
    return 0;
  }
  // `wo help mcp`: a word that only starts commands (`mcp install`, …) lists them.
  const group = commands.filter((c) => c.name.startsWith(`${args.positionals.join(" ")} `));
  if (group.length > 0) {
    process.stdout.write(groupHelp(group));
    return 0;
  }
  const resolved = resolveCommand([...args.positionals]);
  if ("error" in resolved) return usageError(undefined, resolved.error);
  process.stdout.write(commandHelp(resolved.command));
  return 0;
}

export async function runVersionCommand(): Promise<number> {
  process.stdout.write(`wo ${packageVersion()}\n`);
  return 0;
}

/** The `version` of wo's package.json, found above this module (dist/… or the sources). */
export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "wo" && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return "unknown";
  }
}

function flagText(f: Flag): string {
  return f.value ? `${f.name} ${f.value}` : f.name;
}

function positionalText(c: Command): string {
  return c.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(" ");
}

/** The flags a person types: help, usage and the README list these. */
export function shownFlags(c: Command): Flag[] {
  return c.flags.filter((f) => !f.internal);
}
