// A small real app for the MCP tests while `wo build`/`wo run` are not available: a catalog,
// manifest and operations record for one type `Note`, over a real SQLite file. It mirrors the
// build contract (model/build-contract.ts) closely enough that the same tests can later point at a
// real `wo run`. The slow tool `note_slow_create` exists so cancellation can be observed.

import Database from "better-sqlite3";
import { getRequestListener } from "@hono/node-server";
import { createServer, type Server } from "node:http";
import { Hono } from "hono";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { Catalog, CatalogField } from "../../../model/app.js";
import { defaultLimits } from "../../../model/app.js";
import type { AppContract, Manifest, Operation, OperationKind } from "../../../model/build-contract.js";
import { OperationError } from "../../../model/errors.js";
import type { AuditEntry, AuditQuery, ChangeLogRead, Row, Store, StoreTx } from "../../../model/store.js";
import type { McpHandler, McpOptions } from "../../../runtime/mcp/index.js";
import { createMcpRoutes } from "../../../runtime/mcp/fetch.js";
import { serveMcpNode } from "../../../runtime/mcp/node.js";

const loc = { file: "note.wo", line: 1, col: 1 };
const field = (name: string, scalar: "Id" | "Text" | "Bool", opt: Partial<CatalogField> = {}): CatalogField => ({
  name,
  type: { kind: "scalar", scalar },
  isOptional: false,
  isUnique: false,
  isStored: true,
  isWritable: name !== "id",
  isRequiredOnCreate: name === "title",
  source: loc,
  ...opt,
});

export const catalog: Catalog<undefined> = {
  app: { name: "notes", version: "0.1.0", description: "A test app" },
  config: {
    dataDir: ".wo/data",
    limits: defaultLimits(),
    mcp: { sessions: true, allowedOrigins: [] },
    allowedOrigins: [],
    maxBodyBytes: 1 << 20,
    concurrency: { running: 64, queued: 1024 },
  },
  types: [
    {
      name: "Note",
      snake: "note",
      keyword: "type",
      table: "note",
      doc: "A short note",
      fields: [
        field("id", "Id"),
        field("title", "Text"),
        field("body", "Text", { isOptional: true }),
        field("done", "Bool", { default: { kind: "literal", value: false } as never }),
      ],
      indexes: [],
      services: [],
      methods: [],
      rest: [{ path: "/api/notes", ops: ["list", "get", "create", "update", "delete"] }],
      mcp: ["list", "get", "create", "update", "delete"],
      source: loc,
    },
  ],
};

const rowSchema = {
  type: "object",
  properties: {
    id: { type: "integer" },
    title: { type: "string" },
    body: { type: ["string", "null"] },
    done: { type: "boolean" },
  },
  required: ["id", "title", "body", "done"],
};
const idInput = {
  type: "object",
  properties: { id: { type: "integer", minimum: 1 } },
  required: ["id"],
  additionalProperties: false,
};
const tool = (name: string, inputSchema: object, outputSchema: object, annotations: object) => ({
  name,
  title: name,
  description: `${name} on Note`,
  inputSchema,
  outputSchema,
  annotations,
});

