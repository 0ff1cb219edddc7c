// Boolean `@check`s and computed fields (spec/language.md, "Checks", "Computed fields") against a
// real `wo run`: REST, MCP (the official SDK client), methods, `@materialized` filters and sorts,
// and a build refused over stored rows that break a new check; on SQLite and on PostgreSQL.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpClient, post } from "../methods/wo-process.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runToExit, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { shopWo } from "./shop-app.js";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

async function json(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function toolResult(result: any): any {
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

/** What every store must do, over REST. */
function restCases(server: () => string) {
  it("a boolean @check holds on create and update: 400 with the field's pointer, nothing written", async () => {
    const base = server();
    const ok = await post(base, "/api/people", { first: "Ada", last: "Lovelace", age: 36 });
    expect(ok.status).toBe(201);
    const refused = await post(base, "/api/people", { first: "Old", last: "One", age: 200 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: "/age", message: "must satisfy @check(value >= 0 and value <= 150)" },
    ]);
    const patched = await json(base, "PATCH", `/api/people/${ok.body.id}`, { age: -1 });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe("/age");
    expect((await json(base, "GET", `/api/people/${ok.body.id}`)).body.age).toBe(36);
    // A check over two fields: the pointer of the annotated one, on create and on an update of the other.
    const booking = await post(base, "/api/bookings", { start: 5, end: 3 });
    expect(booking.status).toBe(400);
    expect(booking.body.errors[0].path).toBe("/end");
    const b = await post(base, "/api/bookings", { start: 1, end: 3 });
    expect(b.status).toBe(201);
    const moved = await json(base, "PATCH", `/api/bookings/${b.body.id}`, { start: 4 });
    expect(moved.status).toBe(400);
    expect(moved.body.detail).toContain("Booking.end must satisfy @check(self.end > self.start)");
  });

  it("inside a method the call aborts (409) naming the field and the check, and rolls back", async () => {
    const base = server();
    const { body: p } = await post(base, "/api/people", { first: "Grace", last: "Hopper", age: 85 });
    const res = await post(base, `/api/people/${p.id}/age_to`, { a: 999 });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain("Person.age must satisfy @check(value >= 0 and value <= 150)");
    expect((await json(base, "GET", `/api/people/${p.id}`)).body.age).toBe(85);
  });

  it("a computed field is in every read and a method reads it; it is never writable", async () => {
    const base = server();
    const { status, body: p } = await post(base, "/api/people", { first: "Alan", last: "Turing", age: 41 });
    expect(status).toBe(201);
    expect(p.full_name).toBe("Alan Turing");
    expect((await json(base, "GET", `/api/people/${p.id}`)).body.full_name).toBe("Alan Turing");
    const listed = (await json(base, "GET", "/api/people")).body.items.find((r: any) => r.id === p.id);
    expect(listed.full_name).toBe("Alan Turing");
    // A method body reading `self.full_name` after its own update sees the new value.
    expect((await post(base, `/api/people/${p.id}/rename`, { f: "A. M." })).body).toBe("A. M. Turing");
    // Read-only: named in a 400, on create and on update.
    const sent = await post(base, "/api/people", { first: "x", last: "y", age: 1, full_name: "z" });
    expect(sent.status).toBe(400);
    expect(sent.body.errors).toEqual([
      { path: "/full_name", message: 'is read-only: it is computed (first + " " + last) and never written' },
    ]);
    const patched = await json(base, "PATCH", `/api/people/${p.id}`, { full_name: "z" });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe("/full_name");
  });

  it("computed fields read struct paths, a list's items element-wise and each other, in dependency order", async () => {
    const base = server();
    const created = await post(base, "/api/parcels", {
      label: "p1",
      note: { body: "  fragile, this  side up\n" },
      stock: { on_hand: 5, reserved: 2 },
      items: [
        { qty: 2, price: 150 },
        { qty: 3, price: 10 },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ available: 3, in_stock: true, word_count: 4, value: 330, kinds: 2 });
    const empty = await post(base, "/api/parcels", {
      label: "p2",
      note: { body: null },
      stock: { on_hand: 1, reserved: 1 },
      items: [],
    });
    expect(empty.body).toMatchObject({ available: 0, in_stock: false, word_count: 0, value: 0, kinds: 0 });
    // An update of the list recomputes the materialized total, which then filters.
    await json(base, "PATCH", `/api/parcels/${empty.body.id}`, { items: [{ qty: 4, price: 25 }] });
    expect((await json(base, "GET", `/api/parcels/${empty.body.id}`)).body).toMatchObject({ value: 100, kinds: 1 });
    const filtered = await json(base, "GET", "/api/parcels?value=100");
    expect(filtered.body.items.map((r: any) => r.label)).toEqual(["p2"]);
  });

  it("@materialized aggregates follow their rows' creates, updates, moves and deletes; they filter and sort", async () => {
    const base = server();
    const { body: o1 } = await post(base, "/api/orders", { name: "first" });
    const { body: o2 } = await post(base, "/api/orders", { name: "second" });
    expect(o1).toMatchObject({ total: 0, n: 0 });
    const { body: l1 } = await post(base, "/api/lines", { order: o1.id, amount: 5 });
    const { body: l2 } = await post(base, "/api/lines", { order: o1.id, amount: 7 });
    expect((await json(base, "GET", `/api/orders/${o1.id}`)).body).toMatchObject({ total: 12, n: 2 });
    // Moved to the other order: both totals change.
    await json(base, "PATCH", `/api/lines/${l2.id}`, { order: o2.id, amount: 9 });
    expect((await json(base, "GET", `/api/orders/${o1.id}`)).body).toMatchObject({ total: 5, n: 1 });
    expect((await json(base, "GET", `/api/orders/${o2.id}`)).body).toMatchObject({ total: 9, n: 1 });
    // Stored, so list filters and sorts take it.
    const filtered = await json(base, "GET", `/api/orders?total=9`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.items.map((r: any) => r.id)).toEqual([o2.id]);
    const sorted = await json(base, "GET", `/api/orders?sort=-total&name[in]=first,second`);
    expect(sorted.status).toBe(200);
    expect(sorted.body.items.map((r: any) => r.id)).toEqual([o2.id, o1.id]);
    expect((await json(base, "DELETE", `/api/lines/${l1.id}`)).status).toBeLessThan(300);
    expect((await json(base, "GET", `/api/orders/${o1.id}`)).body).toMatchObject({ total: 0, n: 0 });
    // Never writable.
    expect((await json(base, "PATCH", `/api/orders/${o1.id}`, { total: 100 })).status).toBe(400);
  });
}

describe("computed fields and checks on SQLite", () => {
  let dir: string;
  let wo: WoProcess;
  let mcp: Client;
  beforeAll(async () => {
    dir = writeApp("shop", { "app/shop.wo": shopWo });
    wo = await startWo([dir, "--listen", "127.0.0.1:0", "--quiet"]);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  restCases(() => wo.url);

  it("MCP: tools give computed fields, resources/read too; a broken check is a tool error naming the field", async () => {
    const tools = await mcp.listTools();
    const create = tools.tools.find((t) => t.name === "person_create")!;
    expect(Object.keys(create.inputSchema.properties ?? {})).not.toContain("full_name");
    const made = toolResult(
      await mcp.callTool({ name: "person_create", arguments: { first: "Mary", last: "Shelley", age: 53 } }),
    );
    expect(made.full_name).toBe("Mary Shelley");
    const got = toolResult(await mcp.callTool({ name: "person_get", arguments: { id: made.id } }));
    expect(got.full_name).toBe("Mary Shelley");
    const read = await mcp.readResource({ uri: `wo://person/${made.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).full_name).toBe("Mary Shelley");
    const refused: any = await mcp.callTool({
      name: "person_update",
      arguments: { id: made.id, age: 151 },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("Person.age must satisfy @check(value >= 0 and value <= 150)");
  });

  it("a live stream's events carry the computed fields of the row written", async () => {
    const controller = new AbortController();
    const res = await fetch(`${wo.url}/api/people/live`, {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const waitFor = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}: ${text}`);
        text += new TextDecoder().decode(value);
      }
    };
    await waitFor(": live");
    const { body: p } = await post(wo.url, "/api/people", { first: "Live", last: "Wire", age: 30 });
    await waitFor('"full_name":"Live Wire"');
    await json(wo.url, "PATCH", `/api/people/${p.id}`, { last: "Stream" });
    await waitFor('"full_name":"Live Stream"');
    controller.abort();
  });

  it("wo test: a boolean check aborts an insert and an update; computed fields are read in the test body", async () => {
    const app = writeApp("shoptest", {
      "app/shop.wo": shopWo,
      "tests/shop_test.wo": `test "checks and computed fields" {
  let p = insert Person { first: "Ada", last: "L", age: 3 }
  assert p.full_name == "Ada L"
  expect_abort "Person.age must satisfy @check(value >= 0 and value <= 150)" {
    update p set age = 151
  }
  expect_abort "Booking.end must satisfy @check(self.end > self.start)" {
    insert Booking { start: 2, end: 1 }
  }
  let o = insert Order { name: "o" }
  insert Line { order: o.id, amount: 4 }
  insert Line { order: o.id, amount: 6 }
  assert Order{ id == o.id }.total == 10
  assert Order{ id == o.id }.n == 2
  -- The built-ins of computed fields in a body too: words(…) and xs.* over a list's items.
  assert words(" one two\tthree ") == 3
  assert words(null) == 0
  let parcel = insert Parcel { label: "x", note: { body: "a b" }, stock: { on_hand: 2, reserved: 0 }, items: [{ qty: 2, price: 5 }, { qty: 1, price: 7 }] }
  assert sum(parcel.items.*.qty * parcel.items.*.price) == 17
  assert contains(parcel.items.*.price, 7)
  assert Parcel{ id == parcel.id }.in_stock
}
`,
    });
    try {
      const res = await runWoCommand(["test", app]);
      expect(res.stdout + res.stderr).toContain("1 passed, 0 failed");
      expect(res.code).toBe(0);
    } finally {
      removeApp(app);
    }
  });

  it("a build whose new @check breaks stored rows is refused, naming their ids", async () => {
    const app = writeApp("ages", {
      "app/a.wo": `class P {\n  n: Int\n  service rest "/api/p" expose list, create\n}\n`,
    });
    try {
      const first = await startWo([app, "--listen", "127.0.0.1:0", "--quiet"]);
      for (const n of [1, -2, 3, -4]) expect((await post(first.url, "/api/p", { n })).status).toBe(201);
      await first.stop();
      // The same folder, a new check:
      writeFileSync(
        `${app}/app/a.wo`,
        `class P {\n  n: Int @check(value >= 0)\n  service rest "/api/p" expose list, create\n}\n`,
      );
      const refused = await runToExit([app, "--listen", "127.0.0.1:0", "--quiet"]);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toContain("P.n @check(value >= 0): 2 rows, ids 2, 4");
    } finally {
      removeApp(app);
    }
  });
});

describe("computed fields and checks on PostgreSQL", () => {
  let pg: PostgresServer;
  let dir: string;
  let wo: WoProcess;
  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    dir = writeApp("shop", { "app/shop.wo": shopWo });
    wo = await startWo([dir, "--db", url, "--listen", "127.0.0.1:0", "--quiet"]);
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
    await pg?.stop();
  });

  restCases(() => wo.url);
});
