// Group commit of creates on PostgreSQL (spec/storage.md, "PostgreSQL"): the creates that wait
// while the groups in flight run are taken together, as one group, into one transaction, one
// after another, and committed once: one BEGIN, one COMMIT (with every audit entry) and one
// WAL flush for all of them instead of one each. store.ts runs a group and settles each of
// its writes; this module only forms the groups.
//
// Few groups run at once (`maxInFlight`): the creates that arrive meanwhile wait, so under
// load the groups grow instead of the transactions multiplying. A create that arrives while
// there is room starts at once (on setImmediate, with whatever arrived in the same turn).

import type { AuditRecord, StoreTx, WriteOptions } from "../../../model/store.js";

export interface GroupedWrite {
  fn: (tx: StoreTx) => Promise<unknown>;
  signal: AbortSignal | undefined;
  /** WriteOptions.soleInsert and .audit: the write may go as one statement of its own (store.ts). */
  soleInsert: string | undefined;
  audit: AuditRecord | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Enough to share a commit widely; few enough that one group never holds a connection long. */
const maxGroupSize = 64;

export class WriteGroups {
  private readonly waiting: GroupedWrite[] = [];
  private inFlight = 0;
  private isScheduled = false;

  /** `run` settles every write of the group it is given, and never rejects. */
  constructor(
    private readonly run: (group: GroupedWrite[]) => Promise<void>,
    private readonly maxInFlight: number,
  ) {}

  add<T>(fn: (tx: StoreTx) => Promise<T>, options: WriteOptions): Promise<T> {
    const { signal, soleInsert, audit } = options;
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, signal, soleInsert, audit, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.isScheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.isScheduled = true;
    setImmediate(() => {
      this.isScheduled = false;
      while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
        this.inFlight++;
        void this.run(this.waiting.splice(0, maxGroupSize)).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }
}
