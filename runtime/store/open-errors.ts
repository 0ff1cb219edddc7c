// Why a store could not be opened, in words for the person running `wo run`. The CLI catches
// StoreOpenError, prints its message and exits 1 without a stack trace; anything else opening
// a store throws is a bug.

export class StoreOpenError extends Error {}

/** Another live process holds the data folder (lock.ts). */
export class DataLockError extends StoreOpenError {
  constructor(
    message: string,
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(message);
  }
}

/**
 * The catalog changed in ways that would drop or narrow stored data. `changes` lists each
 * one in words; the message names `--allow-destructive-migration`. Nothing was changed.
 */
export class MigrationRefusedError extends StoreOpenError {
  constructor(
    readonly file: string,
    readonly changes: string[],
    readonly blocked: string[],
  ) {
    super(refusalMessage(file, changes, blocked));
  }
}

function refusalMessage(file: string, changes: string[], blocked: string[]): string {
  const lines: string[] = [];
  if (changes.length > 0) {
    lines.push(`The database ${file} was not changed: the new .wo files would drop or narrow stored data:`);
    for (const c of changes) lines.push(`  - ${c}`);
    lines.push("To apply these changes anyway (this cannot be undone), run again with --allow-destructive-migration.");
  }
  if (blocked.length > 0) {
    lines.push(`The database ${file} was not changed: these changes cannot be applied to the stored data, even with --allow-destructive-migration:`);
    for (const c of blocked) lines.push(`  - ${c}`);
    lines.push("Fix the data (or the .wo files) and start again.");
  }
  return lines.join("\n");
}
