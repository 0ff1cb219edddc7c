// spec/tour.md cannot rot: every line of its `wo` examples is in samples/tour, which checks
// with no diagnostic, whose tests pass under `wo test`, and whose REST and MCP calls from the
// tour answer as the tour says against a real `wo run`.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { copyApp, removeApp, repoRoot, runWoCommand, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const sample = join(repoRoot, "samples", "tour");
const tour = readFileSync(join(repoRoot, "spec", "tour.md"), "utf8");

/** The text of every `.wo` file of the sample, below it. */
function sampleSource(dir = sample): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === ".wo" ? "" : sampleSource(path);
      return e.name.endsWith(".wo") ? readFileSync(path, "utf8") : "";
    })
    .join("\n");
}

const json = { "content-type": "application/json" };

describe("spec/tour.md and samples/tour", () => {
  it("every line of the tour's wo examples is in the sample", () => {
    const lines = new Set(
      sampleSource()
        .split("\n")
        .map((l) => l.trim()),
    );
    const blocks = [...tour.matchAll(/```wo\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const missing = blocks
      .flatMap((b) => b.split("\n"))
      .map((l) => l.trim())
      // A type's closing brace stands for its other members, shown elsewhere on the page.
      .filter((l) => l !== "" && l !== "}" && !lines.has(l));
    expect(missing).toEqual([]);
  });

  it("checks with no error and no warning", async () => {
    const result = await checkApp(sample);
    expect(result.diagnostics.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`)).toEqual([]);
  });

  it("wo test passes both tests", async () => {
    const dir = copyApp("samples/tour");
    try {
      const r = await runWoCommand(["test", dir]);
      expect(r.stdout).toContain("✔ finishing a task stamps it, once");
      expect(r.stdout).toContain("✔ only a lead creates projects");
      expect(r.stdout).toContain("2 passed, 0 failed");
      expect(r.code).toBe(0);
    } finally {
      removeApp(dir);
    }
  });

  describe("the tour's calls against wo run", () => {
    let dir: string;
    let wo: WoProcess;
    beforeAll(async () => {
      dir = copyApp("samples/tour");
      wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"]);
    });
    afterAll(async () => {
      await wo?.stop();
      removeApp(dir);
    });

    it("create, list, the relation, the method twice, a PATCH that fires the trigger, and an MCP call", async () => {
      const created = await fetch(`${wo.url}/api/projects`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ name: "garden", lead: "ada" }),
      });
      expect(created.status).toBe(201);
      expect(await created.json()).toEqual({ id: 1, name: "garden", lead: "ada" });
      expect(await (await fetch(`${wo.url}/api/projects`)).json()).toEqual({
        items: [{ id: 1, name: "garden", lead: "ada" }],
      });

      const form = await fetch(`${wo.url}/api/projects`, { method: "POST", body: "name=x" });
      expect(form.status).toBe(415);
      expect(await form.text()).toContain("-H 'content-type: application/json'");

      for (const title of ["dig the beds", "water the beans"]) {
        const task = await fetch(`${wo.url}/api/tasks`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ project: 1, title, points: 3 }),
        });
        expect(task.status).toBe(201);
      }
      const tasks = (await (await fetch(`${wo.url}/api/projects/1/tasks`)).json()) as { items: unknown[] };
      expect(tasks.items).toHaveLength(2);

      const finished = await fetch(`${wo.url}/api/tasks/1/finish`, { method: "POST", headers: json });
      expect(finished.status).toBe(200);
      const task = (await finished.json()) as { done: boolean; done_at: string | null };
      expect(task.done).toBe(true);
      expect(typeof task.done_at).toBe("string");
      const again = await fetch(`${wo.url}/api/tasks/1/finish`, { method: "POST", headers: json });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { detail: string }).detail).toBe("this task is already done");

      const patched = await fetch(`${wo.url}/api/tasks/2`, {
        method: "PATCH",
        headers: json,
        body: JSON.stringify({ done: true }),
      });
      expect(((await patched.json()) as { done_at: string | null }).done_at).not.toBeNull();

      // The tour's stateless MCP call, with the headers it shows.
      const mcp = await fetch(`${wo.url}/mcp`, {
        method: "POST",
        headers: {
          ...json,
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "project_list",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "project_list",
            arguments: {},
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      expect(mcp.status).toBe(200);
      const answer = (await mcp.json()) as { result: { structuredContent: unknown } };
      expect(answer.result.structuredContent).toEqual({ items: [{ id: 1, name: "garden", lead: "ada" }] });
    });
  });
});
