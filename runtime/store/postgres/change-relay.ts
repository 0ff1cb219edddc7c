// Change events across instances (spec/storage.md, "PostgreSQL"): each write transaction that
// changed rows also sends them with pg_notify inside the transaction, so PostgreSQL delivers
// them only if it commits, in commit order; every instance LISTENs on one channel and hands
// the changes of the other instances to its own commit listeners (REST live streams, MCP row
// subscriptions). A REST stream that missed some resumes from the durable change log by
// Last-Event-ID as on one instance.
//
// Nobody else listening (one instance), nothing is sent: each relay registers in
// `_wo_listeners` (migrate.ts) once it LISTENs, and a write's notifications go out only if the
// table names another instance, checked in the write's own transaction (`othersListenSql`),
// which holds the table against a registration until it commits. A registration locks the
// table exclusively, so it waits for every write that checked without seeing it, and every
// write after it sees it: an instance has all changes committed after its registration.
// Rows of instances whose relay connection is gone (pg_stat_activity) are swept.
//
// A NOTIFY payload holds at most 8000 bytes: the changes go in as many notifications as they
// need, and a single change too large for one is sent without its row, which the receiver then
// reads itself (so it sees that row as it is by then, not necessarily as it was committed).

import { randomUUID } from "node:crypto";
import pg from "pg";
import { emittedEvents, servesLiveStream, type Catalog } from "../../../model/app.js";
import { eventLogTable, type RowChange } from "../../../model/store.js";
import { listenerTable } from "./migrate.js";

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
  // Each change is serialized once: an envelope is its head, the changes joined by commas, "]}".
  const head = `{"from":${JSON.stringify(from)},"changes":[`;
  const out: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (batch.length > 0) out.push(`${head}${batch.join(",")}]}`);
    batch = [];
    bytes = 0;
  };
  const room = maxPayloadBytes - Buffer.byteLength(head) - 2;
  for (const change of changes) {
    let json = JSON.stringify(change);
    let size = Buffer.byteLength(json);
    if (batch.length > 0 && bytes + 1 + size > room) flush();
    if (size > room) {
      json = JSON.stringify({ ...change, row: null, rowOmitted: true });
      size = Buffer.byteLength(json);
    }
    bytes += (batch.length > 0 ? 1 : 0) + size;
    batch.push(json);
  }
  flush();
  return out;
}

/** SQL that is true when an instance other than `instanceId` listens (and keeps out registrations until commit). */
export function othersListenSql(instanceId: string): string {
  return `EXISTS (SELECT 1 FROM "${listenerTable}" WHERE "instance" <> '${instanceId}')`;
}

/** How often a relay sweeps the registrations of instances gone and looks for others. */
const watchMs = 1000;

/**
 * Listens for the other instances' changes on its own connection, and reconnects (every
 * second) after losing the server. `deliver` gets them in the order they were committed.
 */
export class ChangeRelay {
  /** A UUID: safe to write into SQL as it is. */
  readonly instanceId = randomUUID();
  /**
   * Whether another instance listened when last looked (every second, and at registration):
   * a hint for how to write (tx.ts fitsSoleInsert); what is sent is decided in the writing
   * transaction (othersListenSql).
   */
  othersListen = true;
  private client: pg.Client | undefined;
  private isClosed = false;
  private retry: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
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
      // Listening first, then registered: whatever commits after the registration reaches us.
      const me = `'${this.instanceId}'`;
      await client.query(
        `BEGIN; LOCK TABLE "${listenerTable}" IN ACCESS EXCLUSIVE MODE; DELETE FROM "${listenerTable}" WHERE "instance" = ${me}; INSERT INTO "${listenerTable}" ("instance", "pid") VALUES (${me}, pg_backend_pid()); COMMIT`,
      );
      this.client = client;
      await this.look(client);
      this.watch ??= setInterval(() => {
        if (this.client !== undefined) void this.look(this.client);
      }, watchMs);
      this.watch.unref();
    } catch {
      this.reconnectLater(client);
    }
  }

  /** Sweeps the registrations whose connection is gone, then sees whether others are left. */
  private async look(client: pg.Client): Promise<void> {
    try {
      const results = (await client.query(
        `DELETE FROM "${listenerTable}" WHERE "pid" NOT IN (SELECT "pid" FROM pg_stat_activity WHERE "pid" IS NOT NULL); SELECT ${othersListenSql(this.instanceId)} AS "others"`,
      )) as unknown as pg.QueryResult[];
      this.othersListen = results[1]?.rows[0]?.others !== false;
    } catch {
      // A connection lost is reconnected by its own handlers; meanwhile assume others listen.
      this.othersListen = true;
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
    clearInterval(this.watch);
    await this.client
      ?.query(`DELETE FROM "${listenerTable}" WHERE "instance" = '${this.instanceId}'`)
      .catch(() => undefined);
    await this.client?.end().catch(() => undefined);
  }
}
