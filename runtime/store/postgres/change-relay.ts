// Change events across instances (spec/storage.md, "PostgreSQL"): each write transaction that
// changed rows also sends them with pg_notify inside the transaction, so PostgreSQL delivers
// them only if it commits, in commit order; every instance LISTENs on one channel and hands
// the changes of the other instances to its own commit listeners (REST live streams, MCP row
// subscriptions). A REST stream that missed some resumes from the durable change log by
// Last-Event-ID as on one instance.
//
// A NOTIFY payload holds at most 8000 bytes: the changes go in as many notifications as they
// need, and a single change too large for one is sent without its row, which the receiver then
// reads itself (so it sees that row as it is by then, not necessarily as it was committed).

import { randomUUID } from "node:crypto";
import pg from "pg";
import { emittedEvents, servesLiveStream, type Catalog } from "../../../model/app.js";
import { eventLogTable, type RowChange } from "../../../model/store.js";

export const changeChannel = "wo_changes";
const maxPayloadBytes = 7900;

interface Envelope {
  from: string;
  changes: (RowChange & { rowOmitted?: true })[];
}

/**
 * The tables whose changes another instance may have a listener for: those of types with a
 * REST live stream or exposed over MCP (row subscriptions), and the application events where a
 * trigger emits one (their streams and `wo://events`). Only these are sent: a NOTIFY
 * makes its COMMIT wait for every other notifying COMMIT (PostgreSQL queues notifications in
 * commit order under one lock held through the WAL flush), and wakes every instance's relay.
 */
export function relayedTables(catalog: Catalog): ReadonlySet<string> {
  const tables = new Set(catalog.types.filter((t) => servesLiveStream(t) || t.mcp.length > 0).map((t) => t.table));
  if (emittedEvents(catalog).length > 0) tables.add(eventLogTable);
  return tables;
}

/** The notifications that carry `changes` from instance `from`. */
export function changePayloads(from: string, changes: readonly RowChange[]): string[] {
  const out: string[] = [];
  let batch: Envelope["changes"] = [];
  const flush = () => {
    if (batch.length > 0) out.push(JSON.stringify({ from, changes: batch }));
    batch = [];
  };
  for (const change of changes) {
    const fits = (c: Envelope["changes"]) => Buffer.byteLength(JSON.stringify({ from, changes: c })) <= maxPayloadBytes;
    if (fits([...batch, change])) {
      batch.push(change);
      continue;
    }
    flush();
    batch.push(fits([change]) ? change : { ...change, row: null, rowOmitted: true });
  }
  flush();
  return out;
}

/**
 * Listens for the other instances' changes on its own connection, and reconnects (every
 * second) after losing the server. `deliver` gets them in the order they were committed.
 */
export class ChangeRelay {
  readonly instanceId = randomUUID();
  private client: pg.Client | undefined;
  private isClosed = false;
  private retry: NodeJS.Timeout | undefined;
  /** Changes whose row must be read first are delivered in order behind that read. */
  private delivering: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly deliver: (changes: RowChange[]) => void,
    /** The row of a change sent without it (by its table and id, or its change log seq). */
    private readonly readRow: (change: RowChange) => Promise<Record<string, unknown> | null>,
  ) {}

  async start(): Promise<void> {
    if (this.isClosed) return;
    const client = new pg.Client(this.config);
    client.on("error", () => this.reconnectLater(client));
    client.on("end", () => this.reconnectLater(client));
    client.on("notification", (n) => this.receive(n.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${changeChannel}`);
      this.client = client;
    } catch {
      this.reconnectLater(client);
    }
  }

  private reconnectLater(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
    if (this.isClosed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.start();
    }, 1000);
    this.retry.unref();
  }

  private receive(payload: string | undefined): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload ?? "") as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.instanceId || !Array.isArray(envelope.changes)) return;
    this.delivering = this.delivering.then(async () => {
      const changes: RowChange[] = [];
      for (const c of envelope.changes) {
        const { rowOmitted, ...change } = c;
        if (rowOmitted && change.op !== "delete") change.row = await this.readRow(change).catch(() => null);
        changes.push(change);
      }
      this.deliver(changes);
    });
  }

  async close(): Promise<void> {
    this.isClosed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }
}
