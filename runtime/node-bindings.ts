// What @hono/node-server hands a route beside the fetch Request (hono's `c.env`): node's own
// request and response under `wo run`; neither when the app is called in process (tests), where
// the edge hands the principal it resolved instead (runtime/edge.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import type { Principal } from "../model/principal.js";
import { stampedPrincipal } from "./identity/request-principal.js";

export interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  principal?: Principal;
}

export const nodeBindings = (c: Context): NodeBindings => (c.env as NodeBindings | undefined) ?? {};

/** Who is calling, as the edge resolved it; undefined: nobody resolved one (the owner). */
export function requestPrincipal(c: Context): Principal | undefined {
  const env = nodeBindings(c);
  return env.principal ?? stampedPrincipal(env.incoming);
}
