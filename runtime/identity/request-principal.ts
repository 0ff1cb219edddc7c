// The principal the edge resolved for a request (runtime/edge.ts), kept on node's request
// object so that what runs after the edge — the REST routes, the request log — reads the same
// one without resolving it again. A symbol: nothing a client sends can name it.

import type { IncomingMessage } from "node:http";
import type { Principal } from "../../model/principal.js";

const principalKey = Symbol("wo.principal");
const challengeKey = Symbol("wo.challenge");

type Stamped = IncomingMessage & { [principalKey]?: Principal; [challengeKey]?: string };

export function stampPrincipal(incoming: IncomingMessage, principal: Principal): void {
  (incoming as Stamped)[principalKey] = principal;
}

/** The request's principal; undefined before the edge resolved one, or on a route that takes none (/healthz, static files). */
export function stampedPrincipal(incoming: IncomingMessage | undefined): Principal | undefined {
  return incoming && (incoming as Stamped)[principalKey];
}

/**
 * The `WWW-Authenticate` challenge for an anonymous request, which the edge admitted because
 * some policy grants `anyone`: a 401 the operation layer gives it later (an action no line
 * grants to anyone) carries the same challenge as the edge's own 401s.
 */
export function stampChallenge(incoming: IncomingMessage, challenge: string): void {
  (incoming as Stamped)[challengeKey] = challenge;
}

export function stampedChallenge(incoming: IncomingMessage | undefined): string | undefined {
  return incoming && (incoming as Stamped)[challengeKey];
}
