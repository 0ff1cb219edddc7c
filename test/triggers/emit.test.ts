// `do emit "name"(args)` (spec/live.md, "Application events"): events written in the write's
// transaction, heard on `GET /api/_events` and by MCP clients subscribed to `wo://events`, never
// for an aborted write, replayed after a restart with Last-Event-ID, and only by callers that
// may read the emitting row. A real `wo run` (restarted), SQLite and PostgreSQL, named tokens,
// the official MCP SDK client.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openSse, waitFor, type SseConnection } from "../live/support.js";
import { addToken, clientV1, rest } from "../policies/support.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const ownerToken = "emit-test-owner-token-0123456789abcdef";
const env = { WO_EMIT_OWNER: ownerToken };

const app = {
  "wo.toml": 'name = "shop"\n\n[server]\ntoken_env = "WO_EMIT_OWNER"\n',
  "app.wo": `class Order {
  item: Text
  buyer: Int
  paid: Bool = false

  policy read for role buyer when buyer == $session.user

  on create do emit "order.created"(self, self.item)
  on update when new.paid and not old.paid do emit "order.paid"(self.id)
  on update when new.item == "boom" do call refuse(new.item)

  fn pay() -> Order {
    update self set paid = true
    return self
  }

  service rest "/api/orders" expose list, get, create, update, pay
  service mcp "/mcp" expose list, get, create, update, pay
}

fn refuse(item: Text) {
  assert false otherwise abort "not sold: " + item
}
`,
};

const auth = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** [name, row id] of a stream's events. */
const seen = (s: SseConnection) =>
  s.events.filter((e) => e.event !== "reset").map((e) => [e.event, JSON.parse(e.data!).id as number]);

