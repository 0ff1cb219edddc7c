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
  // Installed by the Node that runs `npm test` (20 or newer), but run only by the Node 22 it
  // installs: a dependency of the suites declares `engines: node >=22`, which npm would report
  // as an EBADENGINE warning (or, under a global engine-strict=true, refuse). Neither applies
  // here, so engine checks are off and npm prints errors only.
  const r = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--engine-strict=false", "--loglevel=error"], {
    cwd: here,
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
