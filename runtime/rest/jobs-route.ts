// The worker API over REST (spec/rest.md, "Jobs"; spec/operations.md, "Jobs"): the jobs no fn of
// the build runs wait in the outbox for an external worker, who lists them, claims one, and
// says how it ended:
//   GET  /api/_jobs[?status=&name=]        the newest 100, as `{ items }`
//   POST /api/_jobs/claim                  `{ name?, lease_seconds? }` → 200 the job, 204 none due
//   POST /api/_jobs/:id/complete           → 200 the job; 409 when it is not running
//   POST /api/_jobs/:id/fail               `{ error }` → 200 the job, pending again or failed
// Who may: the owner and principals whose role `[jobs] worker_roles` lists (mayWorkJobs); the
// rest are refused (401 without credentials, 403 with). Each call is admitted as an operation is
// (bind.ts `admission`): a token of the caller's rate limit (reads for the list, writes for the
// rest) and a concurrency slot; its body is read by the one JSON reader
// (size limit, content type), and each claim, complete and fail is an audit record.

import { Hono, type Context } from "hono";
import { defaultJobSettings, jobsRoute, type JobSettings } from "../../model/app.js";
import type { CallContext } from "../../model/build-contract.js";
import { OperationError, RateLimitedError } from "../../model/errors.js";
import { isOwner, type Principal } from "../../model/principal.js";
import { jobStatuses, type Job, type JobQueue, type JobStatus, type Store } from "../../model/store.js";
import { anonymousRefusal } from "../identity/identity.js";
import { auditedCall } from "../operations/audit.js";
import { callContext } from "../operations/call-context.js";
import { failJob } from "../jobs/runner.js";
import type { Admission } from "../operations/bind.js";
import { readJsonObject } from "./body.js";
import { nodeBindings } from "../node-bindings.js";
import { problemResponse } from "./problem.js";

const jobsPath = jobsRoute;

/** The owner, and principals whose role is one of `[jobs] worker_roles`. */
export function mayWorkJobs(principal: Principal | undefined, settings: JobSettings): boolean {
  return isOwner(principal) || (principal?.role != null && settings.workerRoles.includes(principal.role));
}

export interface JobRouteDeps {
  jobs: JobQueue;
  store: Pick<Store, "write">;
  settings?: JobSettings | undefined;
  /** The job names the serving build runs itself: a worker never claims those. */
  runnable: () => string[];
  /** The caller's rate limit and a concurrency slot, as an operation takes them (bind.ts). */
  admit: Admission;
  maxBodyBytes: number;
  principalOf: (c: Context) => Principal | undefined;
  log: (line: string) => void;
}

const idText = /^[1-9][0-9]{0,15}$/;
/** A lease a worker may ask for: at most a day. */
const maxLeaseSeconds = 86_400;

