// `wo run`'s build, in a worker thread. The compiler (parser, checker, ts-morph, TypeScript)
// takes tens of megabytes of heap that a server never needs again; built in the main thread
// it stayed loaded for the server's whole life: twice the resident memory, and every garbage
// collection paid for it (MCP tools/call ~30% slower, bench/mcp). A worker's heap is freed
// when it exits. buildInWorker() and startBuildWorker() are the caller's side; the rest of this
// file runs in the worker.
//
// `wo run --watch` rebuilds after every saved edit, and a fresh worker spends most of a build
// loading the compiler (about 2 s of a 2.2 s build of a small app, against 0.2 s for the next
// build in the same thread). So it keeps one worker for all its builds (startBuildWorker): the
// compiler stays loaded, in that worker's heap, never the server's. That worker also keeps each
// app's parses from one build to the next (compiler/parse-cache.ts), and before the first edit
// rehearses a build of the app (build.ts rehearseBuild), so even the first rebuild runs warm.

import { resolve as resolvePath } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { BuildResult } from "./build.js";

type Outcome = { result: BuildResult } | { crash: string };
type Request = { dir: string; rehearse?: true };

/** buildApp(dir) in a worker thread; rejects only if the worker itself fails. */
export function buildInWorker(dir: string): Promise<BuildResult> {
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { woBuildDir: dir } });
    let settled = false;
    worker.once("message", (outcome: Outcome) => {
      settled = true;
      if ("result" in outcome) resolvePromise(outcome.result);
      else reject(new Error(outcome.crash));
    });
    worker.once("error", (err) => {
      settled = true;
      reject(err);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`the build worker exited with code ${code} without an answer`));
    });
  });
}

export interface BuildWorker {
  /** buildApp(dir) in the worker; builds run in the order asked. Rejects only if the worker fails (the next build starts a new one). */
  build(dir: string): Promise<BuildResult>;
  /** A build of `dir` that writes nothing, to warm the worker; a build asked after it waits for it. */
  rehearse(dir: string): void;
  close(): void;
}

/** A worker that stays for many builds, with the compiler loaded once (it starts loading at once). */
export function startBuildWorker(): BuildWorker {
  let worker: Worker | undefined;
  const waiting: { resolve(r: BuildResult): void; reject(e: Error): void }[] = [];
  const start = (): Worker => {
    const w = new Worker(new URL(import.meta.url), { workerData: { woBuildWorker: true } });
    // It must not keep the process alive: the server's lifetime decides.
    w.unref();
    w.on("message", (outcome: Outcome) => {
      const next = waiting.shift();
      if ("result" in outcome) next?.resolve(outcome.result);
      else next?.reject(new Error(outcome.crash));
    });
    const fail = (err: Error) => {
      if (worker === w) worker = undefined;
      for (const p of waiting.splice(0)) p.reject(err);
    };
    w.on("error", fail);
    w.on("exit", (code) => fail(new Error(`the build worker exited with code ${code}`)));
    return w;
  };
  worker = start();
  return {
    build(dir) {
      worker ??= start();
      const w = worker;
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        w.postMessage({ dir } satisfies Request);
      });
    },
    rehearse(dir) {
      // Unanswered: nothing waits for it, and a failure shows at the next real build.
      (worker ??= start()).postMessage({ dir, rehearse: true } satisfies Request);
    },
    close() {
      void worker?.terminate();
      worker = undefined;
    },
  };
}

async function outcomeOf(build: () => Promise<BuildResult>): Promise<Outcome> {
  try {
    return { result: await build() };
  } catch (err) {
    return { crash: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

const data = workerData as { woBuildDir?: unknown; woBuildWorker?: unknown } | null;
if (!isMainThread && parentPort && typeof data?.woBuildDir === "string") {
  const port = parentPort;
  const { buildApp } = await import("./build.js");
  port.postMessage(await outcomeOf(() => buildApp(data.woBuildDir as string, {})));
} else if (!isMainThread && parentPort && data?.woBuildWorker === true) {
  const port = parentPort;
  const { buildApp, rehearseBuild } = await import("./build.js");
  const { ParseCache } = await import("./parse-cache.js");
  const parseCaches = new Map<string, InstanceType<typeof ParseCache>>();
  const parsesOf = (dir: string) => {
    let parses = parseCaches.get(resolvePath(dir));
    if (parses === undefined) parseCaches.set(resolvePath(dir), (parses = new ParseCache()));
    return parses;
  };
  // One build at a time, in arrival order: the answers are matched to the questions by order
  // (a rehearsal has none).
  let queue = Promise.resolve();
  let buildsAsked = 0;
  port.on("message", (message: Request) => {
    const parses = parsesOf(message.dir);
    if (message.rehearse) {
      queue = queue.then(() => rehearseBuild(message.dir, parses, () => buildsAsked > 0).catch(() => undefined));
      return;
    }
    buildsAsked++;
    queue = queue.then(async () => {
      buildsAsked--;
      port.postMessage(await outcomeOf(() => buildApp(message.dir, { parses })));
    });
  });
  // Load the compiler now, while nobody waits for a build (buildApp loads these lazily).
  void Promise.all([import("./index.js"), import("./emit/index.js"), import("ts-morph")]).catch(() => undefined);
}
