#!/usr/bin/env node
// The `wo` command. The TypeScript sources are compiled to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script).
//
// The Node version is checked before anything of wo loads (hence the dynamic import): on an
// older Node, wo's own code may fail in ways that do not say why. The minimum is package.json's
// `engines.node`; this file keeps to syntax every Node since 14 runs.
import { readFileSync } from "node:fs";

const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines)[1];
if (olderThan(process.versions.node, minimum)) {
  process.stderr.write(
    `wo: needs Node.js ${minimum} or newer; this is Node.js ${process.versions.node} (${process.execPath}). Install a newer Node (https://nodejs.org) and run wo with it.\n`,
  );
  process.exit(1);
}

const { main } = await import("../dist/cli/main.js");
process.exitCode = await main(process.argv.slice(2));

function olderThan(version, min) {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}
