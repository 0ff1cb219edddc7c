// The Store interface: what the operation layer needs from a database, and nothing more.
// Implementations: SQLite (sqlite.ts, the embedded default). PostgreSQL comes later.
//
// Rows are JSON objects as the API shows them (nested structs and arrays included); how they
// are laid out in columns is the implementation's business.
//
// Every method is async so the same generated operations run over SQLite and PostgreSQL.

export type Row = Record<string, unknown>;

export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=";

export interface ListQuery {
  /** ANDed conditions on top-level stored scalar columns (and `id`). */
  where?: { column: string; op: Comparison; value: unknown }[];
  /** Keyset pagination: only rows with id > afterId, ascending id order. */
  afterId?: number;
  /** At most this many rows. */
  limit?: number;
}

export interface StoreTx {
  get(table: string, id: number): Promise<Row | undefined>;
  /** Rows in ascending id order. */
  list(table: string, query?: ListQuery): Promise<Row[]>;
  count(table: string, query?: ListQuery): Promise<number>;
  /** Mints the id; returns the stored row. Throws StoreConstraintError on a unique violation. */
  insert(table: string, values: Row): Promise<Row>;
  /** Shallow merge of top-level fields; undefined when no such row. */
  update(table: string, id: number, patch: Row): Promise<Row | undefined>;
  /** False when no such row. */
  delete(table: string, id: number): Promise<boolean>;
  /** Rows elsewhere whose `ref` columns point at (table, id): used to refuse a delete. */
  referrers(table: string, id: number): Promise<{ table: string; field: string; count: number }[]>;
}

export interface WriteOptions {
  /** When aborted before commit, the transaction rolls back and the call rejects. */
  signal?: AbortSignal;
}

export interface Store {
  /** A consistent read-only view of committed data. */
  read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * One transaction: resolves only after a durable commit; any rejection inside `fn` rolls
   * back every write of the call. Writers are serialized.
   */
  write<T>(fn: (tx: StoreTx) => Promise<T>, options?: WriteOptions): Promise<T>;
  close(): Promise<void>;
}

/**
 * The database cannot grow: the disk it is on is full, or it reached the size set with
 * `[database] max_bytes`. Nothing of the write was kept; reads still work, and writes work
 * again once space is freed. `message` says which, with the file, for the server log.
 */
export class StoreFullError extends Error {}

/** A constraint the store enforces itself, reported with the names a user wrote. */
export class StoreConstraintError extends Error {
  constructor(
    readonly constraint: "unique",
    readonly table: string,
    readonly fields: string[],
  ) {
    super(`${constraint} constraint on ${table}(${fields.join(", ")})`);
  }
}
