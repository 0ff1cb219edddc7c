// node's ServerResponse with `X-Content-Type-Options: nosniff` on every answer (a JSON body
// holding app text must never be sniffed into HTML or script by a browser; spec/security.md),
// added as the head is written rather than set on each response as it is made. A header set
// with setHeader sends node's writeHead down its slow path: the answer's own headers are merged
// one setHeader at a time into node's null-prototype header object, which is then walked again
// to write the head; on a GET by id that cost more than the route's own work. When nothing was
// set before, the header goes first into the object writeHead is given, so the head is written
// from that object as it is, in the order it had (nosniff first, then the answer's headers).

import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from "node:http";

const header = "x-content-type-options";

// Where node keeps the headers set so far (null while there are none), found once. Absent in
// some other node: every answer then takes the setHeader path below, as before.
const outHeaders: symbol | undefined = Object.getOwnPropertySymbols(
  new ServerResponse({ method: "GET", httpVersionMajor: 1, httpVersionMinor: 1, headers: {} } as IncomingMessage),
).find((s) => s.description === "kOutHeaders");

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class NosniffResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
    const given = typeof reason === "string" ? headers : reason;
    if (
      given !== undefined &&
      !Array.isArray(given) &&
      outHeaders !== undefined &&
      (this as unknown as Record<symbol, unknown>)[outHeaders] === null
    ) {
      const all = { [header]: "nosniff", ...given };
      return typeof reason === "string" ? super.writeHead(statusCode, reason, all) : super.writeHead(statusCode, all);
    }
    // Headers were set before (or an array of them is given): it goes first among them, where
    // it stood when every response set it as it was made; node merges the given ones in.
    if (!this.headersSent && !this.hasHeader(header)) {
      const own = this as unknown as Record<symbol, Record<string, [string, string]> | null>;
      const set = outHeaders !== undefined ? own[outHeaders] : null;
      if (set) own[outHeaders!] = Object.assign(Object.create(null), { [header]: [header, "nosniff"] }, set);
      else this.setHeader(header, "nosniff");
    }
    return typeof reason === "string"
      ? super.writeHead(statusCode, reason, headers)
      : super.writeHead(statusCode, reason);
  }
}
