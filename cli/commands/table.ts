// The one table of wo's commands and their flags. The usage text and `wo help <command>`
// (help.ts), the argument parser (args.ts) and the README check (test/check/cli.test.ts) all
// read it, so what the help lists is exactly what the parser accepts. Adding a command is one
// entry here; its code is loaded only when it runs (`wo check` does not pay for the runtime).
//
// A name may have two words (`mcp install`): the parser matches the longest name argv starts
// with.

import type { ParsedArgs } from "./args.js";

export interface Flag {
  /** `--name`; also accepted as `--name=value` when it takes a value. */
  name: `--${string}`;
  short?: `-${string}`;
  /** What it takes, as help shows it (`HOST:PORT`); absent for a switch. */
  value?: string;
  /** The only values accepted, when the set is closed. */
  choices?: readonly string[];
  help: string;
  /** Accepted but not shown: wo's own plumbing (`--background-child`), never typed by hand. */
  internal?: true;
}

export interface Positional {
  /** As usage shows it, without brackets: `dir`. Positionals are optional. */
  name: string;
  help: string;
  /** Must be given (shown as `<name>`); the others are optional (`[name]`). */
  required?: true;
  /** Takes every remaining word (`wo help mcp install`). */
  rest?: true;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  positionals: readonly Positional[];
  flags: readonly Flag[];
  run(args: ParsedArgs): Promise<number>;
}

/** Every command understands it; the parser answers it before anything else. */
export const helpFlag: Flag = { name: "--help", short: "-h", help: "show this command's usage and flags" };

const dir: Positional = { name: "dir", help: "the app folder (default: the current folder)" };
const runtimeDir: Flag = {
  name: "--runtime-dir",
  value: "DIR",
  help: "the app's private runtime directory: background state, automatic token (default: ~/.cache/wo/<app-id>; spec/operations.md)",
};
const tokenFile: Flag = {
  name: "--token-file",
  value: "FILE",
  help: "read the agent bearer token from this owner-private file",
};

/** `--db` of the commands that work on a store other than wo run's. */
function dbFlag(what: string): Flag {
  return {
    name: "--db",
    value: "PATH",
    help: `a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run: ${what}`,
  };
}
const tokenDb: Flag = {
  name: "--db",
  value: "PATH",
  help: "the app's database as for wo run (a data folder, a .sqlite/.db file or a postgres:// URL); works while wo run serves it",
};

