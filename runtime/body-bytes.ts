// Reading a request body up to a byte limit, for REST (rest/body.ts) and MCP (mcp/index.ts):
// past the limit it stops at once, so a huge body is never buffered whole. Each caller checks
// Content-Length first, decodes the bytes and words its own 413.

import type { IncomingMessage } from "node:http";

/**
 * The body's bytes, or "too_large" as soon as more than `maxBytes` have arrived. Given the Node
 * request (`incoming`, from @hono/node-server) it reads from that directly, skipping the
 * conversion to a web stream.
 */
export async function readBodyBytes(request: Request, maxBytes: number, incoming?: IncomingMessage): Promise<Uint8Array | "too_large"> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (incoming && !incoming.readableEnded) {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      total += chunk.length;
      // Leaving the loop destroys the stream: the rest is never read.
      if (total > maxBytes) return "too_large";
      chunks.push(chunk);
    }
  } else if (request.body) {
    const reader = request.body.getReader();
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
