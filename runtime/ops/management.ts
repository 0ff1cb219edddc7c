// The management endpoint (`POST /_wo/status`, `POST /_wo/stop`) and its client: how
// `wo status` and `wo stop` talk to exactly the instance they started, never to whatever
// process holds a PID or a port. Both sides know the instance's random management key (a
// private file in the runtime directory); it never crosses the wire:
//
//   request   x-wo-nonce: 32 fresh random bytes (hex), chosen by the client
//             x-wo-proof: HMAC-SHA256(key, "wo-request\n" METHOD "\n" PATH "\n" NONCE)
//   reply     x-wo-proof: HMAC-SHA256(key, "wo-reply\n" METHOD "\n" PATH "\n" NONCE "\n" sha256(BODY))
//
// The server answers only a valid request proof; the client believes only a reply proof over
// its own fresh nonce and the exact body, so an old reply or another server cannot pass for
// the instance. The agent's bearer token opens nothing here, and the key opens nothing else.
// Requests are not replay-cached: a replayed status reveals nothing new and stop is idempotent.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { discardUnread } from "../body-bytes.js";

export const managementPrefix = "/_wo/";
const paths = new Set(["/_wo/status", "/_wo/stop"]);

/** What `wo status` shows, as the server reports it. */
export interface InstanceStatus {
  state: "running" | "stopping";
  url: string;
  pid: number;
  startedAt: string;
  uptimeSeconds: number;
  requests: number;
  build?: string;
}

export interface ManagementOptions {
  key: Buffer;
  status(): InstanceStatus;
  /** Starts the graceful shutdown; called once the stop reply has been written. */
  stop(): void;
  /** The Host/Origin rule every route obeys: a rejection reason, or undefined. */
  guard(origin: string | undefined, host: string | undefined): string | undefined;
}

export function isManagementPath(url: string | undefined): boolean {
  return url?.startsWith(managementPrefix) === true;
}

function requestProof(key: Buffer, method: string, path: string, nonce: string): Buffer {
  return createHmac("sha256", key).update(`wo-request\n${method}\n${path}\n${nonce}`).digest();
}

function replyProof(key: Buffer, method: string, path: string, nonce: string, body: string): Buffer {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", key).update(`wo-reply\n${method}\n${path}\n${nonce}\n${bodyHash}`).digest();
}

function sameProof(expected: Buffer, hex: string | undefined): boolean {
  if (hex === undefined || !/^[0-9a-f]{64}$/.test(hex)) return false;
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}

/** Serves /_wo/… on node:http. Never throws. */
export function serveManagement(options: ManagementOptions, req: IncomingMessage, res: ServerResponse): void {
  const answer = (status: number, body: unknown, proof?: Buffer) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(text),
      ...(proof ? { "x-wo-proof": proof.toString("hex") } : {}),
    });
    res.end(text);
    if (!req.complete) discardUnread(req);
  };
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
  };
  const rejected = options.guard(header("origin"), header("host"));
  if (rejected !== undefined) return answer(403, { error: rejected });
  const path = (req.url ?? "").split("?")[0]!;
  if (!paths.has(path)) return answer(404, { error: `No management route ${path}` });
  if (req.method !== "POST") {
    res.setHeader("allow", "POST");
    return answer(405, { error: "Management requests are POST" });
  }
  const nonce = header("x-wo-nonce");
  if (
    nonce === undefined ||
    !/^[0-9a-f]{64}$/.test(nonce) ||
    !sameProof(requestProof(options.key, "POST", path, nonce), header("x-wo-proof"))
  ) {
    return answer(401, { error: "Management requests need this instance's management key (wo status / wo stop)." });
  }
  const status = options.status();
  const body = path === "/_wo/stop" ? { ...status, state: "stopping" } : status;
  const text = JSON.stringify(body);
  answer(200, body, replyProof(options.key, "POST", path, nonce, text));
  if (path === "/_wo/stop") res.once("finish", () => options.stop());
}

export type ManagementResult =
  | { kind: "ok"; status: InstanceStatus }
  /** Nothing listens there (connection refused): the instance is gone. */
  | { kind: "unreachable" }
  /** Something answered, but not with this key's proof: another server, or another instance. */
  | { kind: "foreign"; why: string }
  /** No answer in time: maybe busy, maybe hung. Not proof of anything. */
  | { kind: "no_answer"; why: string };

/** One authenticated management call to `baseUrl` (http://host:port). Follows no redirects. */
export function callManagement(
  baseUrl: string,
  key: Buffer,
  action: "status" | "stop",
  timeoutMs = 5_000,
): Promise<ManagementResult> {
  const path = `/_wo/${action}`;
  const nonce = randomBytes(32).toString("hex");
  const url = new URL(path, baseUrl);
  return new Promise((resolve) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          "x-wo-nonce": nonce,
          "x-wo-proof": requestProof(key, "POST", path, nonce).toString("hex"),
          "content-length": "0",
        },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > 64 * 1024) res.destroy();
          else chunks.push(c);
        });
        res.on("error", () => resolve({ kind: "foreign", why: "the answer broke off" }));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const proof = res.headers["x-wo-proof"];
          if (
            res.statusCode !== 200 ||
            typeof proof !== "string" ||
            !sameProof(replyProof(key, "POST", path, nonce, body), proof)
          ) {
            resolve({ kind: "foreign", why: `it answered HTTP ${res.statusCode} without this instance's proof` });
            return;
          }
          try {
            resolve({ kind: "ok", status: JSON.parse(body) as InstanceStatus });
          } catch {
            resolve({ kind: "foreign", why: "its answer is not JSON" });
          }
        });
      },
    );
    req.on("timeout", () => {
      req.destroy();
      resolve({ kind: "no_answer", why: `no answer within ${timeoutMs / 1000} s` });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNREFUSED") resolve({ kind: "unreachable" });
      else resolve({ kind: "no_answer", why: err.code ?? err.message });
    });
    req.end();
  });
}
