// MCP throughput bench: in one run, on one machine, the same app (samples/hello, copies in a
// temp folder) answers
//   - GET /api/greetings/:id and POST /api/greetings (wo REST),
//   - tools/call greeting_get / greeting_create over wo's /mcp (2026-07-28 stateless, and
//     2025-11-25 with a session),
//   - the same two tools served by the official SDK v1, stateless and with a session, JSON
//     responses (bench/mcp/sdk-baseline.mjs), over the same SQLite file and operations; the
//     faster SDK configuration is the baseline;
//   - the same GET and tools/call get from a minimal server over the same operations, with no
//     framework and no protocol checks (bench/mcp/minimal-server.mjs): the two protocols' own
//     cost on node:http, and what wo adds to it;
//   - and a bare node:http server (bench/mcp/floor-server.mjs) answering the same GET and the
//     same POST with constant bodies: what HTTP alone costs each.
//
// Part 1 loads each case alone and prints req/s and p50/p99 latency. Part 2 measures the
// ratios in pairs loaded at the same time on servers that share a CPU (bench/paired-load.mjs):
// MCP get >= 4x the faster SDK configuration, and MCP get >= 0.85x REST get, the latter on two
// identical wo processes that each take each role in turn. Measured one after the other, the
// ratios drifted by ±20% per round (more for the SDK), and those near 1 were flattered by
// the load generator's own ceiling.
//
// usage: npm run bench:mcp [-- --duration 2 --connections 10 --rounds 3 --pairs 8]   (needs `npm run build`)
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { pinCpus, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatio, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg("duration", 2);
const connections = arg("connections", 10);
const roundCount = arg("rounds", 3);
const pairRounds = arg("pairs", 8);

const V = "2026-07-28";
const envelope = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const call = (name, args, meta) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });
const modern = (name) => ({ ...json, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": name });
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});

