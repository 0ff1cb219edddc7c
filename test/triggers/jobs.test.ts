// `do enqueue "job" with { … }` (spec/operations.md, "Jobs"): a row of the outbox written in the
// write's transaction, never for an aborted write, run after the commit by the free fn of its
// name (hyphens as underscores) through the operation pipeline, retried with backoff, `failed`
// after max_attempts, kept across a restart. A real `wo run` on SQLite; the outbox is read
// straight from the database file.

import Database from "better-sqlite3";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { waitFor } from "../live/support.js";
import { addToken, rest } from "../policies/support.js";
import pg from "pg";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const ownerToken = "jobs-test-owner-token-0123456789abcdef";
const env = { WO_JOBS_OWNER: ownerToken };

export const jobsApp = {
  "wo.toml":
    'name = "shop"\n\n[server]\ntoken_env = "WO_JOBS_OWNER"\n\n[jobs]\nmax_attempts = 3\nretry_base_ms = 150\nretry_max_ms = 300\npoll_ms = 100\nlease_seconds = 2\nworker_roles = ["worker"]\n',
  "app.wo": `class Signup {
  email: Text
  on create do enqueue "send-welcome" with { email: self.email, signup: self.id }
  on create when self.email == "boom" do call refuse(self.email)
  service rest "/api/signups" expose list, get, create
}

type Mail {
  to: Text
  signup: Int
  service rest "/api/mails" expose list
}

type Gate {
  open: Bool
  service rest "/api/gates" expose list, create, update
}

type Shipment {
  item: Text
  service rest "/api/shipments" expose list
}

class Order {
  item: Text
  kind: Text
  on create when self.kind == "ship" do enqueue "ship" with { item: self.item }
  on create when self.kind == "doomed" do enqueue "doomed" with { item: self.item }
  on create when self.kind == "label" do enqueue "print-label" with { item: self.item, copies: 2 }
  service rest "/api/orders" expose list, create
  service mcp "/mcp" expose list, create
}

fn send_welcome(email: Text, signup: Int) {
  insert Mail { to: email, signup: signup }
}

fn refuse(email: Text) {
  assert false otherwise abort "refused: " + email
}

fn ship(item: Text) {
  assert count(select Gate { open == true }) > 0 otherwise abort "the gate is closed"
  insert Shipment { item: item }
}

fn doomed(item: Text) {
  assert false otherwise abort "doomed: " + item
}
`,
};

interface JobRow {
  id: number;
  name: string;
  args: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

/** The outbox as the database file holds it (read-only, beside the running instance). */
export function jobsIn(dir: string): JobRow[] {
  const db = new Database(join(dir, ".wo/data/app.sqlite"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT * FROM "_wo_jobs" ORDER BY "id"`).all() as JobRow[];
  } finally {
    db.close();
  }
}

function auditIn(dir: string): { operation: string; surface: string; outcome: string }[] {
  const db = new Database(join(dir, ".wo/data/app.sqlite"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT * FROM "_wo_audit" ORDER BY "seq"`).all() as never;
  } finally {
    db.close();
  }
}

describe("do enqueue on SQLite: the job runner of wo run", () => {
  let dir: string;
  let wo: WoProcess;

  beforeAll(async () => {
    dir = writeApp("shop-jobs", jobsApp);
    wo = await startWo([dir, "--listen", "127.0.0.1:0"], { env });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("runs an enqueued job once after the commit: its fn's writes are visible, audited as a job", async () => {
    const created = await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "ada@example.com" });
    expect(created.status).toBe(201);
    await waitFor(
      () => jobsIn(dir).some((j) => j.name === "send-welcome" && j.status === "done"),
      () => JSON.stringify(jobsIn(dir)),
    );
    const mails = await rest(wo.url, ownerToken, "GET", "/api/mails");
    expect(mails.body.items).toEqual([{ id: 1, to: "ada@example.com", signup: created.body.id }]);
    const job = jobsIn(dir).find((j) => j.name === "send-welcome")!;
    expect(job).toMatchObject({ status: "done", attempts: 1, last_error: null });
    expect(JSON.parse(job.args)).toEqual({ email: "ada@example.com", signup: created.body.id });
    expect(auditIn(dir)).toContainEqual(
      expect.objectContaining({ operation: "(job) send-welcome", surface: "job", outcome: "ok" }),
    );
    // Once: a later poll finds nothing to run again.
    await new Promise((r) => setTimeout(r, 400));
    expect((await rest(wo.url, ownerToken, "GET", "/api/mails")).body.items).toHaveLength(1);
  });

  it("writes no job for an aborted write", async () => {
    const before = jobsIn(dir).length;
    const refused = await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "boom" });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("refused: boom");
    await new Promise((r) => setTimeout(r, 300));
    expect(jobsIn(dir)).toHaveLength(before);
    expect((await rest(wo.url, ownerToken, "GET", "/api/mails")).body.items.map((m: { to: string }) => m.to)).toEqual([
      "ada@example.com",
    ]);
  });

