// `wo run`'s build, in a worker thread. The compiler (parser, checker, ts-morph, TypeScript)
// takes tens of megabytes of heap that a server never needs again; built in the main thread
// it stayed loaded for the server's whole life: twice the resident memory, and every garbage
// collection paid for it (MCP tools/call ~30% slower, bench/mcp). A worker's heap is freed
// when it exits. buildInWorker() is the caller's side; the rest of this file runs in the worker.

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { BuildResult } from "./build.js";

type Outcome = { result: BuildResult } | { crash: string };

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

if (!isMainThread && parentPort && typeof (workerData as { woBuildDir?: unknown } | null)?.woBuildDir === "string") {
  const port = parentPort;
  const { buildApp } = await import("./build.js");
  let outcome: Outcome;
  try {
    outcome = { result: await buildApp((workerData as { woBuildDir: string }).woBuildDir, {}) };
  } catch (err) {
    outcome = { crash: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.postMessage(outcome);
}
