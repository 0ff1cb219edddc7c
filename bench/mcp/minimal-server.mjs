// A lower bound for bench/mcp/run.mjs: the least a server can do to answer the bench's two
// reads over wo's own operations and SQLite file, on node:http with no framework and no
// protocol checks. GET /api/greetings/:id answers JSON.stringify of the row; POST /mcp reads
// the body as wo does, JSON.parse-s it, calls greeting_get and writes the 2026-07-28
// tools/call answer from a template. Its MCP/REST ratio is what the two protocols themselves
// cost on node:http (body, headers, the row written twice); wo's MCP / this MCP is what wo's
// checks and plumbing add.
//
// usage: node bench/mcp/minimal-server.mjs <appDir>   (prints "listening <url>")
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { createApp } from "../../dist/runtime/app.js";
import { readBody } from "../../dist/runtime/body-bytes.js";
import { loadBuild } from "../../dist/runtime/load-build.js";
import { openSqliteStore } from "../../dist/runtime/store/sqlite.js";

const appDir = resolve(process.argv[2]);
const build = await loadBuild(join(appDir, ".wo/build"));
const { store } = await openSqliteStore({
  file: join(appDir, build.catalog.config.dataDir, "app.sqlite"),
  catalog: build.catalog,
  lock: false,
});
// createApp's operations: the same concurrency-limited handlers wo's REST and MCP call.
const get = (await createApp({ build, store, log: () => {} })).operations.greeting_get;
const meta = JSON.stringify({
  "io.modelcontextprotocol/serverInfo": { name: build.catalog.app.name, version: build.catalog.app.version },
});
const NONE = {};

const answer = (res, body) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

const server = createServer((req, res) => {
  if (req.method === "GET") {
    const id = Number(req.url.slice(req.url.lastIndexOf("/") + 1));
    get({ id }, NONE).then((row) => answer(res, JSON.stringify(row)));
    return;
  }
  // The body as wo reads it (runtime/body-bytes.ts), then nothing but the call.
  readBody(req, undefined, Infinity).then((bytes) => {
    const msg = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
    return get(msg.params.arguments, NONE).then((row) => {
      const text = JSON.stringify(row);
      answer(
        res,
        `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text},"resultType":"complete","_meta":${meta}}}`,
      );
    });
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
