// Installs Node 22 and the MCP conformance suites into tools/mcp-conformance/node_modules when
// they are missing. Run by `npm test` (pretest) rather than on every `npm install`: they are
// 200+ MB that only the conformance test needs, not something a user of wo should download.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const needed = ["node22/bin/node", "conformance-0-1/dist/index.js", "conformance-0-2/dist/index.js"];
if (!needed.every((p) => existsSync(join(here, "node_modules", p)))) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
