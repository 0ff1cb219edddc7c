// How messages name a PostgreSQL database: its URL with the password replaced by `***`. Its
// own module, free of `pg`, so that choosing a store (../open.ts) and the CLI can name a
// database without loading the driver.

/** The URL as messages show it: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the [database] url";
  }
}
