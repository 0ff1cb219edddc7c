// Durations as wo writes them: a whole number and a unit, `90s`, `15m`, `12h`, `30d`, `2w`.
// Read once here for `[audit] retention` in wo.toml (compiler/check/config.ts) and the relative
// `--since 1h` of `wo audit` (cli/commands/audit.ts) and `GET /_wo/audit?since=`.

const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export const durationForm = "a duration such as 90s, 15m, 12h, 30d or 2w";

/** The duration in milliseconds, or undefined when `text` is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,8})([smhdw])$/.exec(text.trim());
  return m ? Number(m[1]) * unitMs[m[2]!]! : undefined;
}

/** An ISO-8601 time, or a duration back from `now`, as ISO-8601 UTC; null when it is neither. */
export function sinceTime(text: string, now: number): string | null {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(now - ago).toISOString();
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}