async function bench(title, opts) {
  const r = await autocannon({ connections, duration, pipelining: 1, ...opts });
  if (r.non2xx > 0 || r.errors > 0 || r["2xx"] === 0)
    throw new Error(`${title}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { title, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/** One request to check a case answers what we think before measuring it. */
async function probe(opts) {
  const res = await fetch(opts.url, { method: opts.method ?? "GET", headers: opts.headers, body: opts.body });
  const text = await res.text();
  if (!res.ok || text.includes('"isError":true') || text.includes('"error"'))
    throw new Error(`probe ${opts.url} failed: ${res.status} ${text.slice(0, 300)}`);
}

const placement = pinCpus();
const dir = mkdtempSync(join(tmpdir(), "wo-bench-mcp-"));
const servers = [];
const start = async (script, args, pattern) => {
  const s = await startNode(script, args, pattern);
  servers.push(s);
  return s;
};

/** A `wo run` of its own copy of samples/hello, with one row, a 2025 session and every case's request. */
async function startWo(name) {
  const app = join(dir, name);
  cpSync(join(root, "samples/hello"), app, { recursive: true });
  const s = await start("bin/wo.js", ["run", app, "--quiet", "--listen", "127.0.0.1:0"], /(http:\/\/127\.0\.0\.1:\d+)/);
  const created = await (
    await fetch(`${s.url}/api/greetings`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ message: "hello bench" }),
    })
  ).json();
  const init = await fetch(`${s.url}/mcp`, { method: "POST", headers: json, body: initialize });
  const sid = init.headers.get("mcp-session-id");
  await init.text();
  const id = created.id;
  return {
    app,
    id,
    restGet: { url: `${s.url}/api/greetings/${id}` },
    mcpGet: {
      url: `${s.url}/mcp`,
      method: "POST",
      headers: modern("greeting_get"),
      body: call("greeting_get", { id }, envelope),
    },
    legacyGet: {
      url: `${s.url}/mcp`,
      method: "POST",
      headers: { ...json, "mcp-protocol-version": "2025-11-25", ...(sid ? { "mcp-session-id": sid } : {}) },
      body: call("greeting_get", { id }),
    },
    restCreate: {
      url: `${s.url}/api/greetings`,
      method: "POST",
      headers: json,
      body: JSON.stringify({ message: "bench" }),
    },
    mcpCreate: {
      url: `${s.url}/mcp`,
      method: "POST",
      headers: modern("greeting_create"),
      body: call("greeting_create", { message: "bench" }, envelope),
    },
  };
}

/** The reference servers' GET and tools/call get for the row `id`. */
const referenceCases = (url, id) => ({
  get: { url: `${url}/api/greetings/${id}` },
  mcp: {
    url: `${url}/mcp`,
    method: "POST",
    headers: modern("greeting_get"),
    body: call("greeting_get", { id }, envelope),
  },
});

try {
  // wo0 serves part 1 (and shares its SQLite file with the SDK baseline); wo1 and wo2 serve
  // part 2 only, so the two processes that swap roles there have the same history.
  const wo0 = await startWo("hello-0");
  const wo1 = await startWo("hello-1");
  const wo2 = await startWo("hello-2");
  const sdk = await start("bench/mcp/sdk-baseline.mjs", [wo0.app], /listening (\S+)/);
  const sdkInit = await fetch(`${sdk.url}-session`, { method: "POST", headers: json, body: initialize });
  const sdkSession = {
    ...json,
    "mcp-protocol-version": "2025-11-25",
    "mcp-session-id": sdkInit.headers.get("mcp-session-id"),
  };
  await sdkInit.text();
  const sdkStateless = { ...json, "mcp-protocol-version": "2025-11-25" };
  const minimal1 = referenceCases(
    (await start("bench/mcp/minimal-server.mjs", [wo1.app], /listening (\S+)/)).url,
    wo1.id,
  );
  const minimal2 = referenceCases(
    (await start("bench/mcp/minimal-server.mjs", [wo2.app], /listening (\S+)/)).url,
    wo2.id,
  );
  const floor1 = referenceCases((await start("bench/mcp/floor-server.mjs", [], /listening (\S+)/)).url, wo1.id);
  const floor2 = referenceCases((await start("bench/mcp/floor-server.mjs", [], /listening (\S+)/)).url, wo1.id);

  // --- Part 1: each case alone --------------------------------------------------------
  const id = wo0.id;
  const cases = [
    ["wo REST  GET /api/greetings/:id", wo0.restGet],
    ["wo MCP   tools/call get (2026-07-28)", wo0.mcpGet],
    ["wo MCP   tools/call get (2025, session)", wo0.legacyGet],
    [
      "SDK v1   tools/call get (stateless JSON)",
      { url: sdk.url, method: "POST", headers: sdkStateless, body: call("greeting_get", { id }) },
    ],
    [
      "SDK v1   tools/call get (session, JSON)",
      { url: `${sdk.url}-session`, method: "POST", headers: sdkSession, body: call("greeting_get", { id }) },
    ],
    ["wo REST  POST /api/greetings", wo0.restCreate],
    ["wo MCP   tools/call create (2026-07-28)", wo0.mcpCreate],
    [
      "SDK v1   tools/call create (stateless JSON)",
      { url: sdk.url, method: "POST", headers: sdkStateless, body: call("greeting_create", { message: "bench" }) },
    ],
    [
      "SDK v1   tools/call create (session, JSON)",
      {
        url: `${sdk.url}-session`,
        method: "POST",
        headers: sdkSession,
        body: call("greeting_create", { message: "bench" }),
      },
    ],
  ];
  const pairedOnly = [wo1, wo2].flatMap((w) => [w.restGet, w.mcpGet, w.legacyGet]);
  pairedOnly.push(
    minimal1.get,
    minimal1.mcp,
    minimal2.get,
    minimal2.mcp,
    floor1.get,
    floor1.mcp,
    floor2.get,
    floor2.mcp,
  );
  for (const opts of [...cases.map(([, o]) => o), ...pairedOnly]) await probe(opts);
  // Warm every path first (JIT, caches), then measure in alternating rounds.
  for (const [title, opts] of cases) await bench(title, opts);
  for (const opts of pairedOnly) await bench("warm-up", { ...opts, duration: 1 });
  const rounds = cases.map(() => []);
  for (let round = 0; round < roundCount; round++) {
    for (let i = 0; i < cases.length; i++) rounds[i].push(await bench(...cases[i]));
  }
  const results = rounds.map((rs) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]);
  console.log(
    `wo MCP bench: samples/hello, ${connections} connections, ${duration}s per case, Node ${process.version}, ${placement}\n`,
  );
  console.log(
    `Each case alone (median of ${roundCount} rounds after warm-up; the SDK configuration that is faster here is the baseline below):\n`,
  );
  console.log("case".padEnd(50) + "req/s".padStart(10) + "p50 ms".padStart(9) + "p99 ms".padStart(9));
  for (const r of results)
    console.log(
      r.title.padEnd(50) + r.rps.toFixed(0).padStart(10) + String(r.p50).padStart(9) + String(r.p99).padStart(9),
    );

  const line = (label, each, target, v = median(each)) => {
    const verdict = target ? `   target >= ${target}x ${v >= target ? "ok" : "MISSED"}` : "";
    console.log(
      `${label.padEnd(50)}${v.toFixed(2).padStart(10)}x${verdict}   (rounds: ${each.map((x) => x.toFixed(2)).join(", ")})`,
    );
  };
  /** The SDK configuration (stateless or session) that was faster alone: the baseline. */
  const fasterSdk = (prefix) => {
    const sdkCases = results.map((r, i) => [r, cases[i][1]]).filter(([r]) => r.title.startsWith(prefix));
    return sdkCases.sort(([a], [b]) => b.rps - a.rps)[0];
  };
  const [sdkGet, sdkGetOpts] = fasterSdk("SDK v1   tools/call get");
  const [sdkCreate, sdkCreateOpts] = fasterSdk("SDK v1   tools/call create");

  // --- Part 2: ratios near 1, in pairs loaded together ---------------------------------
  const figures = [];
  const pairLine = async (label, arrangements, target) => {
    const each = await pairedRatios(arrangements, { rounds: pairRounds, duration, connections });
    const v = pairedRatio(each, arrangements.length);
    line(label, each, target, v);
    if (target) figures.push([`${label}, paired`, `≥ ${target}`, `${v.toFixed(2)}×`, pairRounds]);
  };
  console.log(`\nIn pairs loaded at the same time on a shared CPU (${pairRounds} rounds; wo against wo: two identical`);
  console.log("processes swap roles, and the figure is the geometric mean of the two arrangements' median rounds):\n");
  await pairLine(
    `MCP get (2026) / SDK v1 get (${sdkGet.title.includes("session") ? "session" : "stateless"})`,
    [[sdkGetOpts, wo0.mcpGet]],
    4,
  );
  await pairLine(
    "MCP get (2026) / REST get",
    [
      [wo1.restGet, wo2.mcpGet],
      [wo2.restGet, wo1.mcpGet],
    ],
    0.85,
  );
  await pairLine(
    "MCP get (2025 session) / REST get",
    [
      [wo1.restGet, wo2.legacyGet],
      [wo2.restGet, wo1.legacyGet],
    ],
    0.85,
  );
  await pairLine("minimal: MCP get / REST get (protocols' own)", [
    [minimal1.get, minimal2.mcp],
    [minimal2.get, minimal1.mcp],
  ]);
  await pairLine("floor: bare node:http POST / GET", [
    [floor1.get, floor2.mcp],
    [floor2.get, floor1.mcp],
  ]);
  await pairLine("wo MCP get (2026) / minimal MCP get", [
    [minimal1.mcp, wo1.mcpGet],
    [minimal2.mcp, wo2.mcpGet],
  ]);
  // Last: creates grow the databases, and nothing reads them afterwards. The SDK writes to
  // wo0's file, so its wo side is wo1, never two writers on one SQLite file.
  await pairLine("MCP create (2026) / REST create", [
    [wo1.restCreate, wo2.mcpCreate],
    [wo2.restCreate, wo1.mcpCreate],
  ]);
  await pairLine(`MCP create / SDK v1 create (${sdkCreate.title.includes("session") ? "session" : "stateless"})`, [
    [sdkCreateOpts, wo1.mcpCreate],
  ]);
  summarize("mcp", figures);
} finally {
  for (const s of servers.reverse()) await stopNode(s.child);
  rmSync(dir, { recursive: true, force: true });
}
