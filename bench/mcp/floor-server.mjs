// The floor under bench/mcp's ratios: a bare node:http server that does no work but the HTTP
// itself. GET answers the REST row body; POST reads and parses the body, then answers the
// MCP tools/call result for that row, so the two differ only in what the protocols put on
// the wire. Its POST/GET ratio is what HTTP alone costs the two protocols on node:http.
//
// usage: node bench/mcp/floor-server.mjs   (prints "listening http://127.0.0.1:PORT")
import { createServer } from "node:http";
import { readBody } from "../../dist/runtime/body-bytes.js";

const row = JSON.stringify({ id: 1, message: "hello bench", from: null, created_at: "2026-11-29T00:00:00.000Z" });
const result = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${JSON.stringify(row)}}],"structuredContent":${row},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"0.1.0"}}}}`;
const headers = (body) => ({ "content-type": "application/json", "content-length": Buffer.byteLength(body) });

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(200, headers(row));
    res.end(row);
    return;
  }
  // The body as wo reads it (runtime/body-bytes.ts).
  readBody(req, undefined, Infinity).then((bytes) => {
    JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
    res.writeHead(200, headers(result));
    res.end(result);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
