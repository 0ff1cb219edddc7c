// The admin listener (spec/operations.md, "Admin listener"): a small HTTP server of its own,
// on the address `[admin] listen` names (loopback unless another host is written), never on the
// public port. It serves three GETs and nothing else:
//
//   /metrics  the instance's Prometheus metrics (metrics.ts)
//   /live     200 while the process serves at all
//   /ready    200 while the store answers and the server is not shutting down, else 503
//
// It holds no data and takes no token, so on loopback the Host check of the public port applies
// (runtime/http-guard.ts): a web page that rebinds its own domain to 127.0.0.1 is refused.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpGuard } from "../http-guard.js";
import type { Metrics } from "./metrics.js";

export interface AdminOptions {
  host: string;
  port: number;
  metrics: Metrics;
  /** Why the instance is not ready (shutting down, the store not answering); undefined when it is. */
  notReady(): Promise<string | undefined>;
  log: (line: string) => void;
}

export interface AdminListener {
  /** `http://127.0.0.1:9464` */
  readonly url: string;
  close(): Promise<void>;
}

export function startAdminListener(options: AdminOptions): Promise<AdminListener> {
  const guard = createHttpGuard({ allowedOrigins: [], listenHost: options.host });
  const text = (
    res: import("node:http").ServerResponse,
    status: number,
    body: string,
    type = "text/plain; charset=utf-8",
  ) => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": String(Buffer.byteLength(body)),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const refused = guard.refusal(req.headers.origin, req.headers.host);
    if (refused !== undefined) return text(res, 403, `Forbidden: ${refused}.\n`);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== "/metrics" && path !== "/live" && path !== "/ready")
      return text(res, 404, "Not found: the admin listener serves /metrics, /live and /ready.\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      return text(res, 405, "Method Not Allowed: GET only.\n");
    }
    if (path === "/live") return text(res, 200, "live\n");
    if (path === "/ready") {
      options.notReady().then(
        (why) => (why === undefined ? text(res, 200, "ready\n") : text(res, 503, `not ready: ${why}\n`)),
        (err: unknown) => text(res, 503, `not ready: ${(err as Error).message}\n`),
      );
      return;
    }
    options.metrics.text().then(
      (body) => text(res, 200, body, options.metrics.contentType),
      (err: unknown) => {
        options.log(`admin: /metrics failed: ${(err as Error).message}`);
        text(res, 500, "The metrics could not be collected; the server log says why.\n");
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${host}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