function scenario(extraArgs: () => string[]) {
  let dir: string;
  let wo: WoProcess;
  let buyer7: string;
  let buyer8: string;
  let mcp: Client;
  const notified: string[] = [];
  let ownerStream: SseConnection;
  let stream7: SseConnection;
  let paidOnly: SseConnection;
  let first: number;
  let second: number;

  beforeAll(async () => {
    dir = writeApp("shop-events", app);
    const args = extraArgs();
    const db = args[0] === "--db" ? args.slice(0, 2) : [];
    buyer7 = await addToken(["buyer7", dir, "--role", "buyer", "--user", "7", ...db]);
    buyer8 = await addToken(["buyer8", dir, "--role", "buyer", "--user", "8", ...db]);
    wo = await startWo([dir, "--listen", "127.0.0.1:0", ...extraArgs()], { env });
    mcp = await clientV1(wo.url, buyer7);
    mcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      notified.push(n.params.uri);
    });
  });
  afterAll(async () => {
    for (const s of [ownerStream, stream7, paidOnly]) s?.close();
    await mcp?.close();
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("a REST create and a method write emit; an aborted write emits nothing", async () => {
    ownerStream = await openSse(wo.url, "/api/_events", auth(ownerToken));
    stream7 = await openSse(wo.url, "/api/_events", auth(buyer7));
    paidOnly = await openSse(wo.url, "/api/_events?name=order.paid", auth(ownerToken));
    expect(ownerStream.status).toBe(200);
    expect(ownerStream.headers["content-type"]).toBe("text/event-stream");
    // MCP: a 2025 session subscribes to every event (it needs its GET stream to hear).
    expect(await mcp.subscribeResource({ uri: "wo://events" })).toEqual({});

    const created = await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "book", buyer: 7 });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    // A method write: `update self set paid = true` fires the update trigger.
    expect((await rest(wo.url, ownerToken, "POST", `/api/orders/${id}/pay`, {})).status).toBe(200);
    // Aborted by a trigger's fn: the update (and the event its other trigger emitted) rolls back.
    const other = await rest(wo.url, ownerToken, "POST", "/api/orders", { item: "pen", buyer: 8 });
    const refused = await rest(wo.url, ownerToken, "PATCH", `/api/orders/${other.body.id}`, {
      item: "boom",
      paid: true,
    });
    expect(refused.status).toBe(409);
    expect((await rest(wo.url, ownerToken, "GET", `/api/orders/${other.body.id}`)).body.paid).toBe(false);

    await waitFor(
      () => seen(ownerStream).length >= 3,
      () => ownerStream.raw(),
    );
    expect(seen(ownerStream)).toEqual([
      ["order.created", id],
      ["order.paid", id],
      ["order.created", other.body.id],
    ]);
    const createdEvent = JSON.parse(ownerStream.events[0]!.data!);
    // The row argument as REST shows it, the other argument's value, who emitted it and when.
    expect(createdEvent).toEqual({
      name: "order.created",
      type: "Order",
      id,
      args: [created.body, "book"],
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    first = Number(ownerStream.events[0]!.id);
    second = Number(ownerStream.events[1]!.id);
    expect(second).toBeGreaterThan(first);
    await waitFor(
      () => seen(paidOnly).length >= 1,
      () => paidOnly.raw(),
    );
    expect(seen(paidOnly)).toEqual([["order.paid", id]]);
    expect(JSON.parse(paidOnly.events[0]!.data!).args).toEqual([id]);

    // Buyer 7 may read only its own order: the event of buyer 8's order never reaches it.
    await waitFor(
      () => seen(stream7).length >= 2,
      () => stream7.raw(),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(seen(stream7)).toEqual([
      ["order.created", id],
      ["order.paid", id],
    ]);

    // MCP: one notification per event buyer 7 may hear of, then the resource holds the events.
    await waitFor(
      () => notified.length >= 2,
      () => JSON.stringify(notified),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(notified).toEqual(["wo://events", "wo://events"]);
    const read = await mcp.readResource({ uri: "wo://events" });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    expect(body.events.map((e: { name: string; id: number }) => [e.name, e.id])).toEqual([
      ["order.created", id],
      ["order.paid", id],
    ]);
    const paidRead = await mcp.readResource({ uri: "wo://events/order.paid" });
    expect(JSON.parse((paidRead.contents[0] as { text: string }).text).events).toHaveLength(1);
    const listed = (await mcp.listResources()).resources.map((r) => r.uri);
    expect(listed).toEqual(
      expect.arrayContaining(["wo://events", "wo://events/order.created", "wo://events/order.paid"]),
    );
  });

  it("an MCP tools/call write emits to the REST stream too", async () => {
    const before = seen(ownerStream).length;
    const owner = await clientV1(wo.url, ownerToken);
    try {
      const made = await owner.callTool({ name: "order_create", arguments: { item: "lamp", buyer: 7 } });
      expect(made.isError).toBeFalsy();
    } finally {
      await owner.close();
    }
    await waitFor(
      () => seen(ownerStream).length > before,
      () => ownerStream.raw(),
    );
    expect(
      seen(ownerStream)
        .slice(before)
        .map(([name]) => name),
    ).toEqual(["order.created"]);
  });

  it("bad requests are refused: an unknown name, another parameter, an anonymous caller", async () => {
    const unknown = await rest(wo.url, ownerToken, "GET", "/api/_events?name=nope");
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain("order.created, order.paid");
    expect((await rest(wo.url, ownerToken, "GET", "/api/_events?limit=3")).status).toBe(400);
    expect((await rest(wo.url, undefined, "GET", "/api/_events")).status).toBe(401);
    const badId = await fetch(`${wo.url}/api/_events`, { headers: { ...auth(ownerToken), "last-event-id": "x" } });
    expect(badId.status).toBe(400);
    await badId.body?.cancel();
  });

  it("after a restart, Last-Event-ID replays what followed, as each caller may read it", async () => {
    for (const s of [ownerStream, stream7, paidOnly]) s.close();
    await mcp.close();
    await wo.stop();
    wo = await startWo([dir, "--listen", "127.0.0.1:0", ...extraArgs()], { env });
    mcp = await clientV1(wo.url, buyer7);
    ownerStream = await openSse(wo.url, "/api/_events", { ...auth(ownerToken), "last-event-id": String(first) });
    await waitFor(
      () => seen(ownerStream).length >= 3,
      () => ownerStream.raw(),
    );
    expect(seen(ownerStream).map(([name]) => name)).toEqual(["order.paid", "order.created", "order.created"]);
    expect(Number(ownerStream.events[0]!.id)).toBe(second);
    // Buyer 8 replays everything kept: only the event of its own order.
    stream7 = await openSse(wo.url, "/api/_events", { ...auth(buyer8), "last-event-id": "0" });
    await waitFor(
      () => seen(stream7).length >= 1,
      () => stream7.raw(),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(seen(stream7)).toEqual([["order.created", 2]]);
    // A position that is not this server's: reset, then live events.
    paidOnly = await openSse(wo.url, "/api/_events", { ...auth(ownerToken), "last-event-id": "999999" });
    await waitFor(
      () => paidOnly.events.length >= 1,
      () => paidOnly.raw(),
    );
    expect(paidOnly.events[0]!.event).toBe("reset");
  });
}

describe("do emit on SQLite", () => {
  scenario(() => []);
});

describe("do emit on PostgreSQL", () => {
  let pg: PostgresServer;
  let url: string;
  beforeAll(async () => {
    pg = await startPostgres();
    url = await pg.createDatabase();
  });
  afterAll(async () => {
    await pg?.stop();
  });
  scenario(() => ["--db", url, "--quiet"]);

  it("an event emitted on one instance reaches the event stream of another on the same database", async () => {
    const dir = writeApp("shop-events-two", app);
    const db = await pg.createDatabase();
    const [a, b] = await Promise.all(
      [0, 1].map(() => startWo([dir, "--listen", "127.0.0.1:0", "--db", db, "--quiet"], { env })),
    );
    const stream = await openSse(b!.url, "/api/_events", auth(ownerToken));
    try {
      const created = await rest(a!.url, ownerToken, "POST", "/api/orders", { item: "lamp", buyer: 7 });
      expect(created.status).toBe(201);
      await waitFor(
        () => seen(stream).length >= 1,
        () => JSON.stringify(stream.events),
      );
      expect(seen(stream)).toEqual([["order.created", created.body.id]]);
    } finally {
      stream.close();
      await Promise.all([a?.stop(), b?.stop()]);
      removeApp(dir);
    }
  });
});

describe("do emit: the checker", () => {
  it("types the arguments and refuses a bad event name, at file:line:col", async () => {
    const dir = writeApp("emit-check", {
      "app.wo": `type Note {
  title: Text
  on create do emit "bad name"(self)
  on update do emit "note.changed"(self.nope)
  service rest "/api/notes" expose list, create, update
}
`,
    });
    try {
      const r = await runWoCommand(["check", dir]);
      expect(r.code).not.toBe(0);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/app\.wo:3:\d+.*WO2060/);
      expect(out).toContain("Event name 'bad name' cannot be used");
      expect(out).toMatch(/app\.wo:4:\d+/);
      expect(out).toContain("nope");
      expect(out).not.toContain("WO2115");
      expect(out).not.toContain("WO2102");
    } finally {
      removeApp(dir);
    }
  });
});
