// What knowing the caller costs: a JWT-authenticated call against the same call without
// credentials, paired (bench/paired-load.mjs). Two `wo run`s of samples/hello: one with
// `[auth]` pointing at a local OAuth issuer this bench serves on 127.0.0.1 (discovery + JWKS,
// an ES256 key made with jose), called with a bearer JWT for its /mcp URL; one with no identity
// source, called without. Cases: REST GET by id, MCP tools/call greeting_get (2026-07-28).
// Prints the median ratio authenticated / open per case (goal ≥ 0.9: within 10%).
//
// usage: npm run build && node bench/identity/run.mjs [--rounds 8 --duration 2 --connections 10]
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { pinCpus, repoRoot, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg("rounds", 8);
const duration = arg("duration", 2);
const connections = arg("connections", 10);
const placement = pinCpus();

// The issuer: RFC 8414 metadata and a JWKS, as the tests' issuer serves them.
const { publicKey, privateKey } = await generateKeyPair("ES256");
const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" };
const issuerServer = createServer((req, res) => {
  const base = `http://127.0.0.1:${issuerServer.address().port}`;
  const body =
    req.url === "/.well-known/oauth-authorization-server"
      ? { issuer: base, jwks_uri: `${base}/jwks` }
      : req.url === "/jwks"
        ? { keys: [jwk] }
        : undefined;
  res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
  res.end(JSON.stringify(body ?? {}));
});
await new Promise((r) => issuerServer.listen(0, "127.0.0.1", r));
const issuer = `http://127.0.0.1:${issuerServer.address().port}`;

const work = mkdtempSync(join(tmpdir(), "wo-bench-identity-"));
function app(name, toml) {
  const dir = join(work, name, "hello");
  cpSync(join(repoRoot, "samples/hello"), dir, { recursive: true, filter: (p) => !p.includes("/.wo") });
  writeFileSync(join(dir, "wo.toml"), toml);
  return dir;
}
const serve = (dir) =>
  startNode("bin/wo.js", ["run", dir, "--quiet", "--listen", "127.0.0.1:0"], /serving at (http:\/\/\S+)/);

const started = [];
try {
  const open = await serve(app("open", 'name = "hello"\n'));
  started.push(open.child);
  const authed = await serve(app("authed", `name = "hello"\n[auth]\nissuer = "${issuer}"\n`));
  started.push(authed.child);
  const token = await new SignJWT({ role: "agent", client_id: "bench" })
    .setProtectedHeader({ alg: "ES256", kid: "bench" })
    .setIssuer(issuer)
    .setSubject("1")
    .setAudience(`${authed.url}/mcp`)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);
  const bearer = { authorization: `Bearer ${token}` };
  const json = { "content-type": "application/json" };
  // One row on each.
  for (const [s, h] of [
    [open, {}],
    [authed, bearer],
  ]) {
    const r = await fetch(`${s.url}/api/greetings`, {
      method: "POST",
      headers: { ...json, ...h },
      body: JSON.stringify({ message: "hello" }),
    });
    if (r.status !== 201) throw new Error(`seeding ${s.url}: ${r.status} ${await r.text()}`);
  }
  const V = "2026-07-28";
  const mcp = (url, headers) => ({
    url: `${url}/mcp`,
    method: "POST",
    headers: {
      ...json,
      ...headers,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": "greeting_get",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "greeting_get",
        arguments: { id: 1 },
        _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} },
      },
    }),
  });
  const cases = [
    [
      "REST GET /api/greetings/1",
      // Both sides send the same header bytes (with no identity source the open server ignores
      // Authorization), so the ratio is the server's work, not the load generator's.
      { url: `${open.url}/api/greetings/1`, headers: bearer },
      { url: `${authed.url}/api/greetings/1`, headers: bearer },
    ],
    ["MCP tools/call greeting_get", mcp(open.url, bearer), mcp(authed.url, bearer)],
  ];
  console.log(`identity bench: ${rounds} paired rounds × ${duration} s, ${connections} connections each; ${placement}`);
  console.log(`  ${"case".padEnd(30)} goal    JWT / open (median)   rounds`);
  const figures = [];
  for (const [title, a, b] of cases) {
    const ratios = await pairedRatios([[a, b]], { rounds, duration, connections });
    figures.push([`${title}: JWT / open, paired`, "≥ 0.9", `${median(ratios).toFixed(2)}×`, rounds]);
    console.log(
      `  ${title.padEnd(30)} ≥ 0.9   ${median(ratios).toFixed(3).padStart(5)}                 ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
    );
  }
  summarize("identity", figures);
} finally {
  for (const child of started) await stopNode(child);
  issuerServer.close();
  rmSync(work, { recursive: true, force: true });
}
