// The Store interface: what the operation layer needs from a database, and nothing more.
// Implementations: SQLite (sqlite.ts, the embedded default). PostgreSQL comes later.
//
// Rows are JSON objects as the API shows them (nested structs and arrays included); how they
// are laid out in columns is the implementation's business.
//
// Every method is async so the same generated operations run over SQLite and PostgreSQL.

export type Row = Record<string, unknown>;

/**
 * `==`/`!=` with null test for absence; `in` takes a non-empty array; `contains` a string,
 * matched case-insensitively (Unicode lower case on both sides).
 */
export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "contains";

export interface ListQuery {
  /** ANDed conditions on top-level stored scalar columns (and `id`). */
  where?: { column: string; op: Comparison; value: unknown }[];
  /**
   * Row order: ascending id unless a column is named; ties on the column are broken by id in
   * the same direction. Nulls come first ascending and last descending.
   */
  sort?: { column: string; descending: boolean };
  /**
   * Keyset pagination: only the rows after this one in the query's order, given by its id and
   * (under a `sort`) its value of the sort column, as a row shows it.
   */
  after?: { id: number; value?: unknown };
  /** At most this many rows. */
  limit?: number;
}

export interface StoreTx {
  get(table: string, id: number): Promise<Row | undefined>;
  /** Rows in ascending id order, or as `query.sort` says. */
  list(table: string, query?: ListQuery): Promise<Row[]>;
  /** Rows matching `query.where`; sort, after and limit are ignored. */
  count(table: string, query?: ListQuery): Promise<number>;
  /** Mints the id; returns the stored row. Throws StoreConstraintError on a unique violation. */
  insert(table: string, values: Row): Promise<Row>;
  /** Shallow merge of top-level fields; undefined when no such row. */
  update(table: string, id: number, patch: Row): Promise<Row | undefined>;
  /** False when no such row. Also deletes the link-type rows that have this row as an endpoint. */
  delete(table: string, id: number): Promise<boolean>;
  /**
   * Runs `fn` inside a savepoint of this write transaction: when it throws, its writes are
   * undone (the transaction goes on) and the error is rethrown. `expect_abort` in tests.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /** Rows elsewhere whose `ref` columns point at (table, id): used to refuse a delete. Link endpoints do not count. */
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
