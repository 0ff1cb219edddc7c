// Method-heavy calls, old build against new build in pairs (bench/paired-load.mjs), the way
// bench/compare-builds.mjs compares plain CRUD: what the run budget costs where it costs most.
// Cases:
//   compute   POST /api/work/1/fib {n: 16}: a read-only method making 3,193 recursive calls and
//             as many loop iterations — nothing but steps, no store work between them
//   transfer  samples/ledger's transfer: one write transaction, the usual method
//
// usage: npm run build && node bench/methods/compare.mjs OTHER_CHECKOUT [--pairs 8 --duration 2]
//   e.g. git worktree add /tmp/wo-old <commit> && (cd /tmp/wo-old && npm run build)
// Prints new/old per case; above 1 means the new build is faster.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pinCpus, repoRoot, startNode, stopNode } from "../node-process.mjs";
import { pairedRatio, pairedRatios } from "../paired-load.mjs";

const other = process.argv[2];
if (!other || other.startsWith("--")) {
  process.stderr.write("usage: node bench/methods/compare.mjs OTHER_CHECKOUT [--pairs N] [--duration S]\n");
  process.exit(2);
}
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const options = { rounds: arg("pairs", 8), duration: arg("duration", 2), connections: arg("connections", 10) };

const work = `class Work {
  label: Text

  fn fib(n: Int) -> Int {
    let total = 0
    for i in [1] {
      total += i
    }
    if n < 2 {
      return n
    }
    return self.fib(n - 1) + self.fib(n - 2)
  }

  service rest "/api/work" expose create, fib
}
`;

const json = { "content-type": "application/json" };
const placement = pinCpus();
const dir = mkdtempSync(join(tmpdir(), "wo-bench-methods-compare-"));
const servers = [];

async function startWo(name, root) {
  const app = join(dir, name);
  cpSync(join(repoRoot, "samples/ledger"), app, { recursive: true });
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "work.wo"), work);
  const s = await startNode(
    resolve(root, "bin/wo.js"),
    ["run", app, "--quiet", "--listen", "127.0.0.1:0"],
    /serving at (http:\/\/\S+)\s/,
  );
  servers.push(s);
  const post = (path, body) => fetch(s.url + path, { method: "POST", headers: json, body: JSON.stringify(body) });
  await post("/api/work", { label: "bench" });
  for (const owner of ["a", "b"]) await post("/api/accounts", { owner });
  await post("/api/accounts/1/deposit", { amount: 1e12 });
  const fib = await (await post("/api/work/1/fib", { n: 16 })).json();
  if (fib !== 987) throw new Error(`${name}: fib(16) answered ${JSON.stringify(fib)}`);
  return {
    compute: { url: `${s.url}/api/work/1/fib`, method: "POST", headers: json, body: JSON.stringify({ n: 16 }) },
    transfer: {
      url: `${s.url}/api/accounts/1/transfer`,
      method: "POST",
      headers: json,
      body: JSON.stringify({ to: 2, amount: 1 }),
    },
  };
}

try {
  process.stdout.write(
    `new: ${repoRoot}\nold: ${resolve(other)}\n${placement}; ${options.rounds} rounds of ${options.duration} s per case\n\n`,
  );
  // As in bench/compare-builds.mjs: two halves with the servers started in opposite orders.
  const cases = ["compute", "transfer"];
  const ratiosByCase = Object.fromEntries(cases.map((k) => [k, []]));
  for (const newFirst of [true, false]) {
    const start = [() => startWo("new", repoRoot), () => startWo("old", other)];
    const [fresh, old] = newFirst
      ? [await start[0](), await start[1]()]
      : await start[1]().then(async (o) => [await start[0](), o]);
    for (const kase of cases) {
      ratiosByCase[kase].push(
        await pairedRatios([[old[kase], fresh[kase]]], { ...options, rounds: Math.ceil(options.rounds / 2) }),
      );
    }
    while (servers.length > 0) await stopNode(servers.pop().child);
    rmSync(dir, { recursive: true, force: true });
  }
  for (const kase of cases) {
    const [a, b] = ratiosByCase[kase];
    const interleaved = a.flatMap((r, i) => [r, b[i]]).filter((r) => r !== undefined);
    const shown = `new first: ${a.map((r) => r.toFixed(3)).join(" ")} | old first: ${b.map((r) => r.toFixed(3)).join(" ")}`;
    process.stdout.write(`${kase.padEnd(9)} new/old ${pairedRatio(interleaved, 2).toFixed(3)}   ${shown}\n`);
  }
} finally {
  for (const s of servers) await stopNode(s.child);
  rmSync(dir, { recursive: true, force: true });
}
