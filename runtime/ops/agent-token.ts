// The agent bearer token: where `wo run` gets it and what a usable token is. Sources, first
// that applies: `--token-file FILE` (an owner-private file), `[server] token_env` (an
// environment variable), and the automatic token — `agent.token` in the private runtime
// directory, created once with 256 random bits and reused — which background mode uses when
// neither is given and foreground mode with `[server] token = "auto"`. None: the server is open.
//
// A token is non-empty printable ASCII without whitespace (0x21–0x7E): anything else could
// never be sent in an `Authorization: Bearer` header as written, so wo refuses to start
// rather than serve with a token no client can present.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { WoConfig } from "../../model/app.js";
import { checkPrivateFile, createPrivateFile, PrivateFileError, readPrivateFile } from "./private-files.js";

export const agentTokenFileName = "agent.token";

export class TokenError extends Error {}

export interface AgentToken {
  token: string;
  /** The file it came from (explicit or automatic); undefined for an environment variable. */
  file?: string;
}

export interface TokenSources {
  config: Pick<WoConfig, "tokenEnv" | "token">;
  env: NodeJS.ProcessEnv;
  tokenFile?: string;
  /** The runtime directory when the automatic token applies (background mode, or token = "auto"). */
  automaticIn?: string;
}

export function agentTokenPath(runtimeDir: string): string {
  return join(runtimeDir, agentTokenFileName);
}

/** The token the server requires, or undefined for an open server. Throws TokenError. */
export function resolveAgentToken(sources: TokenSources): AgentToken | undefined {
  if (sources.tokenFile !== undefined) return { token: readTokenFile(sources.tokenFile), file: sources.tokenFile };
  const { tokenEnv } = sources.config;
  if (tokenEnv) {
    const value = sources.env[tokenEnv];
    if (!value)
      throw new TokenError(
        `wo.toml sets token_env = "${tokenEnv}" but that environment variable is empty; set it to the bearer token clients must send.`,
      );
    return { token: checkToken(value, `the environment variable ${tokenEnv}`) };
  }
  if (sources.automaticIn !== undefined) return automaticToken(sources.automaticIn);
  return undefined;
}

/** Throws unless `token` is usable as a bearer token; `source` names where it came from. */
export function checkToken(token: string, source: string): string {
  if (token === "")
    throw new TokenError(`The token in ${source} is empty; a token must be at least one printable ASCII character.`);
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) {
      const what =
        code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d
          ? "whitespace"
          : code > 0x7e
            ? "a non-ASCII character"
            : "a control character";
      throw new TokenError(
        `The token in ${source} contains ${what} at position ${i + 1}; a token must be printable ASCII (0x21–0x7E) without whitespace.`,
      );
    }
  }
  return token;
}

/** An explicit token file: owner-private, regular, one trailing LF or CRLF allowed. */
function readTokenFile(file: string): string {
  const text = readChecked(file);
  if (text === undefined) throw new TokenError(`The token file ${file} does not exist.`);
  return checkToken(text.replace(/\r?\n$/, ""), file);
}

/** agent.token in the runtime directory: reused when present, else created whole (0600). */
function automaticToken(runtimeDir: string): AgentToken {
  const file = agentTokenPath(runtimeDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = readChecked(file);
    if (existing !== undefined) return { token: checkToken(existing.replace(/\r?\n$/, ""), file), file };
    // Another start may create it between our read and this: then read theirs.
    if (createPrivateFile(file, `${randomBytes(32).toString("hex")}\n`)) continue;
  }
  const token = readChecked(file);
  if (token === undefined) throw new TokenError(`Could not create ${file}.`);
  return { token: checkToken(token.replace(/\r?\n$/, ""), file), file };
}

function readChecked(file: string): string | undefined {
  try {
    if (checkPrivateFile(file) === "missing") return undefined;
    return readPrivateFile(file);
  } catch (err) {
    if (err instanceof PrivateFileError) throw new TokenError(err.message);
    throw err;
  }
}
