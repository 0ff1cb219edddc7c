// What a rate limit costs a caller who stays within it: REST GET by id with `[limits]
// reads_per_minute` set (so high that nothing is refused, but every call takes a token) against
// the same app without it, paired (bench/paired-load.mjs). Both sides are called with a named
// token (`wo token add`), so both look the caller up the same way and only the bucket differs.
// On SQLite the bucket is in memory; on PostgreSQL it is a row of `_wo_rate_buckets`, one
// upsert per call, and every call of the one caller updates that one row.
// Prints the median ratio limited / unlimited per store.
//
// usage: npm run build && node bench/rate-limits/run.mjs [--rounds 6 --duration 2 --connections 10]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, postgresUnavailable } from "../../tools/postgres/server.mjs";
import { pinCpus, repoRoot, startNode, stopNode } from "../node-process.mjs";
import { median, pairedRatios } from "../paired-load.mjs";
import { summarize } from "../summary.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg("rounds", 6);
const duration = arg("duration", 2);
const connections = arg("connections", 10);
if (postgresUnavailable) throw new Error(postgresUnavailable);
const placement = pinCpus();

const work = mkdtempSync(join(tmpdir(), "wo-bench-rate-"));
function app(name, limits) {
  const dir = join(work, name, "notes");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "wo.toml"), `name = "notes"\n${limits ? "[limits]\nreads_per_minute = 1000000000\n" : ""}`);
  writeFileSync(
    join(dir, "app.wo"),
    `type Note {\n  id: Id\n  title: Text\n  service rest "/api/notes" expose list, get, create\n}\n`,
  );
  return dir;
}
/** `wo token add bench DIR [--db URL]`: the token. */
function addToken(dir, db) {
  const r = spawnSync(
    process.execPath,
    ["bin/wo.js", "token", "add", "bench", dir, "--role", "agent", ...(db ? ["--db", db] : [])],
    { cwd: repoRoot, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`wo token add: ${r.stderr}`);
  return r.stdout.trimEnd().split("\n").at(-1);
}
const serve = (dir, db) =>
  startNode(
    "bin/wo.js",
    ["run", dir, "--quiet", "--listen", "127.0.0.1:0", ...(db ? ["--db", db] : [])],
    /serving at (http:\/\/\S+)/,
  );

const started = [];
const pg = await startPostgres();
try {
  console.log(
    `rate-limit bench: ${rounds} paired rounds × ${duration} s, ${connections} connections each; ${placement}`,
  );
  console.log(`  ${"case".padEnd(38)} limited / unlimited (median)   rounds`);
  const figures = [];
  for (const store of ["sqlite", "postgres"]) {
    const sides = [];
    for (const limited of [false, true]) {
      const db = store === "postgres" ? await pg.createDatabase() : undefined;
      const dir = app(`${store}-${limited}`, limited);
      const token = addToken(dir, db);
      const s = await serve(dir, db);
      started.push(s.child);
      const headers = { authorization: `Bearer ${token}` };
      const r = await fetch(`${s.url}/api/notes`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ title: "hello" }),
      });
      if (r.status !== 201) throw new Error(`seeding ${s.url}: ${r.status} ${await r.text()}`);
      sides.push({ url: `${s.url}/api/notes/1`, headers });
    }
    const ratios = await pairedRatios([[sides[0], sides[1]]], { rounds, duration, connections });
    console.log(
      `  ${`REST GET by id, ${store}`.padEnd(38)} ${median(ratios).toFixed(3).padStart(5)}                          ${ratios.map((x) => x.toFixed(2)).join(" ")}`,
    );
    figures.push([
      `REST GET by id with a rate limit / without, ${store}, paired`,
      "",
      `${median(ratios).toFixed(2)}×`,
      rounds,
    ]);
  }
  summarize("rate-limits", figures);
} finally {
  for (const child of started) await stopNode(child);
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
