// The one stored form of a Timestamp: UTC with milliseconds, `2026-01-01T08:00:00.000Z` (what
// `now()` and Date#toISOString write). Inputs may carry any RFC 3339 offset; one instant must
// have one text, or an equality filter on the same instant written in UTC would miss the row
// and text order would not be time order. It is the Timestamp entry's canonical form in the
// scalar table (scalars.ts), which the store's row codec (every write and every filter operand)
// and the checker (literal defaults) both read, so they agree (spec/storage.md).

/**
 * `value` as a UTC timestamp with milliseconds; finer fractions are truncated. Anything that
 * is not a timestamp Date can represent in years 0000–9999 (a leap second `:60`, a non-string)
 * is returned unchanged: validation has already decided whether it is acceptable.
 */
export function utcTimestamp(value: unknown): unknown {
  if (typeof value !== "string") return value;
  // Date.parse reads RFC 3339's lower-case `t`/`z` only in upper case.
  const ms = Date.parse(value.toUpperCase());
  if (!Number.isFinite(ms)) return value;
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  return year < 0 || year > 9999 ? value : date.toISOString();
}
