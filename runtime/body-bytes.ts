// The one reader of request bodies, for REST (rest/body.ts) and MCP (mcp/post.ts) alike, on
// node:http and on the fetch API: up to a byte limit, past which it stops at once so a huge body
// is never buffered whole; and decoding it as UTF-8 (strictly). Each caller checks
// Content-Length first (declaresMoreThan) and words its own 413 and 400.

import type { IncomingMessage } from "node:http";

/**
 * How to wait for a body node:http has not received whole yet. "check-phase": the caller runs
 * inside the 'request' event (the MCP endpoint on node:http), where a small body lies parsed in
 * the packet of its headers by the event loop's next check phase, so one read takes it.
 * "streamed": 'data'/'end' listeners, cheaper once a router has already awaited (REST under
 * hono). bench/compare-builds.mjs shows the difference each way.
 */
export type BodyArrival = "check-phase" | "streamed";

/**
 * The body's bytes, or "too_large" as soon as more than `maxBytes` have arrived. It reads node's
 * request (`incoming`) when there is one — `wo run`, or hono on @hono/node-server — skipping any
 * web stream; the fetch-API `request` only when there is no socket (an in-process fetch) or its
 * body stream already took the bytes from `incoming`.
 */
export function readBody(
  incoming: IncomingMessage | undefined,
  request: Request | undefined,
  maxBytes: number,
  arrival: BodyArrival = "streamed",
): Promise<Uint8Array | "too_large"> {
  if (incoming && !incoming.readableEnded) return readIncomingBytes(incoming, maxBytes, arrival);
  return readWebBody(request?.body ?? null, maxBytes);
}

async function readWebBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | "too_large"> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return "too_large";
      }
      chunks.push(value);
    }
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

// `fatal`: invalid UTF-8 is refused, never replaced by U+FFFD (which would let two different
// byte strings read as the same text, past @unique). As fast as Buffer#toString on small bodies.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A body's bytes as text, or undefined when they are not valid UTF-8. The one decoder of REST and MCP bodies. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether a Content-Length value alone shows the body is over `maxBytes`: refused unread. */
export function declaresMoreThan(contentLength: string | null | undefined, maxBytes: number): boolean {
  return typeof contentLength === "string" && /^\d+$/.test(contentLength) && Number(contentLength) > maxBytes;
}

const EMPTY = new Uint8Array(0);

/**
 * A body node:http has received whole (`incoming.complete`), taken from the stream's buffer in
 * one read(); undefined while more is to come. A small request arrives in one packet with its
 * headers, and once the packet is parsed its body lies complete in that buffer.
 */
function takeReceivedBody(incoming: IncomingMessage, maxBytes: number): Uint8Array | "too_large" | undefined {
  if (incoming.readableEnded) return EMPTY;
  if (!incoming.complete || incoming.readableFlowing) return undefined;
  const length = incoming.readableLength;
  if (length > maxBytes) return "too_large";
  const bytes = length === 0 ? null : (incoming.read() as Buffer | null);
  // Emptying the buffer of an ended stream lets it emit 'end' as if it had been read out.
  if (bytes === null) incoming.read();
  return bytes ?? EMPTY;
}

/** node:http's body: taken whole when it has arrived, else waited for as `arrival` says (BodyArrival). */
function readIncomingBytes(
  incoming: IncomingMessage,
  maxBytes: number,
  arrival: BodyArrival,
): Promise<Uint8Array | "too_large"> {
  const received = takeReceivedBody(incoming, maxBytes);
  if (received !== undefined) return Promise.resolve(received);
  if (arrival === "streamed") return streamIncomingBytes(incoming, maxBytes);
  return new Promise((resolve) => setImmediate(resolve)).then(
    () => takeReceivedBody(incoming, maxBytes) ?? streamIncomingBytes(incoming, maxBytes),
  );
}

/**
 * Reads the rest of the body as it arrives, with plain 'data'/'end' listeners rather than
 * `for await`, whose async iterator costs microtask hops and allocations on every request.
 */
function streamIncomingBytes(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array | "too_large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        done();
        // Stop reading: the rest is never buffered. Not destroyed, so the 413 reaches the client;
        // after the response @hono/node-server discards the rest (at most 64 MiB, 500 ms) and
        // then closes, so a client still sending reads the answer instead of a reset.
        incoming.pause();
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    // The client went away before the body ended.
    const onClose = () => {
      done();
      reject(new Error("the request was closed before its body ended"));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

/**
 * After an answer was sent without reading the whole body (413, 415, …): discard the rest so a
 * client still sending reads the answer instead of a connection reset, but at most `maxBytes`
 * or `maxMs`, after which the connection is closed. (@hono/node-server does the same for the
 * requests it serves; these bounds are its.)
 */
export function discardUnread(incoming: IncomingMessage, maxBytes = 64 * 1024 * 1024, maxMs = 500): void {
  if (incoming.readableEnded || incoming.destroyed) return;
  let seen = 0;
  const stop = () => {
    clearTimeout(timer);
    incoming.off("data", onData);
    incoming.off("end", stop);
    incoming.off("error", stop);
  };
  const cut = () => {
    stop();
    incoming.socket?.destroy();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) cut();
  };
  const timer = setTimeout(cut, maxMs);
  timer.unref();
  incoming.on("data", onData);
  incoming.on("end", stop);
  incoming.on("error", stop);
  incoming.resume();
}
