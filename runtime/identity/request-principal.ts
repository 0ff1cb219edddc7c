// The principal the edge resolved for a request (runtime/edge.ts), kept on node's request
// object so that what runs after the edge — the REST routes, the request log — reads the same
// one without resolving it again. A symbol: nothing a client sends can name it.

import type { IncomingMessage } from "node:http";
import type { Principal } from "../../model/principal.js";

const principalKey = Symbol("wo.principal");

type Stamped = IncomingMessage & { [principalKey]?: Principal };

export function stampPrincipal(incoming: IncomingMessage, principal: Principal): void {
  (incoming as Stamped)[principalKey] = principal;
}

/** The request's principal; undefined before the edge resolved one, or on a route that takes none (/healthz, static files). */
export function stampedPrincipal(incoming: IncomingMessage | undefined): Principal | undefined {
  return incoming && (incoming as Stamped)[principalKey];
}
