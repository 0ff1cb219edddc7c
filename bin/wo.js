#!/usr/bin/env node
// The `wo` command. The TypeScript sources are compiled to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script).
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
