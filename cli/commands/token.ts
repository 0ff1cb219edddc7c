// `wo token add NAME [dir] --role ROLE [--user ID]`, `wo token list [dir] [--json]`,
// `wo token revoke NAME [dir]`: the app's named tokens (spec/operations.md, "Tokens"), in its
// database (`--db`, else wo.toml [database], as for `wo run`), also while `wo run` serves it:
// only the tokens' own table is touched (runtime/store/open-named-tokens.ts).
//
// `add` prints the new token once, alone on the last line of stdout, so a script can take it
// with `tail -n 1`; the database keeps only its SHA-256, so it cannot be shown again. `list`
// never shows a token.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ownerPrincipal } from "../../model/principal.js";
import { type AuditRecord, StoreOpenError } from "../../model/store.js";
import {
  namedTokenHash,
  newNamedToken,
  tokenNameProblem,
  tokenRoleProblem,
  tokenUserProblem,
} from "../../runtime/identity/named-tokens.js";
import { openNamedTokens, type OpenedNamedTokens } from "../../runtime/store/open-named-tokens.js";
import type { ParsedArgs } from "./args.js";
import { ConfigError, readAppConfig } from "./mcp-install.js";

export async function runTokenAddCommand(args: ParsedArgs): Promise<number> {
  const [name, dir] = args.positionals;
  const role = args.value("--role");
  const user = args.value("--user");
  const problem =
    tokenNameProblem(name!) ??
    (role === undefined ? "--role ROLE is required (e.g. --role agent)" : tokenRoleProblem(role)) ??
    (user !== undefined ? tokenUserProblem(user) : undefined);
  if (problem) return fail("add", problem);
  return withTokens("add", dir, args, true, async (opened) => {
    const token = newNamedToken();
    const added = await opened!.tokens.add(
      { name: name!, role: role!, user: user ?? null, hash: namedTokenHash(token) },
      cliAudit(`(token add) ${name}`),
    );
    if (!added)
      return fail(
        "add",
        `a token named '${name}' exists already; revoke it first (wo token revoke ${name}) or pick another name`,
      );
    process.stdout.write(
      `wo: token '${name}' (role ${role}${user !== undefined ? `, user ${user}` : ""}) added to ${opened!.description}.\n` +
        "wo: it is shown only now; send it as Authorization: Bearer <token>:\n" +
        `${token}\n`,
    );
    return 0;
  });
}

export async function runTokenListCommand(args: ParsedArgs): Promise<number> {
  return withTokens("list", args.first, args, false, async (opened) => {
    const tokens = opened ? await opened.tokens.list() : [];
    if (args.has("--json")) {
      process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
      return 0;
    }
    if (tokens.length === 0) {
      process.stdout.write("wo: no named tokens; `wo token add NAME --role ROLE` makes one.\n");
      return 0;
    }
    const rows = [
      ["NAME", "ROLE", "USER", "CREATED", "LAST USED"],
      ...tokens.map((t) => [t.name, t.role, t.user ?? "-", t.createdAt, t.lastUsed ?? "never"]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows)
      process.stdout.write(
        `${r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd()}\n`,
      );
    return 0;
  });
}

export async function runTokenRevokeCommand(args: ParsedArgs): Promise<number> {
  const [name, dir] = args.positionals;
  const problem = tokenNameProblem(name!);
  if (problem) return fail("revoke", problem);
  return withTokens("revoke", dir, args, false, async (opened) => {
    if (!opened || !(await opened.tokens.revoke(name!, cliAudit(`(token revoke) ${name}`))))
      return fail("revoke", `there is no token named '${name}'; \`wo token list\` shows the tokens there are`);
    process.stdout.write(`wo: token '${name}' revoked; every instance refuses it from now on.\n`);
    return 0;
  });
}

/** Opens the app's tokens (undefined: a SQLite database not made yet, when `create` is false), runs `body`, closes. */
async function withTokens(
  verb: string,
  dir: string | undefined,
  args: ParsedArgs,
  create: boolean,
  body: (opened: OpenedNamedTokens | undefined) => Promise<number>,
): Promise<number> {
  const appDir = resolve(dir ?? ".");
  if (!existsSync(appDir)) return fail(verb, `there is no app folder ${appDir}`);
  let opened: OpenedNamedTokens | undefined;
  try {
    const db = args.value("--db");
    const { config } = readAppConfig(appDir);
    opened = await openNamedTokens({ appDir, ...(db !== undefined ? { db } : {}), config }, create);
    return await body(opened);
  } catch (err) {
    if (err instanceof StoreOpenError || err instanceof ConfigError) return fail(verb, err.message);
    throw err;
  } finally {
    await opened?.close();
  }
}

/** The audit entry of a `wo token` write: the owner's, from the command line (spec/operations.md, "Audit trail"). */
function cliAudit(operation: string): AuditRecord {
  const p = ownerPrincipal;
  return {
    at: new Date().toISOString(),
    principal: p.name,
    user: p.user,
    role: p.role,
    via: p.via,
    surface: "cli",
    operation,
    type: null,
    rowId: null,
    outcome: "ok",
  };
}

function fail(verb: string, message: string): number {
  process.stderr.write(`wo token ${verb}: ${message}.\n`);
  return 1;
}
