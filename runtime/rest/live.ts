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

export function createLiveStreams(
  store: Store,
  log: (line: string) => void,
  options: LiveStreamOptions = {},
): LiveStreams {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const maxQueuedBytes = options.maxQueuedBytes ?? 4 * 1024 * 1024;
  const maxHeld = options.maxHeldChanges ?? 4096;
  const open = new Set<SseStream>();

  return {
    open(type, where, resumeAfter) {
      const passes = where.length === 0 ? () => true : rowFilter(where, canonicalForms(type));
      let last = resumeAfter ?? 0;
      let replaying = resumeAfter !== undefined;
      const held: RowChange[] = [];
      const stream = createSseStream({
        keepAliveMs,
        maxQueuedFrames: 0,
        maxQueuedBytes,
        overflowFrame: resetFrame("overflow"),
        onClose: () => {
          stopListening();
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
      const stopListening = store.onCommit((changes) => {
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
