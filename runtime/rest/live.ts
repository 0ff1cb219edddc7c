// REST live streams (spec/live.md, "REST live streams"): `GET P/live` where a type exposes
// `subscribe` is a `text/event-stream` of its committed creates, updates and deletes, fed by
// the store's commit events and resumable from its durable change log (`Last-Event-ID`).
//
// Each stream is an SseStream (../sse.ts): bounded, so a client that stops reading only ever
// loses its own stream (a `reset` event, then the close) and never slows a writer or another
// stream. A resumed stream replays the log while it already listens for new commits; events it
// hears meanwhile are held (bounded too) and sent after the replay, each change once, by seq.

import type { CatalogType } from "../../model/app.js";
import { createSseStream, type SseStream } from "../sse.js";
import type { ListQuery, Row, RowChange, Store } from "../../model/store.js";
import { canonicalForms, rowFilter } from "../store/row-match.js";

export interface LiveStreamOptions {
  /** Keep-alive comment interval. Default 15 s. */
  keepAliveMs?: number;
  /** Bytes of unsent events a stream may queue before it is reset and closed. Default 4 MiB. */
  maxQueuedBytes?: number;
  /** Changes a replaying stream may hold back for after the replay. Default 4,096. */
  maxHeldChanges?: number;
  /** How long an unfiltered stream's events wait to be sent together (TableFeed). Default 5 ms. */
  coalesceMs?: number;
}

export interface LiveStreams {
  /** A stream of `type`'s changes passing `where`; `resumeAfter`: the client's Last-Event-ID. */
  open(
    type: CatalogType,
    where: NonNullable<ListQuery["where"]>,
    resumeAfter: number | undefined,
  ): ReadableStream<Uint8Array>;
  /** Server shutdown: every open stream ends. */
  closeAll(): void;
  readonly openCount: number;
}

/** Changes read from the log per page while replaying. */
const replayPage = 256;

/** The `data` of one event: what changed, as JSON written once per change for every stream. */
const eventFrames = new WeakMap<RowChange, string>();

function eventFrame(change: RowChange): string {
  let frame = eventFrames.get(change);
  if (frame === undefined) {
    const data = JSON.stringify({ op: change.op, id: change.id, row: change.row });
    frame = `event: ${change.op}\n${change.seq !== undefined ? `id: ${change.seq}\n` : ""}data: ${data}\n\n`;
    eventFrames.set(change, frame);
  }
  return frame;
}

const encoder = new TextEncoder();

/**
 * Every event of `table` in one commit, as the bytes an unfiltered stream sends: built once per
 * commit and shared by all those streams, so a commit costs each of them one queued chunk and
 * one socket write, however many streams listen and however many writes it grouped.
 */
const commitFrames = new WeakMap<
  readonly RowChange[],
  Map<string, { bytes: Uint8Array; lastSeq: number | undefined }>
>();

function framesOfCommit(
  changes: readonly RowChange[],
  table: string,
): { bytes: Uint8Array; lastSeq: number | undefined } {
  let byTable = commitFrames.get(changes);
  if (byTable === undefined) commitFrames.set(changes, (byTable = new Map()));
  let frames = byTable.get(table);
  if (frames === undefined) {
    let text = "";
    let lastSeq: number | undefined;
    for (const change of changes) {
      if (change.table !== table) continue;
      text += eventFrame(change);
      if (change.seq !== undefined) lastSeq = change.seq;
    }
    frames = { bytes: encoder.encode(text), lastSeq };
    byTable.set(table, frames);
  }
  return frames;
}

/**
 * `reset`: the client missed changes it cannot get back (the log no longer holds them, or its
 * stream fell too far behind). It should reload what it shows; with an `id`, events go on from
 * there on this stream, without one the stream closes and a reconnect resumes from the last id.
 */
function resetFrame(reason: "retention" | "overflow", newest?: number): string {
  const detail =
    reason === "retention"
      ? "Changes after Last-Event-ID are no longer in the change log (or the id is not one of this server's); reload the rows. Events continue from here."
      : "This stream fell too far behind and is closed; reconnect with Last-Event-ID to resume.";
  return `event: reset\n${newest !== undefined ? `id: ${newest}\n` : ""}data: ${JSON.stringify({ reason, detail })}\n\n`;
}

/**
 * The unfiltered live streams of one table opened without Last-Event-ID share one buffer: a
 * commit appends its frames once, and every `coalesceMs` the buffer goes to each stream as one
 * chunk, so one socket write carries every commit of that interval. A commit then costs the same
 * however many streams are open, and a stream one write per interval: per-commit writes to a
 * hundred streams cost more than the commits themselves (bench/live/socket-floor.mjs).
 */
interface TableFeed {
  join(stream: SseStream): void;
  leave(stream: SseStream): void;
}