export const manifest: Manifest = {
  tools: [
    tool(
      "note_create",
      {
        type: "object",
        properties: { title: { type: "string", minLength: 1 }, body: { type: "string" }, done: { type: "boolean" } },
        required: ["title"],
        additionalProperties: false,
      },
      rowSchema,
      { idempotentHint: false },
    ),
    tool(
      "note_delete",
      idInput,
      {
        type: "object",
        properties: { deleted: { type: "boolean" }, id: { type: "integer" } },
        required: ["deleted", "id"],
      },
      { destructiveHint: true, idempotentHint: true },
    ),
    tool("note_get", idInput, rowSchema, { readOnlyHint: true }),
    tool(
      "note_list",
      {
        type: "object",
        properties: { limit: { type: "integer" }, cursor: { type: "string" } },
        additionalProperties: false,
      },
      {
        type: "object",
        properties: { items: { type: "array", items: rowSchema }, nextCursor: { type: "string" } },
        required: ["items"],
      },
      { readOnlyHint: true },
    ),
    tool(
      "note_slow_create",
      { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      rowSchema,
      {},
    ),
    tool(
      "note_update",
      {
        type: "object",
        properties: {
          id: { type: "integer" },
          title: { type: "string", minLength: 1 },
          body: { type: "string" },
          done: { type: "boolean" },
        },
        required: ["id"],
        additionalProperties: false,
      },
      rowSchema,
      { idempotentHint: true },
    ),
  ],
  resourceTemplates: [{ uriTemplate: "wo://note/{id}", name: "note", title: "Note", mimeType: "application/json" }],
  routes: [],
};

/** app.json of the fixture: the model above and one operations-table entry per tool. */
const kinds: Record<string, OperationKind> = {
  note_create: "create",
  note_delete: "delete",
  note_get: "get",
  note_list: "list",
  note_slow_create: "create",
  note_update: "update",
};
export const notesApp: AppContract = {
  ...catalog,
  // note_slow_create is the fixture's own, not among Note's exposed ops (`mcp` above): it belongs
  // to no declared type, so no schema resource lists it, as before.
  operations: manifest.tools.map((t) => ({
    ...t,
    type: t.name === "note_slow_create" ? "SlowNote" : "Note",
    kind: kinds[t.name]!,
    op: t.name.slice("note_".length),
    mcp: true,
    routes: [],
    inputNames: Object.keys((t.inputSchema as { properties?: object }).properties ?? {}),
  })),
  runtimeRoutes: [],
  resourceTemplates: manifest.resourceTemplates,
};

/** A minimal SQLite Store: one JSON-free table `note`, writes serialized, abort → rollback. */
export class NoteStore implements Store {
  readonly db: Database.Database;
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, done INTEGER NOT NULL DEFAULT 0)",
    );
  }
  private tx(): StoreTx {
    const db = this.db;
    const audit = this.audit;
    const out = (r: any): Row | undefined =>
      r ? { id: r.id, title: r.title, body: r.body ?? null, done: r.done === 1 } : undefined;
    return {
      async get(_t, id) {
        return out(db.prepare("SELECT * FROM note WHERE id = ?").get(id));
      },
      async list(_t, q) {
        return db
          .prepare("SELECT * FROM note WHERE id > ? ORDER BY id LIMIT ?")
          .all(q?.after?.id ?? 0, q?.limit ?? 1e9)
          .map((r) => out(r)!);
      },
      async count() {
        return (db.prepare("SELECT count(*) AS n FROM note").get() as { n: number }).n;
      },
      async insert(_t, v) {
        const r = db
          .prepare("INSERT INTO note (title, body, done) VALUES (?, ?, ?)")
          .run(v.title, v.body ?? null, v.done ? 1 : 0);
        return out(db.prepare("SELECT * FROM note WHERE id = ?").get(r.lastInsertRowid))!;
      },
      async update(_t, id, p) {
        const cur = out(db.prepare("SELECT * FROM note WHERE id = ?").get(id));
        if (!cur) return undefined;
        const n = { ...cur, ...p };
        db.prepare("UPDATE note SET title = ?, body = ?, done = ? WHERE id = ?").run(
          n.title,
          n.body ?? null,
          n.done ? 1 : 0,
          id,
        );
        return n;
      },
      async delete(_t, id) {
        return db.prepare("DELETE FROM note WHERE id = ?").run(id).changes > 0;
      },
      async insertWithId(_t, id, v) {
        db.prepare("INSERT INTO note (id, title, body, done) VALUES (?, ?, ?, ?)").run(
          id,
          v.title,
          v.body ?? null,
          v.done ? 1 : 0,
        );
        return out(db.prepare("SELECT * FROM note WHERE id = ?").get(id))!;
      },
      async referrers() {
        return [];
      },
      // The fixture's tools never nest writes: a savepoint is the SQLite one, unnamed twice.
      async savepoint(fn) {
        db.exec("SAVEPOINT fixture_sp");
        try {
          const result = await fn();
          db.exec("RELEASE fixture_sp");
          return result;
        } catch (err) {
          db.exec("ROLLBACK TO fixture_sp");
          db.exec("RELEASE fixture_sp");
          throw err;
        }
      },
      async appendAudit(record) {
        audit.push({ ...record, seq: audit.length + 1 });
      },
      async appendEvent() {
        throw new Error("this in-memory store keeps no application events");
      },
      async appendJob() {
        throw new Error("this in-memory store keeps no jobs");
      },
    };
  }
  /** The audit trail, in memory (the real stores keep it in `_wo_audit`). */
  readonly audit: AuditEntry[] = [];
  async readAudit(q: AuditQuery) {
    const entries = this.audit.filter((e) => e.seq > (q.after ?? 0)).slice(0, q.limit);
    return { entries, more: false };
  }
  async read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return fn(this.tx());
  }
  private queue: Promise<unknown> = Promise.resolve();
  write<T>(fn: (tx: StoreTx) => Promise<T>, options?: { signal?: AbortSignal }): Promise<T> {
    const run = async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const v = await fn(this.tx());
        if (options?.signal?.aborted)
          throw new OperationError("cancelled", "The call was cancelled before it committed; nothing changed");
        this.db.exec("COMMIT");
        return v;
      } catch (e) {
        this.db.exec("ROLLBACK");
        throw e;
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }
  /** No change events: these tests never subscribe (test/live does, on the real store). */
  onCommit() {
    return () => {};
  }
  async changesAfter(): Promise<ChangeLogRead> {
    return { gone: true, newest: 0 };
  }
  async close() {
    this.db.close();
  }
}

