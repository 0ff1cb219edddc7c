// Baseline for bench/mcp/run.mjs: the same app's greeting_get/greeting_create served by the
// official MCP TypeScript SDK v1 (McpServer + StreamableHTTPServerTransport) over the same
// SQLite file and the same generated operations as `wo run`. Only the protocol layer differs.
// Two configurations, both with JSON responses (enableJsonResponse): POST /mcp is stateless (a
// fresh server + transport per request, as the SDK documents), POST /mcp-session keeps one
// server + transport per session (no per-request construction) — the faster of the two is
// the baseline the bench compares against.
//
// usage: node bench/mcp/sdk-baseline.mjs <appDir>   (prints "listening <url>")
import http from "node:http";
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { loadBuild } from "../../dist/runtime/load-build.js";
import { openSqliteStore } from "../../dist/runtime/store/sqlite.js";
import { createOperationRuntime } from "../../dist/runtime/operations/runtime.js";
import { bindOperations } from "../../dist/runtime/operations/bind.js";
import { createConcurrencyLimit } from "../../dist/runtime/operations/limit.js";
import { enforcePolicies } from "../../dist/runtime/operations/policy.js";

const appDir = resolve(process.argv[2]);
const build = await loadBuild(join(appDir, ".wo/build"));
const { store } = await openSqliteStore({
  file: join(appDir, build.catalog.config.dataDir, "app.sqlite"),
  catalog: build.catalog,
  lock: false,
});
const rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log: () => {} });
// The operations as wo binds them (validation, policy, a slot), without wo's HTTP and MCP layers.
const ops = bindOperations({
  app: build.catalog,
  rt,
  generated: build.operations,
  limiter: createConcurrencyLimit(build.catalog.config.concurrency),
  policy: enforcePolicies,
  log: () => {},
});

const toResult = async (name, args) => {
  try {
    const value = await ops[name](args, {});
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (err) {
    return { content: [{ type: "text", text: String(err.message) }], isError: true };
  }
};

function createServer() {
  const server = new McpServer({ name: "sdk-baseline", version: "1.0.0" });
  server.registerTool(
    "greeting_get",
    { description: "Get a greeting", inputSchema: { id: z.number().int() } },
    (args) => toResult("greeting_get", args),
  );
  server.registerTool(
    "greeting_create",
    { description: "Create a greeting", inputSchema: { message: z.string(), from: z.string().optional() } },
    (args) => toResult("greeting_create", args),
  );
  return server;
}

const sessions = new Map();
const httpServer = http.createServer(async (req, res) => {
  if (req.method !== "POST" || (req.url !== "/mcp" && req.url !== "/mcp-session")) {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  if (req.url === "/mcp-session") {
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await createServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
    return;
  }
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
});
httpServer.listen(0, "127.0.0.1", () => console.log(`listening http://127.0.0.1:${httpServer.address().port}/mcp`));
process.on("SIGTERM", () => {
  httpServer.close();
  store.close().finally(() => process.exit(0));
});
