// Server-sent-events bodies for every long-lived stream wo serves: the MCP session GET stream
// and `subscriptions/listen` (mcp/session-verbs.ts, mcp/listen.ts), and REST live streams (rest/live.ts).
//
// Each stream owns a bounded queue. A client that stops reading fills only its own queue;
// when the queue is full the stream is closed (the client may reconnect) instead of buffering
// without bound or slowing anyone else down. A stream may name one last frame to send when that
// happens (`overflowFrame`: REST live streams say `reset`), which goes beyond the bound.
//
// Under `wo run` a byte-bounded stream may be given the node response it is answered on
// (`nodeResponse`): its frames are then written there directly once the headers are out, and
// the socket's own buffer is the queue. Passed through the web stream, every chunk costs a
// read promise and a callback in @hono/node-server's pipe, which at a hundred streams cost more
// than the writes they report (spec/live.md, "Limits and back-pressure").

import type { ServerResponse } from "node:http";
import { drainedBytes, type StreamSlot } from "./stream-budget.js";

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
   * Resolves once the client has taken what it was sent (all but drainedBytes) and the streams
   * together are within their budget (or the stream closed): a replay queues a page at most.
   */
  whenDrained(): Promise<void>;
  /** True while the client has not taken what it was sent (beyond drainedBytes, or any frame). */
  isBacklogged(): boolean;
  /** Cuts the connection and drops what is queued (a stalled client: ../stream-budget.ts). */
  abort(): void;
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
  /**
   * The stream's place in the process's stream budget (../stream-budget.ts): released when the
   * stream ends; the budget may cut the stream when its client stalls.
   */
  slot?: StreamSlot;
  /** How long a closed stream's last bytes may wait for its client before the connection is cut. Default 10 s. */
  lingerMs?: number;
  /**
   * The node response that answers with `response` (needs maxQueuedBytes). The web stream then
   * carries only the headers, the end and the client's disconnect.
   */
  nodeResponse?: ServerResponse;
}

const encoder = new TextEncoder();

/** A JSON-RPC message as an MCP SSE frame. */
export function sseFrame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

const defaultLingerMs = 10_000;

function cutIfUnfinished(res: ServerResponse, afterMs: number): void {
  if (res.writableFinished || res.destroyed) return;
  const cut = setTimeout(() => res.destroy(), afterMs);
  cut.unref();
  res.once("close", () => clearTimeout(cut));
}

/** How often a waiting producer looks at the queue again. */
const writablePollMs = 10;

