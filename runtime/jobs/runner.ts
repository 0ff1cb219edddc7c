// The job runner of a `wo run` instance (spec/operations.md, "Jobs"): it claims the jobs of the
// outbox that a free fn of the serving build runs (the `(job) name` members of operations.js,
// model/build-contract.ts `jobOperation`) and runs each through the bound operations, like
// `on startup`: its own write transaction, a method's run budget, an audit record of its writes
// (surface `job`), the owner's authority. At least once: a claim holds a lease; a run that
// fails is retried after an exponential backoff with jitter until `max_attempts`, then the job
// is `failed` with its last error. It wakes when a commit wrote a job and otherwise looks every
// `poll_ms`, so jobs another instance wrote, or whose backoff ended, are found too.

import { jobOperation, type Operation } from "../../model/build-contract.js";
import { defaultJobSettings, type JobSettings } from "../../model/app.js";
import { ownerPrincipal } from "../../model/principal.js";
import { callContext } from "../operations/call-context.js";
import { jobsTable, type Job, type JobQueue, type Store } from "../../model/store.js";

export interface JobRunnerDeps {
  jobs: JobQueue;
  store: Pick<Store, "onCommit">;
  /** The operations of the build serving now (a swap under --watch changes them). */
  operations: () => Record<string, Operation>;
  settings?: JobSettings | undefined;
  log: (line: string) => void;
}

export interface JobRunner {
  /** Lets the job running now finish (its outcome recorded), then stops. */
  stop(): Promise<void>;
}

const prefix = jobOperation("");

/** The job names the serving build runs itself: the others wait for an external worker. */
export function runnableJobs(operations: Record<string, Operation>): string[] {
  return Object.keys(operations)
    .filter((k) => k.startsWith(prefix))
    .map((k) => k.slice(prefix.length));
}

/**
 * The delay before attempt `attempts + 1`: `retry_base_ms` doubled for each attempt made after
 * the first, at most `retry_max_ms`, of which a random part (up to a half) is left out, so
 * jobs that failed together do not all come back at once.
 */
export function retryDelay(settings: JobSettings, attempts: number, random: () => number = Math.random): number {
  const full = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full * (1 - random() / 2));
}

/**
 * Records a failed run of `job`: retried after the backoff while attempts remain, else failed.
 * The same rule for the runner and for an external worker's `fail`.
 */
export function failJob(
  jobs: JobQueue,
  settings: JobSettings,
  job: Pick<Job, "id" | "attempts">,
  error: string,
  attempt: number | undefined,
): Promise<Job | undefined> {
  const now = Date.now();
  const retryAt = job.attempts >= settings.maxAttempts ? undefined : now + retryDelay(settings, job.attempts);
  return jobs.fail(job.id, attempt, error, retryAt, now);
}

export function startJobRunner(deps: JobRunnerDeps): JobRunner {
  const settings = deps.settings ?? defaultJobSettings();
  let stopped = false;
  let wake: (() => void) | undefined;
  let woken = false;
  let storeTrouble = false;
  const stopListening = deps.store.onCommit((changes) => {
    if (!changes.some((c) => c.table === jobsTable)) return;
    woken = true;
    wake?.();
  });
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const runOne = async (job: Job, operation: Operation): Promise<void> => {
    try {
      await operation(job.args, callContext({ principal: ownerPrincipal, surface: "job" }));
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      const after = await failJob(deps.jobs, settings, job, message, job.attempts);
      const next =
        after?.status === "pending"
          ? `retried at ${after.runAt}`
          : `failed after ${job.attempts} attempt${job.attempts === 1 ? "" : "s"}`;
      deps.log(
        `job ${job.id} ${job.name}: attempt ${job.attempts} of ${settings.maxAttempts} failed (${message}); ${next}`,
      );
      return;
    }
    await deps.jobs.complete(job.id, job.attempts, Date.now());
  };

  const loop = (async () => {
    while (!stopped) {
      woken = false;
      const operations = deps.operations();
      const names = runnableJobs(operations);
      let job: Job | undefined;
      try {
        job =
          names.length === 0
            ? undefined
            : await deps.jobs.claim({
                only: names,
                leaseMs: settings.leaseSeconds * 1000,
                maxAttempts: settings.maxAttempts,
                now: Date.now(),
              });
        if (storeTrouble) deps.log("jobs: the job outbox can be read again");
        storeTrouble = false;
      } catch (err) {
        // The database is away or closing: said once, tried again at the next poll.
        if (!storeTrouble && !stopped) deps.log(`jobs: cannot claim a job: ${(err as Error).message}`);
        storeTrouble = true;
      }
      if (job === undefined) {
        await pause(settings.pollMs);
        continue;
      }
      const operation = operations[jobOperation(job.name)];
      try {
        if (operation) await runOne(job, operation);
      } catch (err) {
        // Its outcome could not be recorded: the lease runs out and the job is claimed again.
        if (!stopped) deps.log(`job ${job.id} ${job.name}: its outcome was not recorded: ${(err as Error).message}`);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      stopListening();
      wake?.();
      await loop;
    },
  };
}
