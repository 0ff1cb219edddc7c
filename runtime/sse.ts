// Server-sent-events bodies for every long-lived stream wo serves: the MCP session GET stream
// and `subscriptions/listen` (mcp/session-verbs.ts, mcp/listen.ts), and REST live streams (rest/live.ts).
//
// Each stream owns a bounded queue. A client that stops reading fills only its own queue;
// when the queue is full the stream is closed (the client may reconnect) instead of buffering
// without bound or slowing anyone else down. A stream may name one last frame to send when that
// happens (`overflowFrame`: REST live streams say `reset`), which goes beyond the bound.

export interface SseStream {
  /**
   * False when the frame was dropped because the stream is closed or its queue is full. Bytes
   * are queued as they are (one encoded frame may be shared by many streams).
   */
  send(frame: string | Uint8Array): boolean;
  close(): void;
  readonly closed: boolean;
  /** What the queue still takes before it is full: bytes (with maxQueuedBytes) or frames. */
  room(): number;
  /**
   * Resolves once the queue has room again (or the stream closed): a producer with many frames
   * at hand (a replay) waits here instead of overflowing the stream.
   */
  whenWritable(): Promise<void>;
  readonly response: ReadableStream<Uint8Array>;
}

export interface SseOptions {
  keepAliveMs: number;
  /** Frames (chunks) queued for a client that is not reading; beyond this the stream closes. */
  maxQueuedFrames: number;
  /** Instead of counting frames, bound the bytes queued (a chunk may hold many events). */
  maxQueuedBytes?: number;
  /** Sent as the last frame when the queue overflows, just before the close. */
  overflowFrame?: string;
  onClose?: () => void;
}

const encoder = new TextEncoder();

/** A JSON-RPC message as an MCP SSE frame. */
export function sseFrame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** How often a waiting producer looks at the queue again. */
const writablePollMs = 10;

/** A server-sent-events body with keep-alive comments and a bounded queue. */
export function createSseStream(opts: SseOptions): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    try {
      controller.close();
    } catch {
      // Already closed or errored by a cancelled reader.
    }
    opts.onClose?.();
  };
  const response = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        // The client went away: release everything this stream holds.
        closed = true;
        if (timer) clearInterval(timer);
        opts.onClose?.();
      },
    },
    // The queue bound counts frames (or bytes): desiredSize goes negative as unread ones pile up.
    opts.maxQueuedBytes !== undefined
      ? { highWaterMark: opts.maxQueuedBytes, size: (chunk: Uint8Array) => chunk.byteLength }
      : new CountQueuingStrategy({ highWaterMark: opts.maxQueuedFrames }),
  );
  const send = (frame: string | Uint8Array): boolean => {
    if (closed) return false;
    if ((controller.desiredSize ?? 0) <= 0) {
      if (opts.overflowFrame !== undefined) controller.enqueue(encoder.encode(opts.overflowFrame));
      close();
      return false;
    }
    controller.enqueue(typeof frame === "string" ? encoder.encode(frame) : frame);
    return true;
  };
  const whenWritable = async (): Promise<void> => {
    while (!closed && (controller.desiredSize ?? 0) <= 0) await new Promise((r) => setTimeout(r, writablePollMs));
  };
  if (opts.keepAliveMs > 0) {
    timer = setInterval(() => send(": keepalive\n\n"), opts.keepAliveMs);
    timer.unref();
  }
  return {
    send,
    close,
    get closed() {
      return closed;
    },
    whenWritable,
    room: () => controller.desiredSize ?? 0,
    response,
  };
}
