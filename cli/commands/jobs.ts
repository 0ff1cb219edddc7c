// `wo jobs [dir] [--status S] [--name N] [--json] [--db PATH]`: prints the app's job outbox
// (spec/operations.md, "Jobs"), newest first: each job's name, status, attempts, when it runs
// next and its last error. It reads the database read-only (runtime/store/jobs-reader.ts), so it
// works while `wo run` serves; wo.toml's [database] says where the data is, as for `wo run`.

import { resolve } from "node:path";
import { readAppConfig } from "./app-config.js";
import { textTable } from "./text-table.js";
import { jobStatuses, StoreOpenError, type Job, type JobStatus } from "../../model/store.js";
import { openJobsReader } from "../../runtime/store/jobs-reader.js";
import type { ParsedArgs } from "./args.js";

/** The newest jobs shown. */
const shown = 1000;

export async function runJobsCommand(args: ParsedArgs): Promise<number> {
  const dir = resolve(args.first ?? ".");
  const status = args.value("--status");
  if (status !== undefined && !jobStatuses.includes(status as JobStatus))
    return fail(`--status takes ${jobStatuses.join(", ")}, not '${status}'.`);
  const name = args.value("--name");

  const config = readAppConfig(dir);
  if (config === undefined) return fail("wo.toml has errors; fix them and run again.");

  let reader;
  try {
    const db = args.value("--db");
    reader = await openJobsReader({ appDir: dir, config, ...(db !== undefined ? { db } : {}) });
  } catch (err) {
    if (err instanceof StoreOpenError) return fail(err.message);
    throw err;
  }
  let jobs: Job[];
  try {
    jobs = await reader.list({
      limit: shown,
      ...(status !== undefined ? { status: status as JobStatus } : {}),
      ...(name !== undefined ? { name } : {}),
    });
  } finally {
    await reader.close();
  }
  process.stdout.write(args.has("--json") ? `${JSON.stringify(jobs, null, 2)}\n` : jobsTable(jobs));
  return 0;
}

const headings = ["ID", "NAME", "STATUS", "ATTEMPTS", "RUN AT", "FROM", "LAST ERROR"];

/** One line per job under a heading, each column as wide as its widest cell. */
export function jobsTable(jobs: readonly Job[]): string {
  if (jobs.length === 0) return "No jobs.\n";
  const rows = jobs.map((j) => [
    String(j.id),
    j.name,
    j.status,
    String(j.attempts),
    j.status === "pending" ? j.runAt : j.status === "running" ? `until ${j.claimedUntil ?? "-"}` : "-",
    `${j.type} ${j.rowId}`,
    j.lastError ?? "-",
  ]);
  return textTable(headings, rows);
}

function fail(message: string): number {
  process.stderr.write(`wo jobs: ${message}\n`);
  return 1;
}