function check(input: unknown, required: string[]): Record<string, unknown> {
  if (typeof input !== "object" || input === null) throw new OperationError("invalid_input", "Input must be an object");
  const o = input as Record<string, unknown>;
  const details = required.filter((k) => o[k] === undefined).map((k) => ({ path: `/${k}`, message: "is required" }));
  if (typeof o.title === "string" && o.title.length === 0)
    details.push({ path: "/title", message: "must NOT have fewer than 1 characters" });
  if (o.id !== undefined && !Number.isInteger(o.id)) details.push({ path: "/id", message: "must be integer" });
  if (details.length)
    throw new OperationError("invalid_input", "The input does not match the tool's inputSchema", details);
  return o;
}

/** Set by a test to hold note_slow_create inside its transaction. */
export const slow = { gate: Promise.resolve() as Promise<unknown>, entered: () => {}, aborted: () => {} };

export function createOperations(store: Store): Record<string, Operation> {
  const notFound = (id: unknown) => new OperationError("not_found", `Note ${String(id)} does not exist`);
  return {
    note_list: async (input) => {
      const o = check(input ?? {}, []);
      const limit = typeof o.limit === "number" ? o.limit : 50;
      const after = typeof o.cursor === "string" ? Number(Buffer.from(o.cursor, "base64url").toString()) : 0;
      const rows = await store.read((tx) => tx.list("note", { after: { id: after }, limit: limit + 1 }));
      const items = rows.slice(0, limit);
      return rows.length > limit
        ? { items, nextCursor: Buffer.from(String(items[items.length - 1]!.id)).toString("base64url") }
        : { items };
    },
    note_get: async (input) => {
      const { id } = check(input, ["id"]);
      const row = await store.read((tx) => tx.get("note", id as number));
      if (!row) throw notFound(id);
      return row;
    },
    note_create: async (input, call) => {
      const o = check(input, ["title"]);
      return store.write((tx) => tx.insert("note", { title: o.title, body: o.body ?? null, done: o.done ?? false }), {
        signal: call.signal,
      });
    },
    note_slow_create: async (input, call) => {
      const o = check(input, ["title"]);
      call.signal?.addEventListener("abort", () => slow.aborted(), { once: true });
      return store.write(
        async (tx) => {
          const row = await tx.insert("note", { title: o.title, body: null, done: false });
          slow.entered();
          await slow.gate;
          return row;
        },
        { signal: call.signal },
      );
    },
    note_update: async (input, call) => {
      const { id, ...patch } = check(input, ["id"]);
      const row = await store.write((tx) => tx.update("note", id as number, patch), { signal: call.signal });
      if (!row) throw notFound(id);
      return row;
    },
    note_delete: async (input, call) => {
      const { id } = check(input, ["id"]);
      const ok = await store.write((tx) => tx.delete("note", id as number), { signal: call.signal });
      if (!ok) throw notFound(id);
      return { deleted: true, id };
    },
  };
}

export interface FixtureServer {
  url: string;
  base: string;
  store: NoteStore;
  /** The handler itself: setBuild() swaps what it serves (list changes, spec/live.md). */
  mcp: McpHandler;
  close(): Promise<void>;
}

/**
 * Serves /mcp (and a tiny GET /api/notes/:id for parity checks) on 127.0.0.1:0. `/mcp` goes the
 * way `wo run` serves it, straight on node:http (runtime/mcp/node.ts), unless `via: "hono"`
 * asks for the fetch-API adapter (createMcpRoutes) that in-process hono users get.
 */
export async function startFixture(
  opts: {
    sessions?: boolean;
    allowedOrigins?: string[];
    maxBodyBytes?: number;
    options?: McpOptions;
    via?: "node" | "hono";
  } = {},
): Promise<FixtureServer> {
  const dir = mkdtempSync(join(tmpdir(), "wo-mcp-"));
  const store = new NoteStore(join(dir, "app.db"));
  const operations = createOperations(store);
  const config = {
    ...catalog.config,
    maxBodyBytes: opts.maxBodyBytes ?? 1 << 20,
    mcp: { sessions: opts.sessions ?? true, allowedOrigins: opts.allowedOrigins ?? [] },
  };
  const app = new Hono();
  const routes = createMcpRoutes({
    catalog: notesApp,
    operations,
    store,
    config,
    serverInfo: { name: "notes", version: "0.1.0" },
    listenHost: "127.0.0.1",
    options: { log: () => {}, ...opts.options },
  });
  app.route("/mcp", routes);
  app.get("/api/notes/:id", async (c) => {
    try {
      return c.json(await operations.note_get!({ id: Number(c.req.param("id")) }, {}));
    } catch {
      return c.json({ title: "Not Found" }, 404);
    }
  });
  const honoListener = getRequestListener(app.fetch);
  const viaNode = (opts.via ?? "node") === "node";
  const server: Server = await new Promise((resolve) => {
    const s = createServer((req, res) =>
      viaNode && req.url === "/mcp" ? serveMcpNode(routes.mcp, req, res) : honoListener(req, res),
    );
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    base,
    store,
    mcp: routes.mcp,
    async close() {
      routes.mcp.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