  it("retries a failing fn with backoff; it succeeds on a later attempt", async () => {
    const gate = await rest(wo.url, ownerToken, "POST", "/api/gates", { open: false });
    const order = await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "lamp", kind: "ship" });
    expect(order.status).toBe(201);
    await waitFor(
      () => jobsIn(dir).some((j) => j.name === "ship" && j.attempts >= 1 && j.status === "pending"),
      () => JSON.stringify(jobsIn(dir)),
    );
    const failed = jobsIn(dir).find((j) => j.name === "ship")!;
    expect(failed.last_error).toContain("the gate is closed");
    expect((await rest(wo.url, ownerToken, "PATCH", `/api/gates/${gate.body.id}`, { open: true })).status).toBe(200);
    await waitFor(
      () => jobsIn(dir).some((j) => j.name === "ship" && j.status === "done"),
      () => JSON.stringify(jobsIn(dir)),
    );
    expect(jobsIn(dir).find((j) => j.name === "ship")!.attempts).toBeGreaterThan(1);
    expect((await rest(wo.url, ownerToken, "GET", "/api/shipments")).body.items).toEqual([{ id: 1, item: "lamp" }]);
  });

  it("a job that keeps failing is failed after max_attempts, with its last error", async () => {
    await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "vase", kind: "doomed" });
    await waitFor(
      () => jobsIn(dir).some((j) => j.name === "doomed" && j.status === "failed"),
      () => JSON.stringify(jobsIn(dir)),
    );
    expect(jobsIn(dir).find((j) => j.name === "doomed")).toMatchObject({
      status: "failed",
      attempts: 3,
      last_error: expect.stringContaining("doomed: vase"),
    });
    const said = /job \d+ doomed: attempt 3 of 3 failed \(.*doomed: vase.*\); failed after 3 attempts/;
    await waitFor(() => said.test(wo.output()), wo.output);
  });

  it("a job with no fn of its name stays pending for an external worker", async () => {
    await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "box", kind: "label" });
    await new Promise((r) => setTimeout(r, 300));
    const label = jobsIn(dir).find((j) => j.name === "print-label")!;
    expect(label).toMatchObject({ status: "pending", attempts: 0 });
    expect(JSON.parse(label.args)).toEqual({ item: "box", copies: 2 });
  });
});

