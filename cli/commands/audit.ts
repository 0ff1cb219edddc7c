// `wo audit [dir] [--since T] [--user U] [--json] [--db PATH]`: prints the app's audit trail
// (spec/operations.md, "Audit trail"), oldest first: who called, when, from where, what, and how
// it ended. It reads the database read-only (runtime/store/audit-reader.ts), so it works while
// `wo run` serves; wo.toml's [database] says where the data is, as for `wo run`.

import { resolve } from "node:path";
import { readAppConfig } from "./app-config.js";
import { textTable } from "./text-table.js";
import { durationForm, sinceTime } from "../../model/duration.js";
import { StoreOpenError, type AuditEntry } from "../../model/store.js";
import { openAuditReader } from "../../runtime/store/audit-reader.js";
import type { ParsedArgs } from "./args.js";

/** Entries fetched per query. */
const page = 1000;

export async function runAuditCommand(args: ParsedArgs): Promise<number> {
  const dir = resolve(args.first ?? ".");
  const sinceText = args.value("--since");
  const since = sinceText === undefined ? undefined : sinceTime(sinceText, Date.now());
  if (since === null)
    return fail(`--since takes an ISO-8601 time (2026-05-01T12:00:00Z) or ${durationForm} ago, not '${sinceText}'.`);
  const user = args.value("--user");

  const config = readAppConfig(dir);
  if (config === undefined) return fail("wo.toml has errors; fix them and run again.");

  let reader;
  try {
    const db = args.value("--db");
    reader = await openAuditReader({ appDir: dir, config, ...(db !== undefined ? { db } : {}) });
  } catch (err) {
    if (err instanceof StoreOpenError) return fail(err.message);
    throw err;
  }
  const entries: AuditEntry[] = [];
  try {
    for (let after: number | undefined; ; ) {
      const read = await reader.read({
        limit: page,
        ...(since !== undefined ? { since } : {}),
        ...(user !== undefined ? { user } : {}),
        ...(after !== undefined ? { after } : {}),
      });
      entries.push(...read.entries);
      if (!read.more) break;
      after = read.entries[read.entries.length - 1]!.seq;
    }
  } finally {
    await reader.close();
  }
  process.stdout.write(args.has("--json") ? `${JSON.stringify(entries, null, 2)}\n` : auditTable(entries));
  return 0;
}

const headings = ["TIME", "PRINCIPAL", "USER", "ROLE", "VIA", "SURFACE", "OPERATION", "ROW", "OUTCOME"];

/** One line per entry under a heading, each column as wide as its widest cell. */
export function auditTable(entries: readonly AuditEntry[]): string {
  if (entries.length === 0) return "No audit entries.\n";
  const rows = entries.map((e) => [
    e.at,
    e.principal,
    e.user ?? "-",
    e.role ?? "-",
    e.via,
    e.surface,
    e.operation,
    e.rowId === null ? "-" : String(e.rowId),
    e.outcome,
  ]);
  return textTable(headings, rows);
}

function fail(message: string): number {
  process.stderr.write(`wo audit: ${message}\n`);
  return 1;
}
