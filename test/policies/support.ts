// The policy suites' ways of talking to a running `wo run` as one principal: REST with or
// without a bearer token, the official MCP SDK clients of both eras, named tokens made with
// `wo token add`, and the database dumped to prove a refusal changed nothing.

import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { runWoCommand } from "../support/wo-process.js";

/** A bearer token, or none (anonymous). */
export type Credential = string | undefined;

const authorization = (token: Credential): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

export interface Answer {
  status: number;
  body: any;
}

/** One REST request as `token`; the parsed answer and its status. */
export async function rest(
  base: string,
  token: Credential,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...authorization(token),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** `wo token add <args>`: the new token, the last line of its output. */
export async function addToken(args: string[]): Promise<string> {
  const r = await runWoCommand(["token", "add", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trimEnd().split("\n").at(-1)!;
}

/** A connected MCP client of the 2025 era (SDK v1) as `token`. */
export async function clientV1(base: string, token: Credential): Promise<ClientV1> {
  const client = new ClientV1({ name: "policies-v1", version: "1" });
  await client.connect(new TransportV1(new URL(`${base}/mcp`), { requestInit: { headers: authorization(token) } }));
  return client;
}

/** A connected MCP client of the SDK v2 (it negotiates the newest era the server speaks) as `token`. */
export async function clientV2(base: string, token: Credential): Promise<ClientV2> {
  const client = new ClientV2({ name: "policies-v2", version: "1" }, {
    capabilities: {},
    versionNegotiation: { mode: "auto" },
  } as never);
  await client.connect(new TransportV2(new URL(`${base}/mcp`), { requestInit: { headers: authorization(token) } }));
  return client;
}

/** The tool names a client is shown, sorted. */
export async function toolNames(client: { listTools(): Promise<{ tools: { name: string }[] }> }): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/** What a tools/call of a tool that does not exist answers (the SDKs throw the JSON-RPC error). */
export async function callError(client: { callTool(p: object): Promise<unknown> }, name: string): Promise<string> {
  try {
    await client.callTool({ name, arguments: {} });
  } catch (err) {
    return (err as Error).message.replaceAll(name, "<tool>");
  }
  throw new Error(`${name} was answered`);
}

/** The text of an isError tool result. */
export function errorText(result: unknown): string {
  const r = result as { isError?: boolean; content: { type: string; text: string }[] };
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return r.content[0]!.text;
}

/** The owner's token of pressApp (`[server] token_env`). */
export const ownerToken = "policy-writes-owner-token-0123456789abcdef";

/**
 * An app whose posts Editors write only as themselves and delete only as drafts; anyone reads
 * what is published. Tag has no policy lines: open to every identified caller.
 */
export const pressApp = {
  "wo.toml": 'name = "press"\n\n[server]\ntoken_env = "WO_POLICY_WRITES_OWNER"\n',
  "app.wo": `class Post {
  title: Text
  author: Int
  published: Bool = false
  tags: multi Tag via Tagging

  policy read anyone when published == true
  policy read for role editor when author == $session.user
  policy write for role editor when author == $session.user
  policy delete for role editor when published == false

  fn publish() -> Post in txn {
    update self set published = true
    return self
  }

  service rest "/api/posts" expose list, get, create, update, delete, publish
  service mcp "/mcp" expose list, get, create, update, delete, publish
}

type Tag {
  label: Text

  service rest "/api/tags" expose list, get, create
}

type Tagging link Post -> Tag {
}
`,
};
export const ownerEnv = { WO_POLICY_WRITES_OWNER: ownerToken };
