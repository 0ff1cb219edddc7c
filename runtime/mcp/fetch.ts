// The MCP handler on the fetch API, for in-process hono users (`App.hono`, tests): a thin
// adapter with no logic of its own; `wo run` serves /mcp on node:http instead (node.ts).

import { Hono } from "hono";
import type { IncomingMessage } from "node:http";
import type { Principal } from "../../model/principal.js";
import { readBody } from "../body-bytes.js";
import type { HeaderView } from "./era.js";
import type { McpRequest } from "./http.js";
import { createMcpHandler, type McpDeps, type McpHandler } from "./index.js";
import type { Message } from "./json-rpc.js";
import { streamCallerOf } from "../stream-budget.js";

/** A fetch-API request as the handler reads it; `incoming` lets the body be read without a web stream. */
class FetchMcpRequest implements McpRequest {
  message: Message | undefined = undefined;
  constructor(
    private readonly req: Request,
    private readonly incoming: IncomingMessage | undefined,
    readonly principal: Principal | undefined,
  ) {}
  get method(): string {
    return this.req.method;
  }
  get headers(): HeaderView {
    return this.req.headers;
  }
  body(max: number): Promise<Uint8Array | "too_large"> {
    return readBody(this.incoming, this.req, max);
  }
  get signal(): AbortSignal {
    return this.req.signal;
  }
  get caller(): string {
    return streamCallerOf(this.incoming?.socket, this.principal);
  }
  get connection(): object | undefined {
    return this.incoming?.socket;
  }
}

/** handle() for a fetch-API server; `principal`: who is calling, as the edge resolved it. */
export async function serveMcpFetch(
  handler: McpHandler,
  req: Request,
  incoming?: IncomingMessage,
  principal?: Principal,
): Promise<Response> {
  const reply = await handler.handle(new FetchMcpRequest(req, incoming, principal));
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

export type McpRoutes = Hono & { mcp: McpHandler };

/** A hono sub-app answering every verb at "/"; mount at /mcp. */
export function createMcpRoutes(deps: McpDeps): McpRoutes {
  return mcpRoutesFor(createMcpHandler(deps));
}

/** The same sub-app around an existing handler. */
export function mcpRoutesFor(handler: McpHandler): McpRoutes {
  const app = new Hono<{ Bindings: { incoming?: IncomingMessage } }>();
  app.all("/", (c) => serveMcpFetch(handler, c.req.raw, c.env?.incoming));
  return Object.assign(app, { mcp: handler }) as unknown as McpRoutes;
}
