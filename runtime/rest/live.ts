// REST live streams (spec/live.md, "REST live streams"): `GET P/live` where a type exposes
// `subscribe` is a `text/event-stream` of its committed creates, updates and deletes, fed by
// the store's commit events and resumable from its durable change log (`Last-Event-ID`).
//
// Each stream is an SseStream (../sse.ts): bounded, so a client that stops reading only ever
// loses its own stream (a `reset` event, then the close) and never slows a writer or another
// stream. A resumed stream replays the log while it already listens for new commits; events it
// hears meanwhile are held (bounded too) and sent after the replay, each change once, by seq;
// then it is fed like every caught-up stream, by its table's feed (TableFeed below).

import type { ServerResponse } from "node:http";
import type { Catalog, CatalogType } from "../../model/app.js";
import { createSseStream, type SseStream } from "../sse.js";
import { isRefusal, StreamBudget, type StreamRefusal, type StreamSlot } from "../stream-budget.js";
import { eventLogTable, type ListQuery, type Row, type RowChange, type Store } from "../../model/store.js";
import { eventFrame as appEventFrame } from "../app-events.js";
import type { RowCondition } from "../../model/policy.js";
import { catalogTables, queryCondition, readsThroughRefs, rowMatcher, rowTest } from "../store/conditions.js";

export interface LiveStreamOptions {
  /** Keep-alive comment interval. Default 15 s. */
  keepAliveMs?: number;
  /** Bytes of unsent events a stream may queue before it is reset and closed. Default 4 MiB. */
  maxQueuedBytes?: number;
  /** Changes a replaying stream may hold back for after the replay. Default 4,096. */
  maxHeldChanges?: number;
  /** The least an unfiltered stream's events wait to be sent together (TableFeed). Default 5 ms. */
  coalesceMs?: number;
  /** The process's stream budget (../stream-budget.ts), shared with MCP's streams. Default: one of its own. */
  budget?: StreamBudget;
}

/** Which changes a stream sends: its list filters, and the caller's read policy (store/conditions.ts). */
export interface LiveFilters {
  where: NonNullable<ListQuery["where"]>;
  /** The caller's read condition (runtime/operations/row-policy.ts); absent: every row. */
  filter?: RowCondition;
  /** The app's types, for the columns the conditions name. */
  catalog: Pick<Catalog, "types">;
}

export interface LiveStreams {
  /**
   * A stream of `type`'s changes passing `filters`; `resumeAfter`: the client's Last-Event-ID;
   * `nodeResponse`: the node response that will answer with it, written to directly (../sse.ts);
   * `caller`: whom the stream counts against (streamCallerOf). A refusal when the budget has
   * no room for it.
   */
  open(
    type: CatalogType,
    filters: LiveFilters,
    resumeAfter: number | undefined,
    nodeResponse?: ServerResponse,
    caller?: string,
  ): ReadableStream<Uint8Array> | StreamRefusal;
  /**
   * The app-wide stream of application events (`GET /api/_events`, runtime/app-events.ts): the
   * events `which` admits, resumable from the change log as a type's stream is.
   */
  openEvents(
    which: EventAdmission,
    resumeAfter: number | undefined,
    nodeResponse?: ServerResponse,
    caller?: string,
  ): ReadableStream<Uint8Array> | StreamRefusal;
  /** Server shutdown: every open stream ends. */
  closeAll(): void;
  readonly openCount: number;
}

/**
 * Which events an event stream sends: `passes` tests the event itself (its name), `audience`
 * whether the caller may read the row that emitted it (absent: the owner, who reads every row).
 */
export interface EventAdmission {
  passes?: (event: Row) => boolean;
  audience?: (change: RowChange) => Promise<boolean>;
}

/**
 * What one stream follows: a table's changes in the log (a type's, or the events'), how each is
 * framed, and which it sends — `passes`/`admitsDeleted` in memory, or `admitsAsync` where the
 * test needs the store (a read policy through refs, an event's audience).
 */
interface StreamSource {
  table: string;
  /** How the server log names it. */
  label: string;
  frame: (change: RowChange) => string;
  passes: ((row: Row) => boolean) | undefined;
  admitsDeleted?: (row: Row) => boolean;
  admitsAsync?: (change: RowChange) => Promise<boolean>;
}

/** Changes read from the log per page while replaying. */
const replayPage = 64;