/** A server-sent-events body with keep-alive comments and a bounded queue. */
export function createSseStream(opts: SseOptions): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const sink = opts.nodeResponse && opts.maxQueuedBytes !== undefined ? directSink(opts.nodeResponse) : undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    sink?.finish(controller);
    try {
      controller.close();
    } catch {
      // Already closed or errored by a cancelled reader.
    }
    // A client that does not read would hold the answer's last bytes (an overflow's reset, say)
    // in node's buffer for as long as it keeps the connection: it gets them for a while, then
    // the connection is cut and the memory freed.
    if (opts.nodeResponse) cutIfUnfinished(opts.nodeResponse, opts.lingerMs ?? defaultLingerMs);
    opts.slot?.release();
    opts.onClose?.();
  };
  const response = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        // The client went away: release everything this stream holds.
        if (closed) return;
        closed = true;
        if (timer) clearInterval(timer);
        sink?.drop();
        opts.slot?.release();
        opts.onClose?.();
      },
    },
    // The queue bound counts frames (or bytes): desiredSize goes negative as unread ones pile up.
    opts.maxQueuedBytes !== undefined
      ? { highWaterMark: opts.maxQueuedBytes, size: (chunk: Uint8Array) => chunk.byteLength }
      : new CountQueuingStrategy({ highWaterMark: opts.maxQueuedFrames }),
  );
  const room = sink ? () => opts.maxQueuedBytes! - sink.queuedBytes() : () => controller.desiredSize ?? 0;
  const enqueue = sink
    ? (bytes: Uint8Array) => {
        if (!sink.write(bytes)) close();
      }
    : (bytes: Uint8Array) => controller.enqueue(bytes);
  const byteBound = opts.maxQueuedBytes;
  /** Unsent bytes; a frame-bounded stream without a sink cannot tell (its frames bound it). */
  const queuedBytes = sink
    ? () => sink.queuedBytes()
    : byteBound !== undefined
      ? () => byteBound - (controller.desiredSize ?? byteBound)
      : () => 0;
  // A small per-stream bound (tests) takes half of it as taken, so a replay stays within it.
  const backlogBytes = byteBound === undefined ? drainedBytes : Math.min(drainedBytes, Math.floor(byteBound / 2));
  const isBacklogged =
    sink || byteBound !== undefined
      ? () => queuedBytes() > backlogBytes
      : () => (controller.desiredSize ?? opts.maxQueuedFrames) < opts.maxQueuedFrames;
  const send = (frame: string | Uint8Array): boolean => {
    if (closed) return false;
    // Past its own bound, or past the budget of all streams while its client is behind: the
    // stream ends here rather than hold more for a client that is not taking it.
    if (room() <= 0 || (opts.slot?.isOverBudget() && isBacklogged())) {
      if (opts.overflowFrame !== undefined) enqueue(encoder.encode(opts.overflowFrame));
      close();
      return false;
    }
    const bytes = typeof frame === "string" ? encoder.encode(frame) : frame;
    opts.slot?.charge(bytes.byteLength);
    enqueue(bytes);
    return !closed;
  };
  const whenDrained = async (): Promise<void> => {
    for (;;) {
      if (closed) return;
      if (isBacklogged()) {
        // node says 'drain' once its buffer empties after a write it could not take at once,
        // which one beyond drainedBytes always was.
        if (sink?.canWaitForDrain()) await sink.drained();
        else await new Promise((r) => setTimeout(r, writablePollMs));
        continue;
      }
      if (opts.slot?.isOverBudget()) {
        await opts.slot.whenUnderBudget();
        continue;
      }
      return;
    }
  };
  const abort = () => {
    if (closed) return;
    sink?.drop();
    try {
      if (opts.nodeResponse) {
        opts.nodeResponse.destroy();
        controller.close();
      } else {
        // A piped web stream (mcp/node.ts) destroys its response when its source errors.
        controller.error(new Error("the client stopped reading"));
      }
    } catch {
      // Already closed.
    }
    closed = true;
    if (timer) clearInterval(timer);
    opts.slot?.release();
    opts.onClose?.();
  };
  if (opts.keepAliveMs > 0) {
    timer = setInterval(() => send(": keepalive\n\n"), opts.keepAliveMs);
    timer.unref();
  }
  const stream: SseStream = {
    send,
    close,
    get closed() {
      return closed;
    },
    whenDrained,
    isBacklogged,
    abort,
    room,
    response,
  };
  opts.slot?.attach({ queuedBytes, isBacklogged, abort });
  return stream;
}

/** How often frames sent before the headers went out look again whether they have. */
const headersPollMs = 1;

/**
 * Writes straight to `res`. @hono/node-server writes the headers (with whatever the middleware
 * added) when it takes the response; until then frames wait here, in order. Its unread web
 * stream stays empty, so nothing it writes can come between them.
 */
function directSink(res: ServerResponse) {
  let waiting: Uint8Array[] = [];
  let waitingBytes = 0;
  let poll: NodeJS.Timeout | undefined;
  /** Headers out and the answer still open: what is written now reaches the client. */
  const open = () => res.headersSent && !res.writableEnded && !res.destroyed;
  /** Forgets what waits (and the poll for it); returns it. */
  const drop = () => {
    if (poll) clearTimeout(poll);
    poll = undefined;
    const frames = waiting;
    waiting = [];
    waitingBytes = 0;
    return frames;
  };
  const flushWaiting = () => {
    poll = undefined;
    if (res.destroyed || res.writableEnded) return void drop();
    if (!res.headersSent) {
      poll = setTimeout(flushWaiting, headersPollMs);
      return;
    }
    for (const bytes of drop()) res.write(bytes);
  };
  return {
    /** False when the answer is gone (the client left, or it was never this stream's). */
    write(bytes: Uint8Array): boolean {
      if (waiting.length === 0 && open()) {
        res.write(bytes);
        return true;
      }
      if (res.destroyed || res.writableEnded) return false;
      waiting.push(bytes);
      waitingBytes += bytes.byteLength;
      poll ??= setTimeout(flushWaiting, headersPollMs);
      return true;
    },
    /** Bytes written but not yet taken by the client's socket. */
    queuedBytes: () => waitingBytes + res.writableLength,
    /** Whether node will say 'drain' (its buffer is over its mark, and nothing waits here). */
    canWaitForDrain: () => waiting.length === 0 && res.writableNeedDrain && !res.destroyed,
    /** Resolves at the response's next 'drain' or 'close'. */
    drained: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      }),
    /**
     * The stream is closing: what waits goes out before the end. With the headers not out yet
     * it goes through the web stream, which @hono/node-server then writes whole.
     */
    finish(controller: ReadableStreamDefaultController<Uint8Array>) {
      const frames = drop();
      if (open()) for (const bytes of frames) res.write(bytes);
      else if (!res.headersSent) for (const bytes of frames) controller.enqueue(bytes);
    },
    drop,
  };
}
