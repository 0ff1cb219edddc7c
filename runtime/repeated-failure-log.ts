// One log line per failed request is a flood when the cause persists: a full disk fails every
// write until someone frees space, and the log would grow on that very disk and bury
// everything else. So a persisting failure is logged once when it starts, its repeats are
// summed up in at most one line per interval, and the first success says it is over.

export interface RepeatedFailureWords {
  /** The line when `count` more failures happened since the last line, within `seconds`. */
  repeats(count: number, seconds: number): string;
  /** The line when a success follows `count` failures. */
  over(count: number): string;
}

export class RepeatedFailureLog {
  private isFailing = false;
  private total = 0;
  private unlogged = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: (line: string) => void,
    private readonly words: RepeatedFailureWords,
    private readonly intervalMs = 60_000,
  ) {}

  /** A failure: logged as `line` if it is the first since the last success, else counted. */
  failed(line: string): void {
    this.total++;
    if (!this.isFailing) {
      this.isFailing = true;
      this.log(line);
      return;
    }
    this.unlogged++;
    // unref: a pending summary never keeps the process alive.
    this.timer ??= setTimeout(() => this.summarize(), this.intervalMs).unref();
  }

  succeeded(): void {
    if (!this.isFailing) return;
    clearTimeout(this.timer);
    this.log(this.words.over(this.total));
    this.isFailing = false;
    this.total = 0;
    this.unlogged = 0;
    this.timer = undefined;
  }

  private summarize(): void {
    this.timer = undefined;
    if (this.unlogged === 0) return;
    this.log(this.words.repeats(this.unlogged, Math.round(this.intervalMs / 1000)));
    this.unlogged = 0;
  }
}
