// What @hono/node-server hands a route beside the fetch Request (hono's `c.env`): node's own
// request and response under `wo run`; neither when the app is called in process (tests).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";

export interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

export const nodeBindings = (c: Context): NodeBindings => (c.env as NodeBindings | undefined) ?? {};
