// subscriptions/listen (2026-07-28): one long-lived POST answered with an SSE stream that
// carries the notifications the client asked for and the server honours.

import type { RequestMessage } from "./calls.js";
import type { BoundBuild, Endpoint } from "./endpoint.js";
import { jsonReply, sseReply, streamRefusal, type McpReply } from "./http.js";
import { isRefusal } from "../stream-budget.js";
import { ErrorCode, RpcError, errorBody, notificationBody, resultBody } from "./json-rpc.js";
import { readableOnly, type RowSink } from "./row-subscriptions.js";
import type { Principal } from "../../model/principal.js";
import { sseFrame } from "../sse.js";

/**
 * The stream opens with the acknowledgement of what is honoured: `resourceSubscriptions` naming
 * rows the client could read (spec/live.md), and under --watch `toolsListChanged`/
 * `resourcesListChanged` where asked for. It stays open for their notifications
 * (row-subscriptions.ts, list-changes.ts) until the client closes it or the server stops (the
 * graceful end). With nothing honoured: the acknowledgement and the graceful end, then the
 * stream closes.
 */
export async function listen(
  ep: Endpoint,
  msg: RequestMessage,
  b: BoundBuild,
  caller: string,
  principal?: Principal,
): Promise<McpReply> {
  const filter = msg.params?.notifications;
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    return jsonReply(
      200,
      errorBody(msg.id, ErrorCode.InvalidParams, "Invalid params: subscriptions/listen needs params.notifications"),
    );
  }
  const asked = (filter as Record<string, unknown>).resourceSubscriptions;
  if (asked !== undefined && !(Array.isArray(asked) && asked.every((u) => typeof u === "string"))) {
    return jsonReply(
      200,
      errorBody(
        msg.id,
        ErrorCode.InvalidParams,
        "Invalid params: notifications.resourceSubscriptions must be an array of resource URIs (strings)",
      ),
    );
  }
  const uris = [...new Set((asked ?? []) as string[])];
  if (uris.length > ep.maxRowSubscriptions) {
    return jsonReply(
      200,
      errorBody(
        msg.id,
        ErrorCode.InvalidParams,
        `Invalid params: at most ${ep.maxRowSubscriptions} resourceSubscriptions per stream`,
      ),
    );
  }
  const honoured: string[] = [];
  for (const uri of uris) {
    try {
      honoured.push(await b.methods.readableRow(uri, "modern", principal));
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      // Not a row this client may read (or none at all): not honoured, as the spec allows.
    }
  }
  const subMeta = { "io.modelcontextprotocol/subscriptionId": msg.id };
  const listKinds = ep.lists.honoured(filter as Record<string, unknown>);
  const honouredFilter = honoured.length > 0 ? { ...listKinds, resourceSubscriptions: honoured } : listKinds;
  const ack = sseFrame(
    notificationBody("notifications/subscriptions/acknowledged", { notifications: honouredFilter, _meta: subMeta }),
  );
  const done = sseFrame(resultBody(msg.id, { resultType: "complete", _meta: { ...subMeta, ...b.serverInfoMeta } }));
  if (Object.keys(honouredFilter).length === 0) return sseReply(ack + done);
  const slot = ep.streams.admit(caller);
  if (isRefusal(slot)) return streamRefusal(slot, msg.id);
  const rows = ep.rows;
  const sink: RowSink = readableOnly(ep, principal, (uri) =>
    stream?.send(sseFrame(notificationBody("notifications/resources/updated", { uri, _meta: subMeta }))),
  );
  const stream = ep.lists.open(msg.id, listKinds, done, slot, () => {
    for (const uri of honoured) rows.remove(uri, sink);
  });
  if (!stream)
    return jsonReply(
      200,
      errorBody(msg.id, ErrorCode.ServerError, "Too many open subscriptions/listen streams; close one and retry"),
    );
  stream.send(ack);
  for (const uri of honoured) rows.add(uri, sink);
  return sseReply(stream.response);
}