export function createJobRoutes(deps: JobRouteDeps): Hono {
  const settings = deps.settings ?? defaultJobSettings();
  const app = new Hono({ strict: false });

  /** The caller, when it may work jobs; a Response when it is refused. */
  const admit = async (c: Context): Promise<CallContext | Response> => {
    const principal = deps.principalOf(c);
    if (!mayWorkJobs(principal, settings)) {
      if (principal?.via === "anonymous") return problemResponse(c, "unauthorized", anonymousRefusal.reason);
      return problemResponse(
        c,
        "forbidden",
        "Only the app's owner and the roles in [jobs] worker_roles may work jobs; this caller's role is not one of them.",
      );
    }
    const socket = nodeBindings(c).incoming?.socket;
    return callContext({
      principal,
      surface: "rest",
      caller: principal?.via === "anonymous" ? socket?.remoteAddress : undefined,
    });
  };
  /** `work` under the caller's `kind` budget; a refusal (rate limit, busy) is its problem answer. */
  const budgeted = async (c: Context, kind: "reads" | "writes", work: (call: CallContext) => Promise<Response>) => {
    const call = await admit(c);
    if (call instanceof Response) return call;
    try {
      return await deps.admit(kind, call, () => work(call));
    } catch (err) {
      if (err instanceof RateLimitedError)
        return problemResponse(c, err.kind, err.message, err.details, { "retry-after": String(err.retryAfterSeconds) });
      if (err instanceof OperationError && err.kind === "busy")
        return problemResponse(c, err.kind, err.message, [], { "retry-after": "1" });
      throw err;
    }
  };

  /** The audit record of a claim, complete or fail: its own small write, after the job's. */
  const audit = async (call: CallContext, operation: string, job: Job | undefined, outcome: string) => {
    const { audit: record } = auditedCall(call, operation, null, undefined, new Date().toISOString());
    try {
      await deps.store.write((tx) => tx.appendAudit({ ...record!, rowId: job?.id ?? null, outcome }));
    } catch (err) {
      deps.log(`jobs: the audit record of ${operation} could not be written: ${(err as Error).message}`);
    }
  };

  const body = async (c: Context): Promise<Record<string, unknown> | Response> => {
    const read = await readJsonObject(c.req.raw, deps.maxBodyBytes, nodeBindings(c).incoming);
    return read.ok ? read.value : problemResponse(c, read.failure.kind, read.failure.detail, read.failure.errors ?? []);
  };

  app.get(jobsPath, (c) =>
    budgeted(c, "reads", async () => {
      const q = new URL(c.req.url).searchParams;
      const other = [...q.keys()].find((k) => k !== "status" && k !== "name");
      if (other !== undefined)
        return invalid(c, other.slice(0, 40), "is not a parameter; the list takes status and name");
      const status = q.get("status");
      if (status !== null && !jobStatuses.includes(status as JobStatus))
        return invalid(c, "status", `must be one of ${jobStatuses.join(", ")}`);
      const name = q.get("name");
      const items = await deps.jobs.list({
        limit: 100,
        ...(status !== null ? { status: status as JobStatus } : {}),
        ...(name !== null ? { name } : {}),
      });
      return c.json({ items });
    }),
  );

  app.post(`${jobsPath}/claim`, (c) =>
    budgeted(c, "writes", async (call) => {
      const input = await body(c);
      if (input instanceof Response) return input;
      const unknown = Object.keys(input).find((k) => k !== "name" && k !== "lease_seconds");
      if (unknown !== undefined)
        return invalid(c, unknown.slice(0, 40), "is not accepted; a claim takes name and lease_seconds");
      if (input.name !== undefined && typeof input.name !== "string") return invalid(c, "name", "must be a string");
      const lease = input.lease_seconds ?? settings.leaseSeconds;
      if (typeof lease !== "number" || !Number.isSafeInteger(lease) || lease < 1 || lease > maxLeaseSeconds)
        return invalid(c, "lease_seconds", `must be an integer from 1 to ${maxLeaseSeconds}`);
      const job = await deps.jobs.claim({
        except: deps.runnable(),
        ...(typeof input.name === "string" ? { name: input.name } : {}),
        leaseMs: lease * 1000,
        maxAttempts: settings.maxAttempts,
        now: Date.now(),
      });
      if (!job) return c.body(null, 204);
      await audit(call, "(jobs) claim", job, "ok");
      return c.json(job);
    }),
  );

  const finishing = (verb: "complete" | "fail") =>
    app.post(`${jobsPath}/:id/${verb}`, (c) =>
      budgeted(c, "writes", async (call) => {
        const raw = c.req.param("id") ?? "";
        if (!idText.test(raw)) return invalid(c, "id", "must be a positive integer");
        const id = Number(raw);
        const input = await body(c);
        if (input instanceof Response) return input;
        const allowed = verb === "fail" ? ["error"] : [];
        const unknown = Object.keys(input).find((k) => !allowed.includes(k));
        if (unknown !== undefined) return invalid(c, unknown.slice(0, 40), `is not accepted by ${verb}`);
        if (
          verb === "fail" &&
          (typeof input.error !== "string" || input.error.length === 0 || input.error.length > 2000)
        )
          return invalid(c, "error", "must be a text of 1 to 2000 characters saying why the job failed");
        const before = await deps.jobs.get(id);
        const job =
          before === undefined
            ? undefined
            : verb === "complete"
              ? await deps.jobs.complete(id, undefined, Date.now())
              : await failJob(deps.jobs, settings, before, input.error as string, undefined);
        if (job === undefined) {
          const why =
            before === undefined
              ? new OperationError("not_found", `No job with id ${id}.`)
              : new OperationError(
                  "conflict",
                  `Job ${id} is ${before.status}, not running: claim it first (a claim whose lease ran out may have been taken over).`,
                );
          await audit(call, `(jobs) ${verb}`, before, why.kind);
          return problemResponse(c, why.kind, why.message);
        }
        await audit(call, `(jobs) ${verb}`, job, "ok");
        return c.json(job);
      }),
    );
  finishing("complete");
  finishing("fail");
  return app;
}

function invalid(c: Context, param: string, message: string): Response {
  return problemResponse(c, "invalid_input", `'${param}' ${message}.`, [{ path: `/${param}`, message }]);
}
