// resources/subscribe and resources/unsubscribe (2025 era): the session's GET stream carries
// `notifications/resources/updated` for each subscribed row after each commit that changes it.

import type { RequestMessage } from "./calls.js";
import type { Endpoint } from "./endpoint.js";
import { ErrorCode, RpcError, notificationBody } from "./json-rpc.js";
import { readableOnly, type RowSink } from "./row-subscriptions.js";
import type { Principal } from "../../model/principal.js";
import type { Session } from "./sessions.js";
import { sseFrame } from "../sse.js";

/** Subscribing needs what reading needs; unsubscribing from a URI not subscribed is fine. */
export async function subscription(
  ep: Endpoint,
  msg: RequestMessage,
  session: Session | undefined,
  principal?: Principal,
): Promise<object | RpcError> {
  if (session === undefined) {
    return new RpcError(
      ErrorCode.MethodNotFound,
      `Method not found: ${msg.method} (this server runs without MCP sessions, so it has no stream to notify on; use subscriptions/listen of 2026-07-28)`,
    );
  }
  const rows = ep.rows;
  const uri = msg.params?.uri;
  const subscribed = (session.rowSubscriptions ??= new Map());
  if (msg.method === "resources/unsubscribe") {
    if (typeof uri !== "string")
      return new RpcError(ErrorCode.InvalidParams, "Invalid params: resources/unsubscribe needs params.uri (a string)");
    const sink = subscribed.get(uri);
    if (sink) rows.remove(uri, sink);
    subscribed.delete(uri);
    return {};
  }
  let readable: string;
  try {
    readable = await ep.current.methods.readableRow(uri, "legacy", principal);
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  if (subscribed.has(readable)) return {};
  if (subscribed.size >= ep.maxRowSubscriptions) {
    return new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: this session already subscribes to ${ep.maxRowSubscriptions} resources; unsubscribe from some first`,
    );
  }
  const sink: RowSink = readableOnly(ep, principal, (changed) =>
    session.getStream?.send(sseFrame(notificationBody("notifications/resources/updated", { uri: changed }))),
  );
  subscribed.set(readable, sink);
  rows.add(readable, sink);
  // Ending the session (DELETE, eviction, shutdown) ends its subscriptions.
  session.onEnd ??= () => {
    for (const [u, s] of session.rowSubscriptions ?? []) rows.remove(u, s);
    session.rowSubscriptions?.clear();
  };
  return {};
}
