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

/** Over a fresh connection to `url` (`http://127.0.0.1:port`): `host` as given (`""`: none), else the address's. */
export function rawRequest(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const { host, ...rest } = headers;
    const all: Record<string, string> = { ...rest, ...(host ? { host } : {}), ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) };
    const req = request({ host: hostname.replace(/^\[|\]$/g, ""), port, method, path, headers: all, setHost: host === undefined, agent: false }, (res) => {
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
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
