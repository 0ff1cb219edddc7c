// The writer queue with group commit. write() callbacks run strictly one at a time on the
// writer connection (their async steps must never interleave two transactions), but the
// callbacks queued together share one COMMIT, and so one fsync:
//
//   BEGIN IMMEDIATE
//     SAVEPOINT w; callback 1; RELEASE w        (a failing callback: ROLLBACK TO w — only its
//     SAVEPOINT w; callback 2; RELEASE w         own writes go, the others stay)
//     …every callback queued by now…
//   COMMIT                                     → then every callback of the batch resolves
//
// Each callback still sees the writes of those before it, exactly as if run serially, and no
// write() resolves before the COMMIT that contains it is on disk. A batch starts on
// setImmediate, after the current poll phase, so requests that arrived together are batched.
// If the COMMIT fails, every callback of the batch rejects: none of them was acknowledged.
// The row changes of the callbacks that succeeded are handed to `onCommit` after the COMMIT,
// in order; those of a callback that rolled back are dropped with it.

import type { Connection, Statement } from "./connection.js";
import type { SqliteTx } from "./sqlite-tx.js";
import { StoreCancelledError, type RowChange } from "../../model/store.js";

interface Job {
  fn: (tx: SqliteTx) => Promise<unknown>;
  /** Runs alone, outside any batch transaction, on the bare connection (a migration). */
  exclusive?: (conn: Connection) => Promise<unknown>;
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  hasStarted: boolean;
  isSettled: boolean;
  cleanup?: () => void;
}

/** Enough to amortize the fsync; small enough that one batch never holds the writer long. */
const maxBatch = 512;

export class WriteQueue {
  private readonly jobs: Job[] = [];
  /** Callbacks of the running batch that succeeded and wait for its COMMIT. */
  private readonly batch: Job[] = [];
  /** The row changes of `batch`, in order: published once its COMMIT is durable. */
  private readonly batchChanges: RowChange[] = [];
  private isRunning = false;
  private readonly idleWaiters: (() => void)[] = [];
  /** Counters for tests and benchmarks: how well commits are shared. */
  readonly stats = { commits: 0, writes: 0 };
  /** Bumped right after each COMMIT returns, before any write() of it resolves. */
  commitSeq = 0;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;

  constructor(
    private readonly conn: Connection,
    private readonly openTx: () => SqliteTx,
    /** Right after each COMMIT, before any write() of it resolves, with the batch's changes. */
    private readonly onCommit: (changes: RowChange[]) => void,
    /** Inside each batch's transaction, just before its COMMIT (change-log pruning). */
    private readonly beforeCommit: () => void = () => {},
  ) {
    this.savepoint = conn.db.prepare("SAVEPOINT wo_write") as Statement;
    this.release = conn.db.prepare("RELEASE wo_write") as Statement;
    this.rollbackTo = conn.db.prepare("ROLLBACK TO wo_write") as Statement;
  }

