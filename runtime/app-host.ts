// The app that serves, behind one reference that `wo run --watch` swaps between requests
// (spec/live.md, "Watching and hot swap"). Per build: the operations bound to the store, REST
// routes, explorer, MCP methods (an App, app.ts). Per process: the store, the MCP sessions and
// streams, the concurrency budget (AppParts, carried from app to app). A request reads
// `host.app` once when it arrives and finishes on that app, so a call in flight completes on
// the old build while the next one gets the new build.
//
// A swap: migrate the open store to the new build's shape (refused → nothing changes, the old
// build keeps serving), then, in one synchronous step, point MCP at the new build (which tells
// listening clients when tools or resources changed) and replace the reference.

import { createApp, type App, type AppOptions } from "./app.js";
import { buildChanges, type BuildChanges } from "./build-changes.js";
import type { LoadedBuild } from "./load-build.js";
import type { ListKind } from "./mcp/list-changes.js";
import { MigrationRefusedError, type MigrationReport } from "../model/store.js";

export type SwapOutcome =
  | { swapped: true; changes: BuildChanges; migrated: string[]; notified: ListKind[] }
  /** Nothing changed: the old build serves on. `reason` is the migration's refusal, in words. */
  | { swapped: false; reason: string };

export interface AppHost {
  /** The app serving now: read once per request. */
  readonly app: App;
  /** Serves `build` from now on, or refuses and keeps the current one. Swaps run one at a time. */
  swap(build: LoadedBuild): Promise<SwapOutcome>;
}

export interface AppHostOptions extends Omit<AppOptions, "replacing"> {
  allowDestructiveMigration: boolean;
  /** Called with each new app right after it took over (server.ts rebinds its listener). */
  onSwap?: (app: App) => void;
}

export function createAppHost(options: AppHostOptions): AppHost {
  let app = createApp(options);
  let serving = options.build;
  let queue: Promise<unknown> = Promise.resolve();

  const swapNow = async (build: LoadedBuild): Promise<SwapOutcome> => {
    // Made first (binding touches no data), so the swap follows the migration's commit at once.
    const next = createApp({ ...options, build, replacing: app });
    if (!options.store.migrate)
      return {
        swapped: false,
        reason: "this store cannot change its shape while serving; restart wo run to serve the new build",
      };
    let report: MigrationReport;
    try {
      report = await options.store.migrate(build.catalog, { allowDestructive: options.allowDestructiveMigration });
    } catch (err) {
      if (err instanceof MigrationRefusedError) return { swapped: false, reason: err.message };
      throw err;
    }
    const notified = app.parts.mcp.setBuild(next.mcpBuild);
    const changes = buildChanges(serving, build);
    app = next;
    serving = build;
    options.onSwap?.(next);
    return { swapped: true, changes, migrated: report.applied, notified };
  };

  return {
    get app() {
      return app;
    },
    swap(build) {
      const done = queue.then(() => swapNow(build));
      queue = done.catch(() => undefined);
      return done;
    },
  };
}
