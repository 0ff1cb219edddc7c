// An app in process: a runtime instance (runtime/instance.ts) with its HTTP edge
// (runtime/edge.ts) as a hono app, for callers that serve or test it without listening —
// `app.hono.request(…)` takes exactly the route `wo run` takes: guard → identity → dispatch.

import { Hono } from "hono";
import type { Operation } from "../model/build-contract.js";
import { createEdge } from "./edge.js";
import { createRuntimeInstance, type InstanceOptions, type RuntimeInstance } from "./instance.js";
import type { NodeBindings } from "./node-bindings.js";

export interface AppOptions extends Omit<InstanceOptions, "ownerToken"> {
  /** The owner's bearer token; none and no other identity source → every caller is the owner. */
  token?: string;
}

export interface App {
  /** Every route, /mcp included, as a fetch-API app. */
  hono: Hono;
  /** The bound operation handlers of the serving build, keyed by tool name. */
  readonly operations: Record<string, Operation>;
  instance: RuntimeInstance;
  /** Ends sessions and streams and refuses queued calls (RuntimeInstance.close); the store stays open. */
  close(): void;
}

export async function createApp(options: AppOptions): Promise<App> {
  const { token, ...rest } = options;
  const instance = await createRuntimeInstance({ ...rest, ...(token !== undefined ? { ownerToken: token } : {}) });
  const edge = createEdge(instance);
  const hono = new Hono<{ Bindings: NodeBindings }>();
  hono.all("*", (c) => edge.fetch(c.req.raw, c.env?.incoming));
  return {
    hono: hono as unknown as Hono,
    get operations() {
      return instance.binding.operations;
    },
    instance,
    close: () => instance.close(),
  };
}