export const commands: readonly Command[] = [
  {
    name: "init",
    summary: "scaffold a new app (wo.toml, a type served over REST and MCP, a README) in dir",
    positionals: [
      {
        name: "dir",
        help: "a new or empty folder, or one with neither .wo files nor wo.toml (default: the current folder)",
      },
    ],
    flags: [],
    run: async (args) => (await import("./init.js")).runInitCommand(args),
  },
  {
    name: "check",
    summary: "parse and check the .wo files in dir",
    positionals: [dir],
    flags: [
      {
        name: "--format",
        value: "text|json",
        choices: ["text", "json"],
        help: "text (default: file:line:col with the source line, on stderr) or json (an array on stdout; spec/diagnostics.md)",
      },
      {
        name: "--policies",
        help: "with --format json: an object { diagnostics, types (each type's policy grants), bypassPolicies } (spec/policies.md)",
      },
    ],
    run: async (args) => (await import("./check.js")).runCheckCommand(args),
  },
  {
    name: "build",
    summary: "check, then generate the build (default dir/.wo/build); skipped when up to date",
    positionals: [dir],
    flags: [
      { name: "--out", short: "-o", value: "DIR", help: "write the build here instead of dir/.wo/build" },
      { name: "--force", help: "build even when the build is up to date" },
    ],
    run: async (args) => (await import("./build.js")).runBuildCommand(args),
  },
  {
    name: "run",
    summary: "build if stale, open the store, serve /api and /mcp",
    positionals: [dir],
    flags: [
      {
        name: "--listen",
        value: "HOST:PORT",
        help: "where to listen (default: wo.toml [server] listen, else 127.0.0.1:8080; port 0 picks a free port)",
      },
      {
        name: "--db",
        value: "PATH",
        help: "a data folder (the database is PATH/app.sqlite), a .sqlite/.db file, or a postgres:// URL",
      },
      {
        name: "--allow-destructive-migration",
        help: "apply schema changes that lose stored data (dropped tables or columns, discarded values; spec/storage.md)",
      },
      {
        name: "--watch",
        help: "rebuild on every change to a .wo file or wo.toml and swap the new build in while serving (spec/live.md)",
      },
      {
        name: "--no-mcp-sessions",
        help: "serve 2025-era MCP clients without Mcp-Session-Id (overrides wo.toml [mcp] sessions)",
      },
      { name: "--mcp-sessions", help: "give 2025-era MCP clients sessions (overrides wo.toml [mcp] sessions)" },
      { name: "--quiet", short: "-q", help: "no request log on stderr" },
      {
        name: "--log",
        value: "text|json",
        choices: ["text", "json"],
        help: "request log format on stderr: text (default) or json (one object per line)",
      },
      tokenFile,
      {
        name: "--background",
        help: "serve from a detached process; return once it serves, printing its URL, token file and PID",
      },
      runtimeDir,
      { name: "--background-child", help: "the detached process --background starts", internal: true },
      {
        name: "--db-in-runtime-dir",
        help: "the detached process takes its PostgreSQL URL from the runtime directory, never argv",
        internal: true,
      },
    ],
    run: async (args) => (await import("./run.js")).runRunCommand(args),
  },
  {
    name: "test",
    summary: 'run every test "name" { … } block, each on a fresh store',
    positionals: [dir],
    flags: [],
    run: async (args) => (await import("./test.js")).runTestCommand(args),
  },
  {
    name: "exec",
    summary: "run the app's main { … } block once against its store (print(…) writes to stdout)",
    positionals: [dir],
    flags: [
      {
        name: "--db",
        value: "PATH",
        help: "a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run; a SQLite one is refused while wo run holds it",
      },
    ],
    run: async (args) => (await import("./exec.js")).runExecCommand(args),
  },
  {
    name: "migrate",
    summary: "show the schema migration the next wo run would make (--plan), or make it now (--apply)",
    positionals: [dir],
    flags: [
      {
        name: "--plan",
        help: "show each change, the SQL it runs and the rows it touches; change nothing (the default)",
      },
      { name: "--apply", help: "apply the migration as wo run would at start, without serving" },
      {
        name: "--db",
        value: "PATH",
        help: "a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run; a SQLite one is refused while wo run holds it",
      },
      {
        name: "--allow-destructive-migration",
        help: "plan or apply changes that lose stored data, as wo run's flag of that name",
      },
      { name: "--json", help: "print the plan (or what was applied) as one JSON object" },
    ],
    run: async (args) => (await import("./migrate.js")).runMigrateCommand(args),
  },
  {
    name: "audit",
    summary: "print the audit trail: every write and refused call, with who, when, where and the outcome",
    positionals: [dir],
    flags: [
      { name: "--since", value: "T", help: "only entries since T: an ISO-8601 time, or a duration ago (1h, 2d)" },
      { name: "--user", value: "U", help: "only calls whose $session.user is U" },
      { name: "--json", help: "print a JSON array of the entries instead of a table" },
      {
        name: "--db",
        value: "PATH",
        help: "a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run; read-only, so wo run may hold it",
      },
    ],
    run: async (args) => (await import("./audit.js")).runAuditCommand(args),
  },
  {
    name: "jobs",
    summary:
      "print the job outbox: each enqueued job's status (pending, running, done, failed), attempts and last error",
    positionals: [dir],
    flags: [
      { name: "--status", value: "S", help: "only jobs of this status: pending, running, done or failed" },
      { name: "--name", value: "N", help: "only jobs of this name" },
      { name: "--json", help: "print a JSON array of the jobs instead of a table" },
      {
        name: "--db",
        value: "PATH",
        help: "a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run; read-only, so wo run may hold it",
      },
    ],
    run: async (args) => (await import("./jobs.js")).runJobsCommand(args),
  },
  {
    name: "status",
    summary: "the background instance: state, URL, PID, uptime, requests",
    positionals: [dir],
    flags: [runtimeDir],
    run: async (args) => (await import("./instance.js")).runStatusCommand(args),
  },
  {
    name: "stop",
    summary: "stop the background instance gracefully",
    positionals: [dir],
    flags: [runtimeDir],
    run: async (args) => (await import("./instance.js")).runStopCommand(args),
  },
  {
    name: "token-path",
    summary: "print the automatic agent token's path (never the token)",
    positionals: [dir],
    flags: [runtimeDir],
    run: async (args) => (await import("./token-path.js")).runTokenPathCommand(args),
  },
  {
    name: "export",
    summary: "write every row of the store as JSON lines to stdout (a consistent snapshot; runs while wo run serves)",
    positionals: [dir],
    flags: [dbFlag("the store to export; a SQLite one is read without its lock")],
    run: async (args) => (await import("./transfer.js")).runExportCommand(args),
  },
  {
    name: "import",
    summary: "read a wo export from stdin into an empty store, validated like creates, all or nothing",
    positionals: [dir],
    flags: [dbFlag("the empty store to import into; a SQLite one is refused while wo run holds it")],
    run: async (args) => (await import("./transfer.js")).runImportCommand(args),
  },
  {
    name: "backup",
    summary: "copy the SQLite database to file while wo run serves (online backup)",
    positionals: [{ name: "file", help: "where the backup goes (replaced if it exists)", required: true }, dir],
    flags: [dbFlag("the database to back up")],
    run: async (args) => (await import("./backup.js")).runBackupCommand(args),
  },
  {
    name: "restore",
    summary: "replace the SQLite database with a backup (refused while wo run serves; the old one is kept)",
    positionals: [{ name: "file", help: "a backup made by wo backup", required: true }, dir],
    flags: [dbFlag("the database to replace")],
    run: async (args) => (await import("./backup.js")).runRestoreCommand(args),
  },
  {
    name: "token add",
    summary: "make a named bearer token with a role in the app's database; print it once, on the last line",
    positionals: [{ name: "name", help: "the token's name: lower-case letters, digits, - or _", required: true }, dir],
    flags: [
      { name: "--role", value: "ROLE", help: "the principal's role (required), e.g. agent" },
      { name: "--user", value: "ID", help: "the principal's user id ($session.user)" },
      tokenDb,
    ],
    run: async (args) => (await import("./token.js")).runTokenAddCommand(args),
  },
  {
    name: "token list",
    summary: "the app's named tokens: name, role, user, created, last used (never the token)",
    positionals: [dir],
    flags: [{ name: "--json", help: "one JSON array on stdout" }, tokenDb],
    run: async (args) => (await import("./token.js")).runTokenListCommand(args),
  },
  {
    name: "token revoke",
    summary: "revoke a named token: refused from the next request on, by every instance",
    positionals: [{ name: "name", help: "the token's name", required: true }, dir],
    flags: [tokenDb],
    run: async (args) => (await import("./token.js")).runTokenRevokeCommand(args),
  },
  {
    name: "mcp install",
    summary: "register the app's MCP endpoint with an agent",
    positionals: [
      {
        name: "client",
        help: "claude, claude-desktop (launches wo mcp stdio), codex, cursor or vscode",
        required: true,
      },
      dir,
    ],
    flags: [
      { name: "--name", value: "NAME", help: "the server's name in the client (default: wo.toml name)" },
      {
        name: "--url",
        value: "URL",
        help: "the server's address, http://HOST:PORT (default: the background instance's, else wo.toml listen)",
      },
      runtimeDir,
      tokenFile,
      { name: "--no-token", help: "register the endpoint without a bearer token" },
      {
        name: "--token-name",
        value: "NAME",
        help: "give the agent its own named token (made now, as wo token add) instead of the owner's",
      },
      { name: "--role", value: "ROLE", help: "the named token's role (default: agent)" },
      {
        name: "--db",
        value: "PATH",
        help: "the database the named token goes in, as for wo run (default: wo.toml's)",
      },
    ],
    run: async (args) => (await import("./mcp-install.js")).runMcpInstallCommand(args),
  },
  {
    name: "mcp stdio",
    summary: "serve the app over MCP's stdio transport (for agents that launch their servers: Claude Desktop, IDEs)",
    positionals: [dir],
    flags: [
      {
        name: "--db",
        value: "PATH",
        help: "a data folder, a .sqlite/.db file or a postgres:// URL, as for wo run; a SQLite one is refused while wo run holds it",
      },
      { name: "--watch", help: "rebuild on every saved change and swap the new build in; clients get list_changed" },
    ],
    run: async (args) => (await import("./mcp-stdio.js")).runMcpStdioCommand(args),
  },
  {
    name: "lsp",
    summary: "language server for editors on stdin/stdout (spec/editors.md)",
    positionals: [],
    flags: [
      { name: "--stdio", help: "talk LSP on stdin/stdout (the only transport; editor clients pass it)" },
      { name: "--clientProcessId", value: "PID", help: "the editor's process id (VS Code passes it)", internal: true },
    ],
    run: async () => (await import("./lsp.js")).runLspCommand(),
  },
  {
    name: "help",
    summary: "list the commands, or the flags of one command",
    positionals: [{ name: "command", help: "the command to describe", rest: true }],
    flags: [],
    run: async (args) => (await import("./help.js")).runHelpCommand(args),
  },
  {
    name: "version",
    summary: "print wo's version (also: wo --version)",
    positionals: [],
    flags: [],
    run: async () => (await import("./help.js")).runVersionCommand(),
  },
];

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
