// Old build against new build, in pairs: the same cases on `wo run` of this checkout and of
// another one (an older commit, checked out and built elsewhere), loaded at the same time
// (bench/paired-load.mjs), so a change's cost shows as a ratio near 1 rather than as two
// numbers measured minutes apart. Cases over a copy of samples/hello with one row:
// REST GET by id, REST create, MCP tools/call get (2026-07-28, stateless).
//
// usage: npm run build && node bench/compare-builds.mjs OTHER_CHECKOUT [--pairs 8 --duration 2]
//   e.g. git worktree add /tmp/wo-old <commit> && (cd /tmp/wo-old && npm ci)
// WO_NEW_ARGS / WO_OLD_ARGS add `wo run` flags to one side only (say `--quiet`, which older
// builds do not know).
// Compare with `--quiet` on both sides: with the request log on, both servers write a line per
// request into this process's pipes, and an A/A run (a checkout against a copy of itself) was
// off by up to 20% that way.
// Prints new/old per case with every round; above 1 means the new build is faster.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pinCpus, repoRoot, startNode, stopNode } from "./node-process.mjs";
import { pairedRatio, pairedRatios } from "./paired-load.mjs";

const other = process.argv[2];
if (!other || other.startsWith("--")) {
  process.stderr.write(
    "usage: node bench/compare-builds.mjs OTHER_CHECKOUT [--pairs N] [--duration S] [--connections N]\n",
  );
  process.exit(2);
}
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const options = { rounds: arg("pairs", 8), duration: arg("duration", 2), connections: arg("connections", 10) };

const V = "2026-07-28";
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const envelope = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const mcpGet = (id) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "greeting_get", arguments: { id }, _meta: envelope },
  });

const placement = pinCpus();
const dir = mkdtempSync(join(tmpdir(), "wo-bench-compare-"));
const servers = [];

/** `wo run` of checkout `root` over its own copy of samples/hello holding one row; its cases. */
async function startWo(name, root, extra) {
  const app = join(dir, name);
  cpSync(join(repoRoot, "samples/hello"), app, { recursive: true });
  const s = await startNode(
    resolve(root, "bin/wo.js"),
    ["run", app, "--listen", "127.0.0.1:0", ...extra],
    /serving at (http:\/\/\S+)\s/,
  );
  servers.push(s);
  const res = await fetch(`${s.url}/api/greetings`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ message: "hello bench" }),
  });
  const { id } = await res.json();
  return {
    restGet: { url: `${s.url}/api/greetings/${id}` },
    restCreate: {
      url: `${s.url}/api/greetings`,
      method: "POST",
      headers: json,
      body: JSON.stringify({ message: "bench" }),
    },
    mcpGet: {
      url: `${s.url}/mcp`,
      method: "POST",
      headers: { ...json, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "greeting_get" },
      body: mcpGet(id),
    },
  };
}

try {
  process.stdout.write(
    `new: ${repoRoot}\nold: ${resolve(other)}\n${placement}; ${options.rounds} rounds of ${options.duration} s per case\n\n`,
  );
  const words = (v) => (v ? v.split(" ").filter(Boolean) : []);
  // Two halves with the servers started in opposite orders: an A/A run (this checkout against
  // a copy of itself) showed the server started first winning by up to 20%, so each half's
  // bias cancels the other's. The two builds are different programs, so they cannot swap roles
  // within one pair; between rounds the load start order alternates too.
  const cases = ["restGet", "restCreate", "mcpGet"];
  const ratiosByCase = Object.fromEntries(cases.map((k) => [k, []]));
  for (const newFirst of [true, false]) {
    const start = [
      () => startWo("new", repoRoot, words(process.env.WO_NEW_ARGS)),
      () => startWo("old", other, words(process.env.WO_OLD_ARGS)),
    ];
    const [fresh, old] = newFirst
      ? [await start[0](), await start[1]()]
      : await start[1]().then(async (o) => [await start[0](), o]);
    for (const kase of cases) {
      const ratios = await pairedRatios([[old[kase], fresh[kase]]], {
        ...options,
        rounds: Math.ceil(options.rounds / 2),
      });
      ratiosByCase[kase].push(ratios);
    }
    while (servers.length > 0) await stopNode(servers.pop().child);
    rmSync(dir, { recursive: true, force: true });
  }
  for (const kase of cases) {
    const [a, b] = ratiosByCase[kase];
    // The rounds of the two halves as two arrangements: the median of each, then their geometric mean.
    const interleaved = a.flatMap((r, i) => [r, b[i]]).filter((r) => r !== undefined);
    const shown = `new first: ${a.map((r) => r.toFixed(3)).join(" ")} | old first: ${b.map((r) => r.toFixed(3)).join(" ")}`;
    process.stdout.write(`${kase.padEnd(11)} new/old ${pairedRatio(interleaved, 2).toFixed(3)}   ${shown}\n`);
  }
} finally {
  for (const s of servers) await stopNode(s.child);
  rmSync(dir, { recursive: true, force: true });
}