/** One event as a stream sends it: built once, when its commit reaches the table's feed. */
function eventFrame(change: RowChange): string {
  const data = JSON.stringify({ op: change.op, id: change.id, row: change.row });
  return `event: ${change.op}\n${change.seq !== undefined ? `id: ${change.seq}\n` : ""}data: ${data}\n\n`;
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
 * Every live stream of one table that is caught up (opened without Last-Event-ID, or done with
 * its replay) is fed from one buffer: a commit appends its events once, and a few ms later
 * (`coalesceMs`, stretched by the feed's CPU share) the buffer goes to each stream as one
 * chunk, so one socket write carries every commit of that interval. Unfiltered streams all get
 * the same bytes; a filtered one, the events of the buffer that pass its filters. A commit then
 * costs the same however many streams are open, and a stream one write per interval:
 * per-commit writes to a hundred streams cost more than the commits themselves
 * (bench/live/socket-floor.mjs). A stream joins with the buffer just flushed to the others, so
 * the feed sends it only what committed after it joined: nothing repeats what its replay sent.
 */
interface TableFeed {
  join(member: FeedMember): void;
  leave(member: FeedMember): void;
}

interface FeedMember {
  stream: SseStream;
  /** The stream's filters; undefined: every change of the table. */
  passes: ((row: Row) => boolean) | undefined;
  /** Under a read policy: whether the caller could read a deleted row (its last committed form). */
  admitsDeleted?: (row: Row) => boolean;
  /**
   * Under a read policy through refs (which needs the store to test a row): the stream takes
   * the buffered commits itself, in order, instead of `passes`.
   */
  takes?: (changes: readonly RowChange[]) => void;
}

/** One buffered commit: its events of the table, each with its frame, and their text. */
interface BufferedCommit {
  events: { change: RowChange; frame: string }[];
  text: string;
}

/**
 * The share of the process's CPU a feed may spend writing to its streams: a flush that cost c ms
 * (its socket writes included) lets the next start no sooner than c / share ms after it (at
 * most maxFeedDelayMs), and never sooner than coalesceMs after the commit it carries. A socket
 * write costs the kernel microseconds whatever it carries, and each flush's bytes pass through
 * the core's caches (bench/live/socket-floor.mjs), so under a steady stream of writes to many
 * streams the flushes space out, more commits share each write, and writers keep the rest of
 * the CPU. The share is small only while the rest of the process kept the CPU busy since the
 * last flush (writers waiting): an idle server has nothing to save, and a commit goes out
 * coalesceMs after it.
 */
const busyFeedShare = 0.025;
const idleFeedShare = 0.25;
/**
 * The CPU share of everything but the flushes above which the process is taken to be busy,
 * averaged over about busyWindowMs (a few ms alone say little: one garbage collection fills
 * them): under a steady load of writes wo measured 0.8–0.97, answering one write at a time to
 * 100 streams 0.2–0.6 (bench/live/run.mjs).
 */
const busyCpu = 0.7;
const busyWindowMs = 100;
const maxFeedDelayMs = 100;

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

function createTableFeed(
  store: Store,
  table: string,
  coalesceMs: number,
  bound: number,
  frameOf: (change: RowChange) => string,
): TableFeed {
  const members = new Set<FeedMember>();
  /** The buffered commits, in commit order. */
  let commits: BufferedCommit[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  /** When (performance.now()) the next flush may start: the last one's start and its spacing. */
  let nextFlushAt = 0;
  /** The process's CPU use and the time at the last flush: how busy it was since. */
  let cpuMark = process.cpuUsage();
  let markedAt = performance.now();
  /** The CPU share of the rest of the process, averaged over the last busyWindowMs or so. */
  let othersCpu = 0;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (commits.length === 0) return;
    const buffered = commits;
    commits = [];
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    // Joined and encoded once for every unfiltered stream, when there is one.
    let texts: string[] | undefined;
    let whole: Uint8Array | undefined;
    for (const member of members) {
      if (member.takes) {
        member.takes(buffered.flatMap((c) => c.events.map((e) => e.change)));
        continue;
      }
      const sharesWhole = member.passes === undefined && member.admitsDeleted === undefined;
      const parts = sharesWhole ? (texts ??= buffered.map((c) => c.text)) : piecesFor(member, buffered);
      if (parts.length === 0) continue;
      const chunk = sharesWhole
        ? (whole ??= Buffer.from(parts.length === 1 ? parts[0]! : parts.join("")))
        : Buffer.from(parts.join(""));
      // A stream that has taken everything so far takes the interval whole, even past its bound
      // (its client keeps up); one that has not, commit by commit, so it overflows where a
      // stream of single events would.
      const room = member.stream.room();
      if (room >= chunk.byteLength || room >= bound) member.stream.send(chunk);
      else for (const part of parts) if (!member.stream.send(part)) break;
    }
    // node makes the writes (a system call each) when it uncorks the sockets on the next tick:
    // the cost is read after those.
    process.nextTick(() => {
      const flushCpu = cpuMs(process.cpuUsage(cpuStart));
      const now = performance.now();
      const elapsed = Math.max(1, now - markedAt);
      const sinceLast = (cpuMs(process.cpuUsage(cpuMark)) - flushCpu) / elapsed;
      othersCpu += (1 - Math.exp(-elapsed / busyWindowMs)) * (sinceLast - othersCpu);
      cpuMark = process.cpuUsage();
      markedAt = now;
      const share = othersCpu > busyCpu ? busyFeedShare : idleFeedShare;
      nextFlushAt = started + Math.min(maxFeedDelayMs, flushCpu / share);
    });
  };
  const onCommit = (changes: readonly RowChange[]) => {
    const events: BufferedCommit["events"] = [];
    let text = "";
    for (const change of changes) {
      if (change.table !== table) continue;
      const frame = frameOf(change);
      events.push({ change, frame });
      text += frame;
    }
    if (events.length === 0) return;
    commits.push({ events, text });
    timer ??= setTimeout(flush, Math.max(coalesceMs, nextFlushAt - performance.now()));
  };
  return {
    join(member) {
      // What is buffered was committed before this stream joined (and a resumed stream has
      // had it from its replay): it goes to the others first.
      flush();
      members.add(member);
      stopListening ??= store.onCommit(onCommit);
    },
    leave(member) {
      members.delete(member);
      if (members.size > 0) return;
      flush();
      stopListening?.();
      stopListening = undefined;
    },
  };
}

/** Whether a stream with `passes`/`admitsDeleted` sends `change` (a delete without its old row: yes). */
function admits(member: Pick<FeedMember, "passes" | "admitsDeleted">, change: RowChange): boolean {
  if (change.row !== null) return member.passes === undefined || member.passes(change.row as Row);
  return member.admitsDeleted === undefined || change.previous === undefined || member.admitsDeleted(change.previous);
}

/**
 * What a filtered stream sends of the buffered commits, one text per commit that has any: the
 * events that pass its filters (a deleted row cannot be tested: every delete passes).
 */
function piecesFor(member: FeedMember, buffered: readonly BufferedCommit[]): string[] {
  const pieces: string[] = [];
  for (const commit of buffered) {
    let text = "";
    for (const { change, frame } of commit.events) if (admits(member, change)) text += frame;
    if (text !== "") pieces.push(text);
  }
  return pieces;
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
  const budget = options.budget ?? new StreamBudget();
  const open = new Set<SseStream>();
  const feeds = new Map<string, TableFeed>();
  const feedOf = (table: string, frame: (change: RowChange) => string) => {
    let feed = feeds.get(table);
    if (!feed) feeds.set(table, (feed = createTableFeed(store, table, coalesceMs, maxQueuedBytes, frame)));
    return feed;
  };

  /** A stream of `source`: live from now, or replayed from the log after `resumeAfter` first. */
  const follow = (
    source: StreamSource,
    slot: StreamSlot,
    resumeAfter: number | undefined,
    nodeResponse: ServerResponse | undefined,
  ): ReadableStream<Uint8Array> => {
    const { table, frame, passes, admitsDeleted, admitsAsync } = source;
    const feed = feedOf(table, frame);
    const held: RowChange[] = [];
    /** While resuming: stops holding back the commits that come during the replay. */
    let stopHolding: (() => void) | undefined;
    const stream = createSseStream({
      keepAliveMs,
      maxQueuedFrames: 0,
      maxQueuedBytes,
      overflowFrame: resetFrame("overflow"),
      slot,
      ...(nodeResponse ? { nodeResponse } : {}),
      onClose: () => {
        stopHolding?.();
        feed.leave(member);
        open.delete(stream);
      },
    });
    const member: FeedMember = { stream, passes, ...(admitsDeleted ? { admitsDeleted } : {}) };
    if (admitsAsync) {
      let queue = Promise.resolve();
      member.takes = (changes) => {
        queue = queue.then(async () => {
          for (const change of changes) {
            if (stream.closed) return;
            if (await admitsAsync(change).catch(() => false)) stream.send(frame(change));
          }
        });
      };
    }
    /** While replaying: the newest change log position the stream was sent (positions only grow). */
    let last = resumeAfter ?? 0;
    open.add(stream);

    /** Sends `change` unless it was sent already or does not pass the filters (deletes: see admits). */
    const deliver = async (change: RowChange) => {
      if (change.seq !== undefined) {
        if (change.seq <= last) return;
        last = change.seq;
      }
      if (admitsAsync ? !(await admitsAsync(change)) : !admits(member, change)) return;
      stream.send(frame(change));
    };
    const overflow = () => {
      if (stream.closed) return;
      stream.send(resetFrame("overflow"));
      stream.close();
    };

    // A first comment flushes the headers: the client sees the stream open at once.
    stream.send(": live\n\n");
    if (resumeAfter === undefined) {
      feed.join(member);
      return stream.response;
    }
    // Resuming: the log is replayed while the commits meanwhile are held (bounded), then the
    // held ones are sent and the stream joins the feed, in one turn so that no commit falls
    // between them; positions keep each change sent once.
    stopHolding = store.onCommit((changes) => {
      for (const change of changes) {
        if (change.table !== table) continue;
        if (held.length < maxHeld) held.push(change);
        else overflow();
      }
    });
    void (async () => {
      try {
        for (;;) {
          // A page only once the client has taken what it was sent (all but drainedBytes), and
          // the rest of a page it falls behind on is read again later, not held meanwhile: a
          // replay to a client that does not read holds one frame beyond that, no more.
          await stream.whenDrained();
          // One page per turn of the event loop, among all replays: other requests go first.
          await slot.replayTurn();
          if (stream.closed) return;
          const page = await store.changesAfter(table, last, replayPage);
          if (page.gone) {
            stream.send(resetFrame("retention", page.newest));
            last = page.newest;
            break;
          }
          let isBehind = false;
          for (const change of page.changes) {
            if (stream.closed) return;
            if (stream.isBacklogged()) {
              isBehind = true;
              break;
            }
            await deliver(change);
          }
          if (!isBehind && !page.more) break;
        }
      } catch (err) {
        log(`${source.label}: replay failed: ${err instanceof Error ? err.message : String(err)}`);
        stream.close();
        return;
      }
      if (stream.closed) return;
      // The held changes are sent while holding goes on (a test through refs awaits the
      // store), then holding stops and the stream joins the feed in one turn.
      while (held.length > 0 && !stream.closed) await deliver(held.shift()!);
      stopHolding?.();
      stopHolding = undefined;
      feed.join(member);
    })();
    return stream.response;
  };

  return {
    open(type, filters, resumeAfter, nodeResponse, caller = "local") {
      const slot = budget.admit(caller);
      if (isRefusal(slot)) return slot;
      // The caller's read policy is tested per stream on each committed row: a change of a row
      // the caller may not read (also one an update makes unreadable) is not sent (spec/policies.md).
      const policy = filters.filter?.kind === "true" ? undefined : filters.filter;
      const tables = catalogTables(filters.catalog);
      const condition = queryCondition(type.table, { where: filters.where, ...(policy ? { filter: policy } : {}) });
      const throughRefs = policy !== undefined && readsThroughRefs(policy);
      const passes = throughRefs ? undefined : rowMatcher(condition, type.table, tables);
      const admitsDeleted = policy && !throughRefs ? rowMatcher(policy, type.table, tables) : undefined;
      /** A policy through refs: the row tested with the rows its refs name, read from the store. */
      const passesThroughRefs = throughRefs ? rowTest(store, condition!, type.table, tables) : undefined;
      const deletedThroughRefs = throughRefs ? rowTest(store, policy!, type.table, tables) : undefined;
      const admitsThroughRefs = async (change: RowChange): Promise<boolean> => {
        const row = change.row ?? change.previous;
        if (row === undefined || row === null) return true;
        return (change.row === null ? deletedThroughRefs! : passesThroughRefs!)(row);
      };
      const source: StreamSource = {
        table: type.table,
        label: `live stream of ${type.name}`,
        frame: eventFrame,
        passes,
        ...(admitsDeleted ? { admitsDeleted } : {}),
        ...(throughRefs ? { admitsAsync: admitsThroughRefs } : {}),
      };
      return follow(source, slot, resumeAfter, nodeResponse);
    },
    openEvents(which, resumeAfter, nodeResponse, caller = "local") {
      const slot = budget.admit(caller);
      if (isRefusal(slot)) return slot;
      const { passes, audience } = which;
      const source: StreamSource = {
        table: eventLogTable,
        label: "event stream",
        frame: appEventFrame,
        passes,
        ...(audience
          ? { admitsAsync: async (change) => (passes === undefined || passes(change.row!)) && (await audience(change)) }
          : {}),
      };
      return follow(source, slot, resumeAfter, nodeResponse);
    },
    closeAll() {
      for (const s of [...open]) s.close();
    },
    get openCount() {
      return open.size;
    },
  };
}
