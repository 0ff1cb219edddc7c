// The OTLP/HTTP sink of bench/telemetry/run.mjs, as a process of its own: it reads each JSON
// batch the traced servers' export workers post, counts its spans and answers as a collector
// does. Served in the bench's own process it took CPU from the load generator in the middle of
// the rounds it measured; here it runs where the servers run (bench/node-process.mjs), which
// both servers of a pair share. Prints its URL; on SIGTERM prints the spans it received and
// the CPU it used, then exits.
import { createServer } from "node:http";

let spans = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans.length;
    } catch {
      // Not JSON: counted as nothing.
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
server.listen(0, "127.0.0.1", () => console.log(`OTLP sink at http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  console.log(`spans received ${spans}, CPU ${((userCPUTime + systemCPUTime) / 1000).toFixed(0)} ms`);
  process.exit(0);
});