describe("the worker API over REST: jobs no fn runs", () => {
  let dir: string;
  let wo: WoProcess;
  let worker: string;
  let clerk: string;

  beforeAll(async () => {
    dir = writeApp("shop-jobs-worker", jobsApp);
    worker = await addToken(["printer", dir, "--role", "worker"]);
    clerk = await addToken(["clerk", dir, "--role", "clerk"]);
    wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("a worker lists, claims and completes a job; each step is audited", async () => {
    await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "box", kind: "label" });
    await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "sam@example.com" });
    const listed = await rest(wo.url, worker, "GET", "/api/_jobs?status=pending&name=print-label");
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ name: "print-label", status: "pending", args: { item: "box", copies: 2 } }),
    ]);
    const claimed = await rest(wo.url, worker, "POST", "/api/_jobs/claim", { lease_seconds: 30 });
    expect(claimed.status).toBe(200);
    // Never a job the app's own fn runs: only print-label is the worker's.
    expect(claimed.body).toMatchObject({ name: "print-label", status: "running", attempts: 1 });
    expect((await rest(wo.url, worker, "POST", "/api/_jobs/claim", {})).status).toBe(204);
    const done = await rest(wo.url, worker, "POST", `/api/_jobs/${claimed.body.id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: claimed.body.id, status: "done" });
    const again = await rest(wo.url, worker, "POST", `/api/_jobs/${claimed.body.id}/complete`, {});
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("is done, not running");
    expect((await rest(wo.url, worker, "POST", "/api/_jobs/9999/complete", {})).status).toBe(404);
    const audit = await rest(wo.url, ownerToken, "GET", "/_wo/audit?limit=1000");
    const steps = audit.body.items
      .filter((e: { operation: string }) => e.operation.startsWith("(jobs)"))
      .map((e: { operation: string; principal: string; outcome: string }) => [e.operation, e.principal, e.outcome]);
    expect(steps).toEqual([
      ["(jobs) claim", "printer", "ok"],
      ["(jobs) complete", "printer", "ok"],
      ["(jobs) complete", "printer", "conflict"],
      ["(jobs) complete", "printer", "not_found"],
    ]);
  });

  it("a failed job is retried by the rules, then failed after max_attempts", async () => {
    await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "crate", kind: "label" });
    const bad = await rest(wo.url, worker, "POST", "/api/_jobs/1/fail", {});
    expect(bad.status).toBe(400);
    for (let attempt = 1; attempt <= 3; attempt++) {
      let claimed: Awaited<ReturnType<typeof rest>>;
      // The backoff (150–300 ms here) passes before the job is due again.
      const deadline = Date.now() + 5000;
      do claimed = await rest(wo.url, ownerToken, "POST", "/api/_jobs/claim", { name: "print-label" });
      while (claimed.status === 204 && Date.now() < deadline);
      expect(claimed.body).toMatchObject({ status: "running", attempts: attempt, args: { item: "crate", copies: 2 } });
      const failed = await rest(wo.url, ownerToken, "POST", `/api/_jobs/${claimed.body.id}/fail`, {
        error: "out of paper",
      });
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ status: attempt < 3 ? "pending" : "failed", lastError: "out of paper" });
    }
  });

  it("is in OpenAPI", async () => {
    const res = await fetch(`${wo.url}/openapi.json`, { headers: { authorization: `Bearer ${ownerToken}` } });
    const doc = (await res.json()) as { paths: Record<string, any> };
    expect(Object.keys(doc.paths).filter((p: string) => p.startsWith("/api/_jobs"))).toEqual([
      "/api/_jobs",
      "/api/_jobs/claim",
      "/api/_jobs/{id}/complete",
      "/api/_jobs/{id}/fail",
    ]);
    expect(doc.paths["/api/_jobs/claim"].post.operationId).toBe("jobs_claim");
  });

  it("refuses a caller whose role is not a worker role (403) and one without credentials (401)", async () => {
    const refused = await rest(wo.url, clerk, "GET", "/api/_jobs");
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("[jobs] worker_roles");
    expect((await rest(wo.url, clerk, "POST", "/api/_jobs/claim", {})).status).toBe(403);
    expect((await rest(wo.url, undefined, "POST", "/api/_jobs/claim", {})).status).toBe(401);
  });
});

describe("wo jobs", () => {
  it("prints the outbox while wo run serves: pending, running, done and failed jobs, --status and --json", async () => {
    const dir = writeApp("shop-jobs-cli", jobsApp);
    const wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
    try {
      await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "ann@example.com" });
      await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "vase", kind: "doomed" });
      await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "box", kind: "label" });
      await waitFor(
        () => jobsIn(dir).filter((j) => j.status === "done" || j.status === "failed").length === 2,
        () => JSON.stringify(jobsIn(dir)),
      );
      const table = await runWoCommand(["jobs", dir]);
      expect(table.code, table.stderr).toBe(0);
      const lines = table.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+ATTEMPTS\s+RUN AT\s+FROM\s+LAST ERROR$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
        ["3", "print-label", "pending", "0"],
        ["2", "doomed", "failed", "3"],
        ["1", "send-welcome", "done", "1"],
      ]);
      expect(lines[2]).toContain("doomed: vase");
      const failed = await runWoCommand(["jobs", dir, "--status", "failed", "--json"]);
      expect(JSON.parse(failed.stdout)).toEqual([
        expect.objectContaining({ id: 2, name: "doomed", status: "failed", attempts: 3, args: { item: "vase" } }),
      ]);
      const bad = await runWoCommand(["jobs", dir, "--status", "stuck"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("--status takes pending, running, done, failed, not 'stuck'");
    } finally {
      await wo.stop();
      removeApp(dir);
    }
  });

  it("shows a running job with its lease", async () => {
    const dir = writeApp("shop-jobs-running", jobsApp);
    try {
      // A job claimed by a worker (here: written as the outbox holds a claimed one) is running.
      const wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
      await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "box", kind: "label" });
      await wo.stop();
      const db = new Database(join(dir, ".wo/data/app.sqlite"));
      db.prepare(`UPDATE "_wo_jobs" SET "status" = 'running', "attempts" = 1, "claimed_until" = ?`).run(
        Date.parse("2030-01-01T00:00:00Z"),
      );
      db.close();
      const r = await runWoCommand(["jobs", dir, "--status", "running"]);
      expect(r.stdout.split("\n")[1]).toMatch(
        /^1\s+print-label\s+running\s+1\s+until 2030-01-01T00:00:00.000Z\s+Order 1\s+-$/,
      );
    } finally {
      removeApp(dir);
    }
  });
});

describe("do enqueue: a job whose instance stopped while running it", () => {
  it("is claimed again once its lease ran out, and failed when that was its last attempt", async () => {
    const dir = writeApp("shop-jobs-lease", {
      ...jobsApp,
      "app.wo": jobsApp["app.wo"].replace("fn send_welcome(", "fn send_welcome_later("),
    });
    try {
      let wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
      await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "kim@example.com" });
      await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "lee@example.com" });
      await wo.stop();
      // As a crashed instance leaves them: running, their leases over; the second at its last attempt.
      const db = new Database(join(dir, ".wo/data/app.sqlite"));
      db.prepare(`UPDATE "_wo_jobs" SET "status" = 'running', "attempts" = 1, "claimed_until" = ? WHERE "id" = 1`).run(
        Date.now() - 1000,
      );
      db.prepare(`UPDATE "_wo_jobs" SET "status" = 'running', "attempts" = 3, "claimed_until" = ? WHERE "id" = 2`).run(
        Date.now() - 1000,
      );
      db.close();
      writeFileSync(join(dir, "app.wo"), jobsApp["app.wo"]);
      wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
      try {
        await waitFor(
          () => jobsIn(dir).every((j) => j.status === "done" || j.status === "failed"),
          () => JSON.stringify(jobsIn(dir)),
        );
        expect(jobsIn(dir).map((j) => [j.id, j.status, j.attempts])).toEqual([
          [1, "done", 2],
          [2, "failed", 3],
        ]);
        expect(jobsIn(dir)[1]!.last_error).toContain("its lease ran out on its last attempt");
        expect(
          (await rest(wo.url, ownerToken, "GET", "/api/mails")).body.items.map((m: { to: string }) => m.to),
        ).toEqual(["kim@example.com"]);
      } finally {
        await wo.stop();
      }
    } finally {
      removeApp(dir);
    }
  });
});

describe("do enqueue: a pending job survives a restart", () => {
  it("is run by the next start", async () => {
    const dir = writeApp("shop-jobs-restart", {
      ...jobsApp,
      // The first start never runs jobs: its poll is long and nothing wakes it (no fn of the name).
      "app.wo": jobsApp["app.wo"].replace("fn send_welcome(", "fn send_welcome_later("),
    });
    try {
      let wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
      try {
        expect((await rest(wo.url, ownerToken, "POST", "/api/signups", { email: "eve@example.com" })).status).toBe(201);
        expect(jobsIn(dir).map((j) => [j.name, j.status])).toEqual([["send-welcome", "pending"]]);
      } finally {
        await wo.stop();
      }
      writeFileSync(join(dir, "app.wo"), jobsApp["app.wo"]);
      wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"], { env });
      try {
        await waitFor(
          () => jobsIn(dir).every((j) => j.status === "done"),
          () => JSON.stringify(jobsIn(dir)),
        );
        expect((await rest(wo.url, ownerToken, "GET", "/api/mails")).body.items).toEqual([
          { id: 1, to: "eve@example.com", signup: 1 },
        ]);
      } finally {
        await wo.stop();
      }
    } finally {
      removeApp(dir);
    }
  });
});

describe("do enqueue on PostgreSQL: two instances share the outbox", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs each job once, whichever instance wrote it", async () => {
    const dir = writeApp("shop-jobs-pg", jobsApp);
    const db = await server.createDatabase();
    const [a, b] = await Promise.all(
      [0, 1].map(() => startWo([dir, "--listen", "127.0.0.1:0", "--db", db, "--quiet"], { env })),
    );
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const emails = Array.from({ length: 12 }, (_, i) => `user${i}@example.com`);
      const made = await Promise.all(
        emails.map((email, i) => rest((i % 2 === 0 ? a : b)!.url, ownerToken, "POST", "/api/signups", { email })),
      );
      expect(made.map((r) => r.status)).toEqual(emails.map(() => 201));
      const mails = async () =>
        (await rest(a!.url, ownerToken, "GET", "/api/mails?limit=100")).body.items as { to: string }[];
      const deadline = Date.now() + 20_000;
      while ((await mails()).length < emails.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      // Once each: no job ran twice, though both instances claimed from the one table.
      await new Promise((r) => setTimeout(r, 500));
      expect((await mails()).map((m) => m.to).sort()).toEqual([...emails].sort());
      const jobs = await client.query(`SELECT "status", "attempts" FROM "_wo_jobs" ORDER BY "id"`);
      expect(jobs.rows).toEqual(emails.map(() => ({ status: "done", attempts: 1 })));
      // Each run is audited once, as a job.
      const audited = await client.query(
        `SELECT count(*)::int AS n FROM "_wo_audit" WHERE "surface" = 'job' AND "outcome" = 'ok'`,
      );
      expect(audited.rows[0].n).toBe(emails.length);
    } finally {
      await client.end();
      await Promise.all([a?.stop(), b?.stop()]);
      removeApp(dir);
    }
  });
});
