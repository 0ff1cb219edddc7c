// The official clients against a real `wo run` of every sample: SDK v1 (2025-11-25, with a
// session) and the v2 client with versionNegotiation auto (2026-07-28). connect → tools/list
// (exactly the build's tools) → <t>_create → <t>_list sees the row → resources/read equals the
// REST body.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { repoRoot } from "../support/wo-process.js";
import { sampleArgs, startWoRun, type WoRun } from "./support/wo-run.js";

// Starting `wo run` builds the app first: allow for a busy two-core machine.
vi.setConfig({ hookTimeout: 120_000 });

const samples = readdirSync(join(repoRoot, "samples"))
  .filter((s) => !s.startsWith("."))
  .sort();

interface Peer {
  listTools(): Promise<{ tools: { name: string; inputSchema: any }[] }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<any>;
  readResource(p: { uri: string }): Promise<{ contents: any[] }>;
}

async function exercise(peer: Peer, run: WoRun) {
  const { tools } = await peer.listTools();
  expect(tools.map((t) => t.name)).toEqual(run.manifest.tools.map((t) => t.name).sort());
  // The first type whose create takes plain values (no dangling refs) is the one we write.
  for (const create of tools.filter((t) => t.name.endsWith("_create"))) {
    const t = create.name.slice(0, -"_create".length);
    const created = await peer.callTool({ name: create.name, arguments: sampleArgs(create.inputSchema) });
    if (created.isError) continue;
    const row = created.structuredContent as { id: number };
    expect(JSON.parse(created.content[0].text)).toEqual(row);
    if (tools.some((x) => x.name === `${t}_list`)) {
      const listed = await peer.callTool({ name: `${t}_list`, arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent.items).toContainEqual(row);
    }
    const route = run.manifest.routes.find((r) => r.op === `${t}_get` && r.method === "GET");
    const read = await peer.readResource({ uri: `wo://${t}/${row.id}` });
    if (route) {
      const rest = await (await fetch(run.base + route.path.replace(":id", String(row.id)))).text();
      expect(read.contents[0].text).toBe(rest);
    } else {
      expect(JSON.parse(read.contents[0].text)).toEqual(row);
    }
    return t;
  }
  throw new Error("no create tool accepted sample arguments");
}

describe.each(samples)("wo run samples/%s", (sample) => {
  let run: WoRun;
  beforeAll(async () => {
    run = await startWoRun(sample);
  });
  afterAll(async () => {
    await run?.stop();
  });

  it("SDK v1 client (2025-11-25, session): tools, create, list, read", async () => {
    const client = new ClientV1({ name: "wo-test", version: "1" });
    const transport = new TransportV1(new URL(run.url));
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    // Sentences assembled from wo.toml's description and doc comments end in one period.
    const instructions = client.getInstructions() ?? "";
    if (sample === "blog") expect(instructions).toContain("posts carry tags.\n");
    expect(instructions).not.toMatch(/\.\./);
    await exercise(client as unknown as Peer, run);
    await transport.terminateSession();
    await client.close();
  });

  it("v2 client, versionNegotiation auto (2026-07-28): tools, create, list, read", async () => {
    const client = new ClientV2({ name: "wo-test", version: "1" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
    } as never);
    await client.connect(new TransportV2(new URL(run.url)));
    expect((client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion()).toBe(
      "2026-07-28",
    );
    await exercise(client as unknown as Peer, run);
    await client.close();
  });
});
