// CPU time per call, of the server process and of PostgreSQL (every process of its server:
// backends, WAL writer, …), for wo and the hand-written anchor (anchor-server.mjs) on the same
// table: each loaded alone in turn (wo, anchor, wo, anchor, …), its CPU read from
// /proc/<pid>/stat before and after. Unlike req/s, CPU per call hardly depends on what else
// the machine runs, so it compares the two on a loaded box; the medians of the rounds are
// printed, with the ratio wo/anchor.
//
// With `--old CHECKOUT` (another checkout, built), that build's wo is measured too, in the same
// rounds, on its own database.
//
// usage: node bench/postgres/cpu-per-call.mjs [--duration 3 --connections 10 --rounds 4 --old CHECKOUT]
// (needs `npm run build` and PostgreSQL's binaries, as the tests; Linux)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { startPostgres, postgresUnavailable } from "../../tools/postgres/server.mjs";
import { numberArg, oldCheckoutArg, startNode, stopNode } from "../node-process.mjs";
import { median } from "../paired-load.mjs";

const duration = numberArg("duration", 3);
const connections = numberArg("connections", 10);
const rounds = numberArg("rounds", 4);
const oldCheckout = oldCheckoutArg();
if (postgresUnavailable) throw new Error(postgresUnavailable);

/** Clock ticks of user + system time of process `pid` (fields 14 and 15 of /proc/<pid>/stat). */
function ticks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // gone meanwhile
  }
}

/** Ticks of the postmaster and all its children, by pid (a backend that ends takes its ticks along). */
function serverTicks(postmaster) {
  const byPid = new Map([[postmaster, ticks(postmaster)]]);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) byPid.set(Number(name), ticks(name));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

const tickUs = 1e6 / 100; // USER_HZ is 100 on Linux

function sumDelta(before, after) {
  let n = 0;
  for (const [pid, t] of after) n += t - (before.get(pid) ?? 0);
  return n;
}

async function measure(server, postmaster, request) {
  const appBefore = ticks(server.child.pid);
  const pgBefore = serverTicks(postmaster);
  const r = await autocannon({ url: server.url + request.path, connections, duration, pipelining: 1, ...request });
  if (r.non2xx > 0 || r.errors > 0 || r.requests.total === 0)
    throw new Error(`${request.method ?? "GET"} ${request.path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const calls = r.requests.total;
  return {
    rps: calls / duration,
    app: ((ticks(server.child.pid) - appBefore) * tickUs) / calls,
    pg: (sumDelta(pgBefore, serverTicks(postmaster)) * tickUs) / calls,
  };
}

const work = mkdtempSync(join(tmpdir(), "wo-bench-pgcpu-"));
const pg = await startPostgres();
const started = [];
try {
  const app = (name) => {
    const dir = join(work, name, "notes");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "app.wo"),
      `type Note {\n  id: Id\n  title: Text\n  body: Text\n  service rest "/api/notes" expose list, get, create\n}\n`,
    );
    return dir;
  };
  const serve = async (name, wo) => {
    const dir = app(name);
    const url = await pg.createDatabase();
    const server = await startNode(
      wo,
      ["run", dir, "--quiet", "--listen", "127.0.0.1:0", "--db", url],
      /serving at (http:\/\/\S+)/,
    );
    started.push(server.child);
    const table = JSON.parse(readFileSync(join(dir, ".wo", "build", "app.json"), "utf8")).types[0].table;
    return { ...server, db: url, table };
  };
  const contenders = [["wo", await serve("this", "bin/wo.js")]];
  if (oldCheckout) contenders.push(["wo --old", await serve("old", join(oldCheckout, "bin/wo.js"))]);
  const [, wo] = contenders[0];
  const anchor = await startNode(
    "bench/postgres/anchor-server.mjs",
    [wo.db, wo.table, "/api/notes", "10"],
    /serving at (http:\/\/\S+)/,
  );
  started.push(anchor.child);
  contenders.push(["anchor", anchor]);
  const json = { "content-type": "application/json" };
  const note = JSON.stringify({ title: "bench", body: "durable" });
  // Ids are minted per database: the first note of each is 1.
  for (const [, server] of contenders.slice(0, -1))
    await fetch(`${server.url}/api/notes`, { method: "POST", headers: json, body: note });
  const cases = [
    ["POST /api/notes", { path: "/api/notes", method: "POST", headers: json, body: note }],
    ["GET /api/notes/:id", { path: "/api/notes/1" }],
  ];
  const postmaster = pg.postmasterPid();
  console.log(
    `CPU per call (µs; ${rounds} rounds × ${duration} s each, ${connections} connections, medians), load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  for (const [title, request] of cases) {
    const runs = new Map(contenders.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      for (const [name, server] of order) runs.get(name).push(await measure(server, postmaster, request));
    }
    const m = (name, key) => median(runs.get(name).map((r) => r[key]));
    for (const [name] of contenders)
      console.log(
        `  ${title.padEnd(20)} ${name.padEnd(9)} server ${m(name, "app").toFixed(0).padStart(5)} µs   PostgreSQL ${m(name, "pg").toFixed(0).padStart(5)} µs   ${m(name, "rps").toFixed(0).padStart(6)} req/s`,
      );
    for (const [name] of contenders.slice(0, -1))
      console.log(
        `  ${title.padEnd(20)} ${name}/anchor: server CPU ${(m(name, "app") / m("anchor", "app")).toFixed(2)}×, PostgreSQL CPU ${(m(name, "pg") / m("anchor", "pg")).toFixed(2)}×, req/s ${(m(name, "rps") / m("anchor", "rps")).toFixed(2)}×`,
      );
  }
} finally {
  for (const child of started) await stopNode(child);
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