function createTableFeed(store: Store, table: string, coalesceMs: number, bound: number): TableFeed {
  const members = new Set<SseStream>();
  /** Each buffered commit's frames, in commit order. */
  let commits: Uint8Array[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (commits.length === 0) return;
    const parts = commits;
    const chunk = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    commits = [];
    bytes = 0;
    for (const stream of members) {
      // A stream that has taken everything so far takes the interval whole, even past its bound
      // (its client keeps up); one that has not, commit by commit, so it overflows where a
      // stream of single events would.
      const room = stream.room();
      if (room >= chunk.byteLength || room >= bound) stream.send(chunk);
      else for (const part of parts) if (!stream.send(part)) break;
    }
  };
  const onCommit = (changes: readonly RowChange[]) => {
    const frames = framesOfCommit(changes, table).bytes;
    if (frames.length === 0) return;
    commits.push(frames);
    bytes += frames.byteLength;
    timer ??= setTimeout(flush, coalesceMs);
  };
  return {
    join(stream) {
      // What is buffered was committed before this stream opened: it goes to the others first.
      flush();
      members.add(stream);
      stopListening ??= store.onCommit(onCommit);
    },
    leave(stream) {
      members.delete(stream);
      if (members.size > 0) return;
      flush();
      stopListening?.();
      stopListening = undefined;
    },
  };
}

export function createLiveStreams(
  store: Store,
  log: (line: string) => void,
  options: LiveStreamOptions = {},
): LiveStreams {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const maxQueuedBytes = options.maxQueuedBytes ?? 4 * 1024 * 1024;
  const coalesceMs = options.coalesceMs ?? 5;
  const maxHeld = options.maxHeldChanges ?? 4096;
  const open = new Set<SseStream>();
  const feeds = new Map<string, TableFeed>();
  const feedOf = (table: string) => {
    let feed = feeds.get(table);
    if (!feed) feeds.set(table, (feed = createTableFeed(store, table, coalesceMs, maxQueuedBytes)));
    return feed;
  };

  return {
    open(type, where, resumeAfter) {
      const passes = where.length === 0 ? () => true : rowFilter(where, canonicalForms(type));
      let last = resumeAfter ?? 0;
      let replaying = resumeAfter !== undefined;
      const held: RowChange[] = [];
      // Unfiltered and from now on: the table's shared feed sends this stream's events.
      const feed = where.length === 0 && !replaying ? feedOf(type.table) : undefined;
      const stream = createSseStream({
        keepAliveMs,
        maxQueuedFrames: 0,
        maxQueuedBytes,
        overflowFrame: resetFrame("overflow"),
        onClose: () => {
          stopListening();
          feed?.leave(stream);
          open.delete(stream);
        },
      });
      open.add(stream);

      /** The frame of `change` when this stream sends it: not sent yet, and passing the filters. */
      const frameFor = (change: RowChange): string | undefined => {
        if (change.seq !== undefined) {
          if (change.seq <= last) return undefined;
          last = change.seq;
        }
        // A deleted row cannot be tested against the filters: every delete is sent.
        if (change.row !== null && !passes(change.row as Row)) return undefined;
        return eventFrame(change);
      };
      const deliver = (change: RowChange) => {
        const frame = frameFor(change);
        if (frame !== undefined) stream.send(frame);
      };
      const stopListening = feed
        ? () => {}
        : store.onCommit((changes) => {
            if (replaying) {
              for (const change of changes) {
                if (change.table !== type.table) continue;
                if (held.length < maxHeld) held.push(change);
                else overflow();
              }
            } else if (where.length === 0) {
              // Live and unfiltered: every change of the table, newer than anything sent (seqs only grow).
              const { bytes, lastSeq } = framesOfCommit(changes, type.table);
              if (bytes.length === 0) return;
              if (lastSeq !== undefined) last = lastSeq;
              stream.send(bytes);
            } else {
              let text = "";
              for (const change of changes) if (change.table === type.table) text += frameFor(change) ?? "";
              if (text !== "") stream.send(text);
            }
          });
      const overflow = () => {
        if (stream.closed) return;
        stream.send(resetFrame("overflow"));
        stream.close();
      };

      // A first comment flushes the headers: the client sees the stream open at once.
      stream.send(": live\n\n");
      feed?.join(stream);
      if (replaying) {
        void (async () => {
          try {
            for (;;) {
              const page = await store.changesAfter(type.table, last, replayPage);
              if (page.gone) {
                stream.send(resetFrame("retention", page.newest));
                last = page.newest;
                break;
              }
              for (const change of page.changes) {
                await stream.whenWritable();
                if (stream.closed) return;
                deliver(change);
              }
              if (!page.more) break;
            }
          } catch (err) {
            log(`live stream of ${type.name}: replay failed: ${err instanceof Error ? err.message : String(err)}`);
            stream.close();
            return;
          }
          replaying = false;
          for (const change of held.splice(0)) deliver(change);
        })();
      }
      return stream.response;
    },
    closeAll() {
      for (const s of [...open]) s.close();
    },
    get openCount() {
      return open.size;
    },
  };
}
