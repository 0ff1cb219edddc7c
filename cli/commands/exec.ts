// `wo exec [dir] [--db PATH]`: run the program's `main { … }` block once against the app's
// store, in one write transaction, with `print(…)` writing to stdout.
//
// Same build, store and runtime instance as `wo run` (build if stale; the data folder's
// single-writer lock, so a running `wo run` makes this refuse with the lock's message; the
// operations bound by runtime/instance.ts), run as the owner. An `abort` or runtime error in
// `main` rolls everything back and exits 1 with the message.

import { resolve } from "node:path";
import { mainOperation } from "../../model/build-contract.js";
import { ownerPrincipal } from "../../model/principal.js";
import { callContext } from "../../runtime/operations/call-context.js";
import { createRuntimeInstance } from "../../runtime/instance.js";
import { openStore } from "../../runtime/store/open.js";
import { StoreOpenError } from "../../model/store.js";
import type { ParsedArgs } from "./args.js";
import { loadAppBuild } from "./app-build.js";

export async function runExecCommand(args: ParsedArgs): Promise<number> {
  const db = args.value("--db");
  const dir = args.first ?? ".";

  const build = await loadAppBuild(dir, "exec");
  if (build === 1) return 1;
  if (!build.catalog.main) {
    return fail("the app has no 'main' block that runs (wo check says why when there is one).", 1);
  }
  let store;
  try {
    store = (
      await openStore({
        appDir: resolve(dir),
        ...(db !== undefined ? { db } : {}),
        config: build.catalog.config,
        catalog: build.catalog,
      })
    ).store;
  } catch (err) {
    if (err instanceof StoreOpenError) return fail(err.message, 1);
    throw err;
  }
  try {
    const log = (line: string) => void process.stderr.write(`wo: ${line}\n`);
    const instance = await createRuntimeInstance({ build, store, log });
    try {
      await instance.binding.operations[mainOperation]!(
        {},
        callContext({ principal: ownerPrincipal, surface: "exec" }),
      );
    } finally {
      instance.close();
    }
    return 0;
  } catch (err) {
    return fail(`main aborted: ${(err as Error).message}`, 1);
  } finally {
    await store.close();
  }
}

function fail(message: string, code: number): number {
  process.stderr.write(`wo exec: ${message}\n`);
  return code;
}
