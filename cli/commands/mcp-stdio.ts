// `wo mcp stdio [dir] [--db PATH|URL] [--watch]`: serve the app over MCP's stdio transport, for
// desktop agents that launch their servers (Claude Desktop, IDEs): JSON-RPC on stdin/stdout,
// everything else on stderr. The same build, store and runtime instance as `wo run`
// (runtime/instance.ts), with the instance's one MCP endpoint behind the stdio adapter
// (runtime/mcp/stdio.ts). The caller is the owner, or, with `WO_TOKEN` set to a named token
// (`wo token add`), that token's principal. On SQLite it holds the data folder like `wo run`,
// so the two do not serve one folder at once (the lock's message says so); on PostgreSQL they can.

import { resolve } from "node:path";
import { startupOperation } from "../../model/build-contract.js";
import { ownerPrincipal, type Principal } from "../../model/principal.js";
import { callContext } from "../../runtime/operations/call-context.js";
import { StoreOpenError } from "../../model/store.js";
import { createRuntimeInstance } from "../../runtime/instance.js";
import { serveMcpStdio } from "../../runtime/mcp/stdio.js";
import { reloadBuild } from "../../runtime/reload.js";
import { resolveAgentToken, TokenError } from "../../runtime/ops/agent-token.js";
import { openStore } from "../../runtime/store/open.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

export async function runMcpStdioCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const db = args.value("--db");
  const watching = args.has("--watch");
  const err = (text: string) => void process.stderr.write(text);

  const build = await loadAppBuild(dir, "mcp stdio", { warnings: true });
  if (build === 1) return 1;
  let opened;
  try {
    opened = await openStore({
      appDir: resolve(dir),
      ...(db !== undefined ? { db } : {}),
      config: build.catalog.config,
      catalog: build.catalog,
    });
  } catch (e) {
    if (e instanceof StoreOpenError) return fail(e.message);
    throw e;
  }
  const { store } = opened;
  const log = (line: string) => err(`wo: ${line}\n`);
  let ownerToken: string | undefined;
  try {
    // The owner's token when wo.toml names one (token_env), so WO_TOKEN may be the owner's too.
    ownerToken = resolveAgentToken({ config: build.catalog.config, env: process.env })?.token;
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    await store.close();
    return fail(e.message);
  }
  const instance = await createRuntimeInstance({ build, store, log, watching, ...(ownerToken ? { ownerToken } : {}) });
  try {
    const token = process.env.WO_TOKEN;
    let principal: Principal = ownerPrincipal;
    if (token !== undefined && token !== "") {
      if (!instance.identity.configured)
        return fail(
          "WO_TOKEN is set, but this app has no identity source (no named tokens, no token_env) to check it against; unset it to serve as the owner.",
        );
      const resolved = await instance.identity.resolve(`Bearer ${token}`);
      if (!("via" in resolved)) return fail(`WO_TOKEN is refused: ${resolved.reason}`);
      principal = resolved;
    }
    const startup = instance.binding.operations[startupOperation];
    if (startup) await startup({}, callContext({ principal: ownerPrincipal, surface: "startup" }));
    let inputHash = build.inputHash;
    const watcher = watching
      ? (await import("./watch.js")).watchApp(
          dir,
          {
            get inputHash() {
              return inputHash;
            },
            url: "stdio",
            reload: async (buildDir) => {
              const reloaded = await reloadBuild(instance, buildDir, err);
              if (reloaded) inputHash = reloaded.inputHash;
              return reloaded !== false;
            },
            stop: async () => undefined,
          },
          err,
        )
      : undefined;
    log(`serving ${build.catalog.app.name} over MCP stdio as ${principal.name}, store ${opened.description}`);
    const session = serveMcpStdio(instance.mcp, { input: process.stdin, output: process.stdout, principal, log });
    await session.done;
    watcher?.close();
    return 0;
  } catch (e) {
    return fail((e as Error).message);
  } finally {
    instance.close();
    await store.close();
  }
}

function fail(message: string): number {
  process.stderr.write(`wo mcp stdio: ${message}\n`);
  return 1;
}
