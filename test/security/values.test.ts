// spec/security.md, "Input values": values that would be stored corrupted are refused, on REST
// and MCP alike, and nothing is written. Against a real `wo run` with raw HTTP (node:http), so
// bodies carry exact bytes: integers as literal text, invalid UTF-8, `\ud800` escapes.

import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { dumpDb, removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { startWoRun, type WoRun } from "../mcp/support/wo-run.js";

interface Reply {
  status: number;
  text: string;
  json: any;
}

/** One HTTP request with exactly these body bytes (a string is sent as its UTF-8 bytes). */
function raw(
  base: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      {
        method,
        headers: {
          ...(bytes ? { "content-type": "application/json", "content-length": String(bytes.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on("error", reject);
    req.end(bytes);
  });
}

let rpcId = 0;
const meta2026 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;

/** A stateless (2026-07-28) MCP tools/call whose `arguments` are the given JSON text, verbatim. */
function mcpCall(base: string, tool: string, argumentsJson: string): Promise<Reply> {
  const body = `{"jsonrpc":"2.0","id":${++rpcId},"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsJson},"_meta":${meta2026}}}`;
  return raw(base, "POST", "/mcp", body, {
    accept: "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": tool,
  });
}

/** The isError text of an MCP tool result, or a failure naming what came back instead. */
function toolError(reply: Reply): string {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.json?.result?.isError, reply.text).toBe(true);
  return reply.json.result.content[0].text as string;
}

describe("samples/ledger: integers beyond ±(2^53 − 1) never reach the store", () => {
  let run: WoRun;
  beforeAll(async () => {
    run = await startWoRun("ledger");
    for (const owner of ["a", "b"])
      expect((await raw(run.base, "POST", "/api/accounts", JSON.stringify({ owner }))).status).toBe(201);
  });
  afterAll(() => run.stop());

  const accounts = () => dumpDb(run.appDir);

  it("REST: huge amounts, ids and filters are 400s naming the field; balances stay 0", async () => {
    const before = accounts();
    for (const [path, body, pointer] of [
      ["/api/accounts/1/deposit", `{"amount":1e16}`, "/amount"],
      ["/api/accounts/1/deposit", `{"amount":9007199254740993}`, "/amount"],
      ["/api/accounts/1/deposit", `{"amount":1e300}`, "/amount"],
      ["/api/accounts/1/transfer", `{"to":2,"amount":-1e300}`, "/amount"],
      ["/api/accounts/1/transfer", `{"to":9007199254740993,"amount":1}`, "/to"],
    ] as const) {
      const r = await raw(run.base, "POST", path, body);
      expect(r.status, `${path} ${body}: ${r.text}`).toBe(400);
      expect(r.json.errors).toEqual([
        { path: pointer, message: expect.stringMatching(/^must be at (most|least) -?9007199254740991/) },
      ]);
    }
    for (const query of ["?balance=9999999999999999", "?balance=1e300", "?id=9007199254740993"]) {
      const r = await raw(run.base, "GET", `/api/accounts${query}`);
      expect(r.status, `${query}: ${r.text}`).toBe(400);
    }
    expect((await raw(run.base, "POST", "/api/accounts/9007199254740993/deposit", `{"amount":1}`)).status).toBe(400);
    expect(accounts()).toEqual(before);
    expect(before.entries).toEqual([]);
  });

  it("MCP: the same calls are isError tool results naming the field; nothing is written", async () => {
    const before = accounts();
    expect(toolError(await mcpCall(run.base, "account_deposit", `{"id":1,"amount":1e16}`))).toMatch(
      /^Invalid input: [^\n]*\n- \/amount: must be at most 9007199254740991/,
    );
    expect(
      toolError(await mcpCall(run.base, "account_transfer", `{"id":1,"to":2,"amount":9007199254740993}`)),
    ).toContain("- /amount: must be at most");
    expect(toolError(await mcpCall(run.base, "account_get", `{"id":9007199254740993}`))).toContain(
      "- /id: must be at most",
    );
    expect(toolError(await mcpCall(run.base, "account_list", `{"balance":-1e300}`))).toContain(
      "- /balance: must be at least -9007199254740991",
    );

    // A row id past the bound names no row: "not found", not an internal error.
    const uri = "wo://account/9999999999999999";
    const read = await raw(
      run.base,
      "POST",
      "/mcp",
      `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"${uri}","_meta":${meta2026}}}`,
      {
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "resources/read",
        "mcp-name": uri,
      },
    );
    expect(read.json.error).toMatchObject({ code: -32602, data: { uri } });

    // An agent on the official SDK sees the bounds in the tool schema and the same refusal.
    const client = new Client({ name: "wo-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(run.url)));
    try {
      const { tools } = await client.listTools();
      const deposit = tools.find((t) => t.name === "account_deposit")!;
      expect(deposit.inputSchema.properties!.amount).toMatchObject({
        type: "integer",
        minimum: -9007199254740991,
        maximum: 9007199254740991,
      });
      const result = await client.callTool({ name: "account_deposit", arguments: { id: 1, amount: 1e16 } });
      expect(result.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(accounts()).toEqual(before);
  });

  it("balance is read-only: create refuses it (REST and MCP), deposit still moves money", async () => {
    const before = accounts();
    const rest = await raw(run.base, "POST", "/api/accounts", `{"owner":"mallory","balance":1000000}`);
    expect(rest.status).toBe(400);
    expect(rest.json.errors).toEqual([{ path: "/balance", message: expect.stringContaining("is read-only") }]);
    expect(toolError(await mcpCall(run.base, "account_create", `{"owner":"mallory","balance":1000000}`))).toContain(
      "- /balance: is read-only",
    );
    expect(accounts()).toEqual(before);

    const tools = (
      await raw(
        run.base,
        "POST",
        "/mcp",
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${meta2026}}}`,
        {
          accept: "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list",
        },
      )
    ).json.result.tools as { name: string; inputSchema: { properties: object } }[];
    expect(Object.keys(tools.find((t) => t.name === "account_create")!.inputSchema.properties)).toEqual(["owner"]);

    const deposited = await raw(run.base, "POST", "/api/accounts/1/deposit", `{"amount":500}`);
    expect(deposited.status).toBe(200);
    expect(deposited.json.balance).toBe(500);
  });
});

const membersApp = {
  "wo.toml": 'name = "members"\n',
  "member.wo": `type Member {
  email: Email @unique
  handle: Text @immutable
  name: Text
  score: Int = 0 @readonly
  badges: [ref Badge]?
  service rest "/api/members" expose list, get, create, update
  service mcp "/mcp" expose list, get, create, update
}

type Badge {
  name: Text
  service rest "/api/badges" expose list, create
}
`,
};

describe("text, read-only fields, unique emails and error lists (a members app)", () => {
  let appDir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    appDir = writeApp("members", membersApp);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
    const first = await raw(wo.url, "POST", "/api/members", `{"email":"ada@example.com","handle":"ada","name":"Ada"}`);
    expect(first.status, first.text).toBe(201);
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  const members = () => dumpDb(appDir).member;

  it("invalid UTF-8 bytes are refused by both surfaces: REST 400, MCP parse error", async () => {
    const before = members();
    const bad = Buffer.concat([
      Buffer.from(`{"email":"b@example.com","handle":"b","name":"B`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`"}`),
    ]);
    const rest = await raw(wo.url, "POST", "/api/members", bad);
    expect(rest.status).toBe(400);
    expect(rest.json.detail).toContain("not valid UTF-8");

    const rpc = Buffer.concat([
      Buffer.from(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"member_create","_meta":${meta2026},"arguments":{"email":"b@example.com","handle":"b","name":"B`,
      ),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(`"}}}`),
    ]);
    const mcp = await raw(wo.url, "POST", "/mcp", rpc, {
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "member_create",
    });
    expect(mcp.status).toBe(400);
    expect(mcp.json.error).toMatchObject({ code: -32700, message: expect.stringContaining("UTF-8") });
    expect(members()).toEqual(before);
  });

  it("a lone surrogate escape is refused naming the field, on create, update and filters", async () => {
    const before = members();
    const rest = await raw(wo.url, "POST", "/api/members", `{"email":"c@example.com","handle":"c","name":"x\\ud800"}`);
    expect(rest.status).toBe(400);
    expect(rest.json.errors).toEqual([{ path: "/name", message: expect.stringContaining("lone UTF-16 surrogate") }]);
    expect((await raw(wo.url, "PATCH", "/api/members/1", `{"name":"\\udfff"}`)).json.errors[0].path).toBe("/name");
    expect(
      toolError(await mcpCall(wo.url, "member_create", `{"email":"c@example.com","handle":"c","name":"\\ud800"}`)),
    ).toContain("- /name: contains a lone UTF-16 surrogate");
    expect(toolError(await mcpCall(wo.url, "member_list", `{"name":"\\ud800"}`))).toContain("- /name:");
    // In a query string the surrogate (or any invalid UTF-8) can only come percent-encoded.
    for (const query of ["?name=%ED%A0%80", "?name=%FF", "?%FF=1"]) {
      const r = await raw(wo.url, "GET", `/api/members${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json.detail).toContain("not valid UTF-8");
    }
    expect(members()).toEqual(before);
  });

  it("@immutable is set at create and refused by update; @readonly is refused by both", async () => {
    const before = members();
    const handle = await raw(wo.url, "PATCH", "/api/members/1", `{"handle":"eve"}`);
    expect(handle.status).toBe(400);
    expect(handle.json.errors).toEqual([
      { path: "/handle", message: "is immutable: it is set when the Member is created and never changes" },
    ]);
    const score = await raw(wo.url, "PATCH", "/api/members/1", `{"score":100}`);
    expect(score.json.errors).toEqual([{ path: "/score", message: expect.stringContaining("is read-only") }]);
    const created = await raw(
      wo.url,
      "POST",
      "/api/members",
      `{"email":"d@example.com","handle":"d","name":"D","score":100}`,
    );
    expect(created.json.errors).toEqual([{ path: "/score", message: expect.stringContaining("is read-only") }]);
    expect(toolError(await mcpCall(wo.url, "member_update", `{"id":1,"handle":"eve"}`))).toContain(
      "- /handle: is immutable",
    );
    expect(members()).toEqual(before);
    // What may change still does, and the row shows every field.
    const renamed = await raw(wo.url, "PATCH", "/api/members/1", `{"name":"Ada L."}`);
    expect(renamed.json).toEqual({
      id: 1,
      email: "ada@example.com",
      handle: "ada",
      name: "Ada L.",
      score: 0,
      badges: null,
    });
  });

  it("a unique Email ignores case: Ada@Example.COM is taken by ada@example.com", async () => {
    const before = members();
    const r = await raw(wo.url, "POST", "/api/members", `{"email":"Ada@Example.COM","handle":"ada2","name":"Ada"}`);
    expect(r.status).toBe(409);
    expect(r.json.errors).toEqual([{ path: "/email", message: "is already taken by another row" }]);
    expect(
      toolError(await mcpCall(wo.url, "member_create", `{"email":"ADA@EXAMPLE.COM","handle":"ada3","name":"Ada"}`)),
    ).toMatch(/^Conflict:/);
    expect(members()).toEqual(before);
    // Stored as written; only the comparison ignores case.
    const other = await raw(
      wo.url,
      "POST",
      "/api/members",
      `{"email":"Grace@Example.com","handle":"grace","name":"Grace"}`,
    );
    expect(other.json.email).toBe("Grace@Example.com");
  });

  it("an error lists at most 100 problems and counts the rest (a 1 MB body of unknown keys)", async () => {
    const before = members();
    let json = `{"email":"e@example.com","handle":"e","name":"E"`;
    let keys = 0;
    while (json.length < 1_000_000) json += `,"k${keys++}":1`;
    json += "}";
    const rest = await raw(wo.url, "POST", "/api/members", json);
    expect(rest.status).toBe(400);
    expect(rest.json.errors).toHaveLength(100);
    expect(rest.json.errors[0]).toEqual({ path: "/k0", message: "is not an accepted field; remove it" });
    expect(rest.json.truncated).toBe(keys - 100);
    expect(rest.text.length).toBeLessThan(20_000);

    const mcp = await mcpCall(wo.url, "member_create", json);
    const lines = toolError(mcp).split("\n");
    expect(lines).toHaveLength(1 + 100 + 1);
    expect(lines.at(-1)).toBe(`- … and ${keys - 100} more not listed`);
    expect(mcp.text.length).toBeLessThan(20_000);

    // Refs that name no row are capped the same way (422).
    const ids = Array.from({ length: 150 }, (_, i) => 1000 + i);
    const refs = await raw(wo.url, "PATCH", "/api/members/1", JSON.stringify({ badges: ids }));
    expect(refs.status).toBe(422);
    expect(refs.json.errors).toHaveLength(100);
    expect(refs.json.errors[0]).toEqual({ path: "/badges/0", message: "no Badge with id 1000 exists" });
    expect(refs.json.truncated).toBe(50);
    expect(refs.json.detail).toContain("; and 50 more)");

    // Fewer unknown keys than that still get ajv's full report, capped the same way.
    const mixed = await raw(wo.url, "POST", "/api/members", `{"email":"nope","handle":1,"name":2,"x":3}`);
    expect(mixed.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/email", "/handle", "/name", "/x"]);
    expect(mixed.json.truncated).toBeUndefined();
    expect(members()).toEqual(before);
  });
});
