// The callers' rate-limit buckets on PostgreSQL (spec/operations.md, "Rate limits"):
// `_wo_rate_buckets`, one row per caller and kind, shared by every instance on the database.
// Each take is one statement — an upsert that refills the bucket for the time since its last
// take and takes a token if there is one — so two instances taking from one bucket at once are
// ordered by the row lock and never both spend its last token; no advisory lock is needed. Time
// is the database's clock (`statement_timestamp()`), so instances whose clocks disagree still
// refill one bucket at one rate.

import type pg from "pg";
import type { BucketTake, RateBucketDirectory } from "../../../model/store.js";

export const rateBucketTable = "_wo_rate_buckets";

/**
 * `at`: seconds since the epoch of the last take; `granted`: whether that take got a token.
 * UNLOGGED: a take writes no WAL, so it commits without waiting for a disk flush (one per
 * read would cost more than the read). After a crash the table is empty, i.e. every bucket is
 * full, which is a fresh minute for every caller and loses nothing else.
 */
export const pgCreateRateBucketTableSql = `CREATE UNLOGGED TABLE IF NOT EXISTS "${rateBucketTable}" ("key" TEXT PRIMARY KEY, "tokens" DOUBLE PRECISION NOT NULL, "at" DOUBLE PRECISION NOT NULL, "granted" BOOLEAN NOT NULL)`;

// $1 key, $2 capacity, $3 tokens per second. `level` is the bucket refilled to now; a statement
// that started before another's but waited for its row lock sees a negative interval, so the
// refill is never below zero and `at` never goes back.
const level = `least($2::float8, b."tokens" + greatest(0, EXCLUDED."at" - b."at") * $3::float8)`;
const takeSql = `INSERT INTO "${rateBucketTable}" AS b ("key", "tokens", "at", "granted")
VALUES ($1, $2::float8 - 1, extract(epoch FROM statement_timestamp()), true)
ON CONFLICT ("key") DO UPDATE SET
  "tokens" = CASE WHEN ${level} >= 1 THEN ${level} - 1 ELSE ${level} END,
  "granted" = ${level} >= 1,
  "at" = greatest(b."at", EXCLUDED."at")
RETURNING "granted", "tokens"`;

/** A bucket nobody took from for this long is full again (capacity is a minute's refill): its row can go. */
const fullAfterSeconds = 60;

type Query = (text: string, values: unknown[]) => Promise<pg.QueryResult>;

export function pgRateBuckets(query: Query, now: () => number = Date.now): RateBucketDirectory {
  let lastSweep = now();
  return {
    async take(key, capacity, perSecond): Promise<BucketTake> {
      const row = (await query(takeSql, [key, capacity, perSecond])).rows[0] as { granted: boolean; tokens: number };
      // At most once a minute per instance, the rows of full buckets go: a row per caller seen
      // in the last minute is what the table holds. Not awaited: a failure costs nothing but rows.
      if (now() - lastSweep > fullAfterSeconds * 1000) {
        lastSweep = now();
        query(`DELETE FROM "${rateBucketTable}" WHERE "at" < extract(epoch FROM statement_timestamp()) - $1::float8`, [
          fullAfterSeconds,
        ]).catch(() => undefined);
      }
      return row.granted
        ? { taken: true, waitSeconds: 0 }
        : { taken: false, waitSeconds: (1 - row.tokens) / perSecond };
    },
  };
}
