// The PostgreSQL store's pool on the admin listener of a real `wo run --db postgres://…`
// (a real PostgreSQL started here): pooled connections and waiters are gauges read at scrape
// time, and /ready asks the database itself.
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 180_000, testTimeout: 60_000 });

let server: PostgresServer;
let appDir: string;
let wo: WoProcess;
let admin: string;

beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase();
  appDir = copyApp("samples/hello");
  appendFileSync(`${appDir}/wo.toml`, '\n[admin]\nlisten = "127.0.0.1:0"\n');
  wo = await startWo([appDir, "--db", url, "--listen", "127.0.0.1:0", "--quiet"]);
  for (let i = 0; i < 100 && !/admin {5}http/.test(wo.output()); i++) await new Promise((r) => setTimeout(r, 50));
  admin = /admin {5}(http:\/\/\S+) /.exec(wo.output())![1]!;
});
afterAll(async () => {
  await wo?.stop();
  await server?.stop();
  if (appDir) removeApp(appDir);
});

describe("the admin listener over PostgreSQL", () => {
  it("shows the pool's connections, and is ready while the database answers", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${wo.url}/api/greetings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: `m${i}` }),
      });
      expect(res.status).toBe(201);
    }
    const text = await (await fetch(`${admin}/metrics`)).text();
    const value = (name: string) =>
      Number(new RegExp(`^${name.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1]);
    expect(value('wo_store_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(value('wo_store_pool_connections{state="idle"}')).toBeLessThanOrEqual(
      value('wo_store_pool_connections{state="total"}'),
    );
    expect(value("wo_store_pool_waiting")).toBe(0);
    expect(value("wo_store_write_rows_sum")).toBe(3);
    const ready = await fetch(`${admin}/ready`);
    expect([ready.status, await ready.text()]).toEqual([200, "ready\n"]);

    // The database gone: not ready, while the process is still live.
    await server.shutDown();
    const notReady = await fetch(`${admin}/ready`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toMatch(/^not ready: /);
    expect((await fetch(`${admin}/live`)).status).toBe(200);
    await server.restart();
  });
});