  submit<T>(fn: (tx: SqliteTx) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(cancelled());
      const job: Job = {
        fn,
        signal,
        resolve: resolve as (v: unknown) => void,
        reject,
        hasStarted: false,
        isSettled: false,
      };
      if (signal) {
        // Cancelled while still queued: answer now, not after every write ahead of it.
        const onAbort = () => !job.hasStarted && settle(job, "reject", cancelled());
        signal.addEventListener("abort", onAbort, { once: true });
        // A signal may outlive many writes (one per connection): do not pile up listeners.
        job.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.jobs.push(job);
      if (!this.isRunning) {
        this.isRunning = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  /**
   * Runs `fn` on the writer connection between two batches, with no transaction open: it
   * brings its own (a migration: BEGIN IMMEDIATE … COMMIT). Writes queued before it commit
   * first; writes queued after it start once it is done. Counts as a commit.
   */
  exclusive<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({
        fn: async () => undefined,
        exclusive: fn,
        signal: undefined,
        resolve: resolve as (v: unknown) => void,
        reject,
        hasStarted: false,
        isSettled: false,
      });
      if (!this.isRunning) {
        this.isRunning = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  /** Resolves once every submitted write has settled. */
  whenIdle(): Promise<void> {
    return this.isRunning ? new Promise((r) => this.idleWaiters.push(r)) : Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.jobs.length > 0) {
      const alone = this.jobs[0]!.exclusive;
      if (alone) {
        const job = this.jobs.shift()!;
        job.hasStarted = true;
        try {
          const value = await alone(this.conn);
          this.commitSeq++;
          // A migration changes no rows: there is nothing to publish.
          this.onCommit([]);
          settle(job, "resolve", value);
        } catch (err) {
          this.conn.rollbackQuietly();
          settle(job, "reject", err);
        }
        continue;
      }
      try {
        await this.runBatch();
      } catch (err) {
        // A statement of the queue's own failed (BEGIN after a rollback, SAVEPOINT): nothing
        // of this batch is committed, so everything in it and behind it fails.
        this.conn.rollbackQuietly();
        this.batchChanges.length = 0;
        for (const job of [...this.batch.splice(0), ...this.jobs.splice(0)]) settle(job, "reject", err);
      }
    }
    this.isRunning = false;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private async runBatch(): Promise<void> {
    try {
      this.conn.beginImmediate.run();
    } catch (err) {
      // The database is locked by someone else past busy_timeout, or gone: fail what waits.
      for (const job of this.jobs.splice(0)) settle(job, "reject", err);
      return;
    }
    const values = new Map<Job, unknown>();
    for (let n = 0; n < maxBatch && this.jobs.length > 0 && !this.jobs[0]!.exclusive; n++) {
      const job = this.jobs.shift()!;
      if (job.isSettled) continue;
      job.hasStarted = true;
      this.savepoint.run();
      const tx = this.openTx();
      let value: unknown;
      let failure: { err: unknown } | undefined;
      try {
        value = await job.fn(tx);
        if (job.signal?.aborted) failure = { err: cancelled() };
      } catch (err) {
        failure = { err };
      }
      tx.finish();
      if (failure === undefined) {
        this.release.run();
        this.batch.push(job);
        for (const c of tx.changes) this.batchChanges.push(c);
        values.set(job, value);
        continue;
      }
      settle(job, "reject", failure.err);
      if (this.conn.db.inTransaction) {
        this.rollbackTo.run();
        this.release.run();
      } else {
        // Some errors (disk full, I/O) make SQLite roll back the whole transaction: the
        // writes of the earlier callbacks are gone too, so they fail rather than lie.
        const why = failure.err instanceof Error ? failure.err.message : String(failure.err);
        const rolledBack = new Error(`the write was rolled back together with a later one that failed: ${why}`, {
          cause: failure.err,
        });
        for (const j of this.batch.splice(0)) settle(j, "reject", rolledBack);
        this.batchChanges.length = 0;
        this.conn.beginImmediate.run();
      }
    }
    try {
      if (this.batch.length > 0) this.beforeCommit();
      this.conn.commit.run();
    } catch (err) {
      this.conn.rollbackQuietly();
      this.batchChanges.length = 0;
      for (const j of this.batch.splice(0)) settle(j, "reject", err);
      return;
    }
    this.commitSeq++;
    this.onCommit(this.batchChanges.splice(0));
    this.stats.commits++;
    this.stats.writes += this.batch.length;
    for (const j of this.batch.splice(0)) settle(j, "resolve", values.get(j));
  }
}

function settle(job: Job, how: "resolve" | "reject", value: unknown): void {
  if (job.isSettled) return;
  job.isSettled = true;
  job.cleanup?.();
  if (how === "resolve") job.resolve(value);
  else job.reject(value);
}

function cancelled(): StoreCancelledError {
  return new StoreCancelledError();
}
