// The runtime instance: everything one serving process owns, whichever build it serves — the
// store, the concurrency budget, the MCP endpoint with its sessions and streams, the REST live
// streams, the management endpoint, the Host/Origin guard and the identity sources — and the
// binding of the build serving now (runtime/binding.ts), which owns nothing. `wo run`, `wo exec`
// and `wo test` assemble it alike; only `wo run` puts an HTTP edge in front (runtime/edge.ts).
//
// Under `wo run --watch`, swap() replaces the binding (spec/live.md, "Watching and hot swap"):
// migrate the open store to the new build's shape (refused → nothing changes, the old build keeps
// serving), then, in one synchronous step, point MCP at the new build (which tells listening
// clients when tools or resources changed) and replace the reference. A request reads the
// binding once when it arrives and finishes on it, so a call in flight completes on the old
// build while the next one gets the new one. Streams and sessions belong to the instance, so
// they carry on across swaps and end at close().

import type { RateKind, WoConfig } from "../model/app.js";
import { MigrationRefusedError, type MigrationReport, type Store } from "../model/store.js";
import { OperationError } from "../model/errors.js";
import { bindBuild, type Binding } from "./binding.js";
import { buildChanges, type BuildChanges } from "./build-changes.js";
import { allowedOriginsOf, createHttpGuard, type HttpGuard } from "./http-guard.js";
import type { BearerSource, ProtectedResource } from "./identity/contract.js";
import { createIdentity, type Identity } from "./identity/identity.js";
import { startNamedTokenSource } from "./identity/named-tokens.js";
import type { LoadedBuild } from "./load-build.js";
import type { ListKind } from "./mcp/list-changes.js";
import { createMcpHandler, type McpHandler } from "./mcp/index.js";
import { createConcurrencyLimit, type ConcurrencyLimiter } from "./operations/limit.js";
import { enforcePolicies, type OperationPolicy } from "./operations/policy.js";
import { createRateLimiter, type RateLimiter } from "./operations/rate-limit.js";
import type { ManagementOptions } from "./ops/management.js";
import { createLiveStreams, type LiveStreams } from "./rest/live.js";
import { defaultStreamLimits, StreamBudget } from "./stream-budget.js";
import { startTelemetry, type Telemetry } from "./telemetry/telemetry.js";

export interface InstanceOptions {
  build: LoadedBuild;
  store: Store;
  /** Defaults to the build's catalog config (wo.toml). */
  config?: WoConfig;
  /** The owner's bearer token (`token_env`, `--token-file`, the automatic agent token). */
  ownerToken?: string;
  /** Asked after the owner's token and the named tokens, in order (the OAuth 2.1 JWT verifier). */
  bearerSources?: readonly BearerSource[];
  /** An OAuth resource server's face: the edge serves its metadata and every 401 carries its challenge. */
  protectedResource?: ProtectedResource;
  log?: (line: string) => void;
  /** The host the server listens on: loopback turns on the Host check (undefined counts as loopback). */
  listenHost?: string;
  /** A background instance's management endpoint (runtime/ops/management.ts); none → no /_wo/. */
  management?: Omit<ManagementOptions, "guard">;
  /** `wo run --watch`: builds replace each other, so MCP declares listChanged (runtime/mcp/list-changes.ts). */
  watching?: boolean;
  /** Apply migrations that drop or narrow data on swap (`--allow-destructive-migration`). */
  allowDestructiveMigration?: boolean;
  /** Who may run which operation (runtime/operations/policy.ts); default: the build's `policy` lines. */
  policy?: OperationPolicy;
  /** Where OTEL_* variables are read (traces); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Told of each call a rate limit refuses (the metrics' refusal counter). */
  onRateLimited?: (kind: RateKind) => void;
}

export type SwapOutcome =
  | { swapped: true; changes: BuildChanges; migrated: string[]; notified: ListKind[] }
  /** Nothing changed: the old build serves on. `reason` is the migration's refusal, in words. */
  | { swapped: false; reason: string };

export interface RuntimeInstance {
  /** The build serving now: read once per request. */
  readonly binding: Binding;
  readonly store: Store;
  readonly config: WoConfig;
  readonly guard: HttpGuard;
  readonly identity: Identity;
  readonly mcp: McpHandler;
  readonly live: LiveStreams;
  readonly limiter: ConcurrencyLimiter;
  /**
   * Metrics (when `[admin] listen` is set) and traces (when an OTLP endpoint is), or undefined
   * when neither is configured; its shutdown() exports the spans not sent yet.
   */
  readonly telemetry: Telemetry | undefined;
  /** The callers' rate limits (`[limits] *_per_minute`), with their refusal counts; absent: none is set. */
  readonly rateLimiter: RateLimiter | undefined;
  /** The management endpoint's options with the instance's guard, when it serves one. */
  readonly management: ManagementOptions | undefined;
  readonly log: (line: string) => void;
  /** Serves `build` from now on, or refuses and keeps the current one. Swaps run one at a time. */
  swap(build: LoadedBuild): Promise<SwapOutcome>;
  /**
   * Shutdown: calls still waiting for a slot (and any new one) are refused as busy — none of
   * them has started, so nothing is lost — and every MCP session and stream and every REST live
   * stream ends, so a shutdown does not wait on them. Running calls finish. The store stays
   * open: its owner closes it.
   */
  close(): void;
}

