// Preloaded into a `wo run` by run.mjs (`node --import`): counts the round trips the process
// makes to PostgreSQL, i.e. its calls of pg's Client#query (one query message and its answer;
// a simple query holding several statements, like wo's `BEGIN; SELECT pg_advisory_xact_lock…`,
// is one), and writes the count so far to the file WO_BENCH_ROUND_TRIPS names on SIGUSR2.
// `pg` resolves to the same module as the server's (one node_modules), so the patch reaches
// its pool.
import { writeFileSync } from "node:fs";
import pg from "pg";

let sent = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  sent++;
  return query.apply(this, args);
};
process.on("SIGUSR2", () => writeFileSync(process.env.WO_BENCH_ROUND_TRIPS, String(sent)));
