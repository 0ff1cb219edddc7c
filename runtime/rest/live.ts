// REST live streams (spec/live.md, "REST live streams"): `GET P/live` where a type exposes
// `subscribe` is a `text/event-stream` of its committed creates, updates and deletes, fed by
// the store's commit events and resumable from its durable change log (`Last-Event-ID`).
//
// Each stream is an SseStream (../sse.ts): bounded, so a client that stops reading only ever
// loses its own stream (a `reset` event, then the close) and never slows a writer or another
// stream. A resumed stream replays the log while it already listens for new commits; events it
// hears meanwhile are held (bounded too) and sent after the replay, each change once, by seq.

import type { ServerResponse } from "node:http";
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
  /** The least an unfiltered stream's events wait to be sent together (TableFeed). Default 5 ms. */
  coalesceMs?: number;
}

export interface LiveStreams {
  /**
   * A stream of `type`'s changes passing `where`; `resumeAfter`: the client's Last-Event-ID;
   * `nodeResponse`: the node response that will answer with it, written to directly (../sse.ts).
   */
  open(
    type: CatalogType,
    where: NonNullable<ListQuery["where"]>,
    resumeAfter: number | undefined,
    nodeResponse?: ServerResponse,
  ): ReadableStream<Uint8Array>;
  /** Server shutdown: every open stream ends. */
  closeAll(): void;
  readonly openCount: number;
}

/** Changes read from the log per page while replaying. */
const replayPage = 256;

/** One event as a stream sends it. */
function eventText(change: RowChange): string {
  const data = JSON.stringify({ op: change.op, id: change.id, row: change.row });
  return `event: ${change.op}\n${change.seq !== undefined ? `id: ${change.seq}\n` : ""}data: ${data}\n\n`;
}

/** Every event of one table in one commit, and the newest change log position among them. */
interface CommitFrames {
  text: string;
  lastSeq: number | undefined;
}

/**
 * What the commit being delivered looks like to streams, built once and shared by all of them:
 * the store calls every commit listener in turn before the next commit, so keeping only the
 * latest commit's frames serves every stream and holds nothing past the next commit (a WeakMap
 * keyed by commit cost more in garbage collection than the events themselves).
 */
let delivering:
  | { changes: readonly RowChange[]; events: Map<RowChange, string>; tables: Map<string, CommitFrames> }
  | undefined;

function deliveringOf(changes: readonly RowChange[]) {
  if (delivering?.changes !== changes) delivering = { changes, events: new Map(), tables: new Map() };
  return delivering;
}

/** `change`'s event, built once per commit for every stream (`commit`: the commit it came in). */
function eventFrame(change: RowChange, commit?: readonly RowChange[]): string {
  if (commit === undefined) return eventText(change);
  const { events } = deliveringOf(commit);
  let frame = events.get(change);
  if (frame === undefined) events.set(change, (frame = eventText(change)));
  return frame;
}

/** Every event of `table` in one commit: what an unfiltered stream sends of it. */
function framesOfCommit(changes: readonly RowChange[], table: string): CommitFrames {
  const { tables } = deliveringOf(changes);
  let frames = tables.get(table);
  if (frames === undefined) {
    let text = "";
    let lastSeq: number | undefined;
    for (const change of changes) {
      if (change.table !== table) continue;
      text += eventFrame(change, changes);
      if (change.seq !== undefined) lastSeq = change.seq;
    }
    tables.set(table, (frames = { text, lastSeq }));
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
 * commit appends its frames once, and a few ms later (`coalesceMs`, stretched by feedShare) the
 * buffer goes to each stream as one chunk, so one socket write carries every commit of that
 * interval. A commit then costs the same however many streams are open, and a stream one write
 * per interval: per-commit writes to a hundred streams cost more than the commits themselves
 * (bench/live/socket-floor.mjs).
 */
interface TableFeed {
  join(stream: SseStream): void;
  leave(stream: SseStream): void;
}

/**
 * The share of the process's CPU a feed may spend writing to its streams: a flush that cost c ms
 * (its socket writes included) lets the next start no sooner than c / feedShare ms after it
 * (at most maxFeedDelayMs), and never sooner than coalesceMs after the commit it carries. A
 * socket write costs the kernel microseconds whatever it carries (bench/live/socket-floor.mjs),
 * so under a steady stream of writes to many streams the flushes space out, more commits share
 * each write, and writers keep the rest of the CPU; with few streams, or writes far apart, a
 * commit goes out coalesceMs after it.
 */
const feedShare = 0.05;
const maxFeedDelayMs = 100;

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

function createTableFeed(store: Store, table: string, coalesceMs: number, bound: number): TableFeed {
  const members = new Set<SseStream>();
  /** Each buffered commit's frames, in commit order. */
  let commits: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  /** When (performance.now()) the next flush may start: the last one's start and its spacing. */
  let nextFlushAt = 0;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (commits.length === 0) return;
    const parts = commits;
    // Encoded once for every stream.
    const chunk = Buffer.from(parts.length === 1 ? parts[0]! : parts.join(""));
    commits = [];
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    for (const stream of members) {
      // A stream that has taken everything so far takes the interval whole, even past its bound
      // (its client keeps up); one that has not, commit by commit, so it overflows where a
      // stream of single events would.
      const room = stream.room();
      if (room >= chunk.byteLength || room >= bound) stream.send(chunk);
      else for (const part of parts) if (!stream.send(part)) break;
    }
    // node makes the writes (a system call each) when it uncorks the sockets on the next tick:
    // the cost is read after those.
    process.nextTick(() => {
      const flushCpu = cpuMs(process.cpuUsage(cpuStart));
      nextFlushAt = started + Math.min(maxFeedDelayMs, flushCpu / feedShare);
    });
  };
  const onCommit = (changes: readonly RowChange[]) => {
    const frames = framesOfCommit(changes, table).text;
    if (frames === "") return;
    commits.push(frames);
    timer ??= setTimeout(flush, Math.max(coalesceMs, nextFlushAt - performance.now()));
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
    open(type, where, resumeAfter, nodeResponse) {
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
        ...(nodeResponse ? { nodeResponse } : {}),
        onClose: () => {
          stopListening();
          feed?.leave(stream);
          open.delete(stream);
        },
      });
      open.add(stream);

      /**
       * The frame of `change` when this stream sends it: not sent yet, and passing the filters.
       * `commit`: the commit being delivered, when it comes from one (its frames are shared).
       */
      const frameFor = (change: RowChange, commit?: readonly RowChange[]): string | undefined => {
        if (change.seq !== undefined) {
          if (change.seq <= last) return undefined;
          last = change.seq;
        }
        // A deleted row cannot be tested against the filters: every delete is sent.
        if (change.row !== null && !passes(change.row as Row)) return undefined;
        return eventFrame(change, commit);
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
              const { text, lastSeq } = framesOfCommit(changes, type.table);
              if (text === "") return;
              if (lastSeq !== undefined) last = lastSeq;
              stream.send(text);
            } else {
              let text = "";
              for (const change of changes) if (change.table === type.table) text += frameFor(change, changes) ?? "";
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