export async function createRuntimeInstance(options: InstanceOptions): Promise<RuntimeInstance> {
  const { store } = options;
  const config = options.config ?? options.build.catalog.config;
  const log = options.log ?? ((line: string) => process.stderr.write(`wo: ${line}\n`));
  const shutdown = new AbortController();
  const limiter = createConcurrencyLimit(config.concurrency, shutdown.signal);
  // One bucket per caller and kind for the process (and, on a shared store, for every instance).
  const rateLimiter = createRateLimiter(config.rateLimits, {
    ...(store.rateBuckets ? { buckets: store.rateBuckets } : {}),
    // Counted in the metrics (telemetry starts below, before anything is served).
    onRefused: (kind) => {
      options.onRateLimited?.(kind);
      telemetry?.metrics?.rateLimited(kind);
    },
  });
  // One budget for every long-lived stream of the process: REST live, MCP GET and listen streams.
  const streams = new StreamBudget({ ...defaultStreamLimits, ...config.streamLimits });
  // Live streams hear each commit with the computed fields the serving build wrote (row-exprs.ts).
  // (The store is a class instance: its methods are bound, not spread.)
  const presenting: Store = Object.assign(Object.create(null) as Store, {
    read: store.read.bind(store),
    write: store.write.bind(store),
    changesAfter: store.changesAfter.bind(store),
    readAudit: store.readAudit.bind(store),
    close: store.close.bind(store),
    onCommit: (listener: Parameters<Store["onCommit"]>[0]) =>
      store.onCommit((changes) => listener(changes.map((c) => binding.presentChange(c)))),
  });
  const live = createLiveStreams(presenting, log, { budget: streams });
  // One Host/Origin policy for every route but /healthz, /mcp and /_wo/ included (spec/security.md).
  const guard = createHttpGuard({
    allowedOrigins: allowedOriginsOf(config),
    ...(options.listenHost !== undefined ? { listenHost: options.listenHost } : {}),
  });
  // Who is calling, in this order: the owner's token, the store's named tokens (whether there
  // are any is known before anything is served), then these sources. The OAuth 2.1 JWT verifier
  // of wo.toml `[auth]` joins them here, with its ProtectedResource: the edge then serves the
  // resource metadata and every 401 carries its challenge.
  const namedTokens = store.namedTokens && (await startNamedTokenSource(store.namedTokens, log));
  const bearerSources: BearerSource[] = [...(options.bearerSources ?? [])];
  const protectedResource: ProtectedResource | undefined = options.protectedResource;
  const identity = createIdentity({
    ...(options.ownerToken !== undefined ? { ownerToken: options.ownerToken } : {}),
    ...(namedTokens ? { namedTokens } : {}),
    sources: bearerSources,
    ...(protectedResource ? { protectedResource } : {}),
    log,
  });
  // The gauges read these when scraped; `mcp` and `binding` exist by the first scrape.
  const telemetry = await startTelemetry({
    config,
    app: options.build.catalog.app,
    env: options.env ?? process.env,
    log,
    sources: {
      concurrency: () => limiter,
      streams: () => streams.openCount,
      mcpSessions: () => mcp.sessionCount,
      pool: () => store.poolUse?.(),
      isTool: (name) => Object.hasOwn(binding.operations, name),
    },
  });
  const bind = (build: LoadedBuild) =>
    bindBuild(build, {
      store,
      config,
      limiter,
      policy: options.policy ?? enforcePolicies,
      rate: rateLimiter,
      live,
      log,
      ...(telemetry ? { telemetry } : {}),
    });
  let binding = bind(options.build);
  const mcp = createMcpHandler({
    ...binding.mcpBuild,
    config,
    guard,
    options: { log, listChanged: options.watching ?? false, streams, ...(telemetry ? { telemetry } : {}) },
  });
  // The management endpoint: its own key (never a bearer token), the same Host/Origin guard.
  const management = options.management && {
    ...options.management,
    guard: (origin: string | undefined, host: string | undefined) => guard.refusal(origin, host),
  };

  let queue: Promise<unknown> = Promise.resolve();
  const swapNow = async (build: LoadedBuild): Promise<SwapOutcome> => {
    // Bound first (binding touches no data), so the swap follows the migration's commit at once.
    const next = bind(build);
    if (!store.migrate)
      return {
        swapped: false,
        reason: "this store cannot change its shape while serving; restart wo run to serve the new build",
      };
    let report: MigrationReport;
    try {
      report = await store.migrate(build.catalog, { allowDestructive: options.allowDestructiveMigration ?? false });
    } catch (err) {
      if (err instanceof MigrationRefusedError) return { swapped: false, reason: err.message };
      throw err;
    }
    // Stored rows that break a new boolean @check keep the old build serving (row-exprs.ts `settle`).
    try {
      await next.settle();
    } catch (err) {
      if (err instanceof OperationError) return { swapped: false, reason: err.message };
      throw err;
    }
    const notified = mcp.setBuild(next.mcpBuild);
    const changes = buildChanges(binding.build, build);
    binding = next;
    return { swapped: true, changes, migrated: report.applied, notified };
  };

  return {
    get binding() {
      return binding;
    },
    store,
    config,
    guard,
    identity,
    mcp,
    live,
    limiter,
    telemetry,
    rateLimiter,
    management,
    log,
    swap(build) {
      const done = queue.then(() => swapNow(build));
      queue = done.catch(() => undefined);
      return done;
    },
    close() {
      shutdown.abort();
      mcp.close();
      live.closeAll();
      namedTokens?.close();
    },
  };
}
