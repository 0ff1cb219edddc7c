// One HTTP request through node:http with exactly the headers a test writes: fetch would set
// Host itself and refuse to send some headers, which the Host/Origin tests need to forge. The
// path goes out as written (`/x/../y` is not normalized), so traversal attempts reach the server.

import { request, type IncomingHttpHeaders } from "node:http";

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * Over a fresh connection to `url` (`http://127.0.0.1:port`): `host` as given (`""`: none), else
 * the address's. A `content-length` header the test writes wins over the body's: declaring more
 * than is sent gets the server's answer to the declaration (413) without racing it (a server
 * that refuses a body it has not read closes the connection, and a client still writing the
 * rest gets EPIPE instead of the answer).
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const { host, ...rest } = headers;
    const all: Record<string, string> = {
      ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
      ...rest,
      ...(host ? { host } : {}),
    };
    const partial = body !== undefined && Number(all["content-length"]) > Buffer.byteLength(body);
    const req = request(
      {
        host: hostname.replace(/^\[|\]$/g, ""),
        port,
        method,
        path,
        headers: all,
        setHost: host === undefined,
        agent: false,
      },
      (res) => {
        // A live stream (text/event-stream) never ends by itself: its answer is the status and headers.
        if (res.headers["content-type"] === "text/event-stream") {
          resolve({ status: res.statusCode!, headers: res.headers, text: "", json: undefined });
          req.destroy();
          return;
        }
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
          if (partial) req.destroy();
        });
      },
    );
    req.on("error", reject);
    if (partial) req.write(body);
    else req.end(body);
  });
}
