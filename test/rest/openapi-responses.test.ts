// The served OpenAPI document is true: every sample app runs under the real CLI, its
// `/openapi.json` is validated as a document, and then every operation in it is called with
// requests derived from the document itself (paths, parameters, request-body schemas) until it
// has answered each status the document lists for it. Every answer is checked against the
// document: its status must be listed for that operation, its declared headers present, its
// body valid against the response schema; a 405 or an unknown route's 404, which no operation
// lists, must still be the document's wo.Problem. Objects in the document are validated closed
// (no members beyond the documented ones), so a field the server adds or renames is drift too.
// New operations and samples are covered without touching this file.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { rawRequest, type RawReply } from "../support/raw-http.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Json = any;
type Schema = Record<string, Json>;

const samples = ["hello", "blog", "pricing", "ledger"];
const token = "openapi-responses-test-token";
const missingId = 999999;
/** Above every sample's `[server] max_body_bytes` (and the 1 MiB default). */
const oversized = 2 * 1024 * 1024 + 1;
/** A `[database] max_bytes` a few dozen padded rows fill (an empty sample database is at most 15 pages of 4 KiB). */
const fullBytes = 131072;
const padding = "x".repeat(2000);

/**
 * Documented statuses not every operation can be made to produce: 503 comes from a write to a
 * full database (produced below, for writes) or from more calls running at once than
 * `max_running` allows (a timing race, so a read's 503 is left out); a method's 422 needs a
 * method whose own writes name a missing row — the sample methods check their refs first.
 * Everything else must be produced.
 */
function unproducible(op: Operation, status: string): boolean {
  return (
    (status === "503" && op.kind !== "create") ||
    (status === "422" && op.kind === "method") ||
    // `me` answers 200 to a caller with a user id: the owner these runs call as has none.
    (status === "200" && op.kind === "me")
  );
}

interface Operation {
  id: string;
  method: string;
  /** The path template, `{id}` included. */
  path: string;
  doc: Schema;
  kind: "list" | "get" | "create" | "update" | "delete" | "method" | "me" | "live" | "link" | "unlink";
}

describe.each(samples)("the OpenAPI document of samples/%s matches its responses", (sample) => {
  let app: string;
  const fullApps: string[] = [];
  const running: WoProcess[] = [];
  afterAll(async () => {
    for (const p of running) await p.stop();
    for (const dir of [app, ...fullApps]) if (dir) removeApp(dir);
  });

  it("validates, and every operation answers each documented status as documented", { timeout: 120_000 }, async () => {
    app = copyApp(`samples/${sample}`);
    const tokenFile = join(dirname(app), "token");
    writeFileSync(tokenFile, token, { mode: 0o600 });
    const open = await startWo([app, "--listen", "127.0.0.1:0", "--db", join(dirname(app), "data-open")]);
    running.push(open);
    const guarded = await startWo([
      app,
      "--listen",
      "127.0.0.1:0",
      "--db",
      join(dirname(app), "data-token"),
      "--token-file",
      tokenFile,
    ]);
    running.push(guarded);

    const served = await rawRequest(open.url, "GET", "/openapi.json");
    expect(served.status).toBe(200);
    const doc: Json = served.json;
    await SwaggerParser.validate(structuredClone(doc));

    const checker = new ResponseChecker(doc);
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(0);
    const call = async (
      op: Operation,
      id: number | string | undefined,
      init: Request = {},
      base = open.url,
    ): Promise<RawReply> => {
      // A relation's link routes name a second row: `{tag}` in `/api/posts/{id}/tags/{tag}`.
      const path =
        op.path.replace("{id}", String(id)).replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/, String(init.target ?? 1)) +
        (init.query ?? "");
      const headers: Record<string, string> = {
        ...(op.doc.requestBody && init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      };
      const reply = await rawRequest(base, op.method, path, headers, init.body);
      checker.check(op, `${op.method} ${path}${init.note ? ` (${init.note})` : ""}`, reply);
      return reply;
    };

    // Rows to work on: each create run until it succeeds twice (a create whose refs name rows
    // another create makes later answers 422 first), then each method twice (a method may need
    // what another makes: a price before the current price, a balance before a transfer).
    const creates = ops.filter((o) => o.kind === "create");
    const seed = async (base: string, rows: number): Promise<Map<string, Json[]>> => {
      const seeds = new Map<string, Json[]>();
      for (let round = 0; round < rows * creates.length + 2; round++) {
        for (const op of creates) {
          const made = seeds.get(op.id) ?? [];
          if (made.length >= rows) continue;
          const body = example(checker.bodySchema(op), `${sample}${round}x${made.length}`, checker);
          const r = await call(op, undefined, { body: JSON.stringify(body) }, base);
          if (r.status === 201) seeds.set(op.id, [...made, body]);
        }
      }
      for (const op of creates) expect(seeds.get(op.id)?.length, `${op.id} never created a row`).toBe(rows);
      return seeds;
    };
    const seeds = await seed(open.url, 2);
    for (let pass = 0; pass < 2; pass++) {
      for (const op of ops.filter((o) => o.kind === "method")) {
        for (const body of methodBodies(checker.bodySchema(op), checker))
          await call(op, 1, { body: JSON.stringify(body) });
      }
    }

    for (const op of ops) {
      const body = op.doc.requestBody
        ? JSON.stringify(example(checker.bodySchema(op), "e", checker, false))
        : undefined;
      const hasId = op.path.includes("{id}");
      const valid: Request = body === undefined ? {} : { body };
      // 401 and 403: the same request without the token (admitted as anonymous where a policy
      // grants anyone the action), with a wrong one, and from a foreign Host.
      await call(op, 1, { ...valid, note: "no token" }, guarded.url);
      await call(op, 1, { ...valid, headers: { authorization: "Bearer wrong" }, note: "wrong token" }, guarded.url);
      await call(op, 1, { ...valid, headers: { host: "evil.example" }, note: "foreign Host" });
      if (op.kind === "me") {
        await call(op, 1);
        continue;
      }
      if (op.kind === "live") {
        // The stream's status and headers, then the filter errors it shares with list.
        await call(op, 1);
        await call(op, 1, { query: "?no_such_field=1" });
        await call(op, 1, { query: "?limit=1" });
        continue;
      }
      if (hasId) {
        await call(op, "abc", valid);
        if (op.kind !== "delete") await call(op, missingId, valid);
      }
      if (op.kind === "list") {
        // Row 1 owns what a list under `{id}` would list.
        await call(op, 1);
        const page = await call(op, 1, { query: "?limit=1" });
        if (page.json?.nextCursor)
          await call(op, 1, { query: `?limit=1&cursor=${encodeURIComponent(page.json.nextCursor)}` });
        const parameters = ((op.doc.parameters ?? []) as Schema[]).filter((p) => p.in === "query");
        for (const p of parameters) {
          if (p.name === "limit" || p.name === "cursor") continue;
          // `field[in]` is a comma-separated text of the field's values: one value is a list.
          const of = /^(.+)\[in\]$/.exec(p.name)?.[1];
          const schema = (of && parameters.find((q) => q.name === of)?.schema) || p.schema;
          const page = await call(op, 1, {
            query: `?${p.name}=${encodeURIComponent(String(example(schema, "f", checker)))}&limit=1`,
          });
          if (page.json?.nextCursor)
            await call(op, 1, {
              query: `?${p.name}=${encodeURIComponent(String(example(schema, "f", checker)))}&limit=1&cursor=${encodeURIComponent(page.json.nextCursor)}`,
            });
        }
        await call(op, 1, { query: "?no_such_field=1" });
        await call(op, 1, { query: "?limit=0" });
        await call(op, 1, { query: "?cursor=not-a-cursor" });
      }
      if (op.kind === "get") await call(op, 1);
      if (op.kind === "link" || op.kind === "unlink") {
        await call(op, 1, { ...valid, target: "abc", note: "bad target id" });
        await call(op, 1, { ...valid, target: missingId, note: "missing target" });
        // Unlinking what is not linked is 204 too; linking twice is 201, then 200.
        await call(op, 1, valid);
        await call(op, 1, valid);
      }
      if (body !== undefined) {
        await call(op, 1, { body: "{", note: "bad JSON" });
        await call(op, 1, { body: JSON.stringify({ no_such_field: 1 }), note: "schema failure" });
        await call(op, 1, { body: " ", headers: { "content-length": String(oversized) }, note: "oversized" });
        await call(op, 1, { body, headers: { "content-type": "text/plain" }, note: "wrong content type" });
        // Each top-level id-like integer pointed at a missing row: a ref answers 422.
        for (const [name, schema] of Object.entries(checker.resolve(checker.bodySchema(op)).properties ?? {}) as [
          string,
          Schema,
        ][]) {
          const s = checker.resolve(schema);
          if (typeOf(s) === "integer" && s.minimum === 1)
            await call(op, 1, {
              body: JSON.stringify({ ...JSON.parse(body), [name]: missingId }),
              note: `dangling ${name}`,
            });
        }
      }
      if (op.kind === "update") {
        await call(op, 1, { body: "{}" });
        // Row 2 takes row 1's values: a @unique field answers 409.
        const first = seeds.get(createOf(ops, op)?.id ?? "")?.[0];
        if (first)
          await call(op, 2, {
            body: JSON.stringify(pick(first, checker.resolve(checker.bodySchema(op)).properties ?? {})),
            note: "row 1's values",
          });
      }
      if (op.kind === "create") {
        const first = seeds.get(op.id)?.[0];
        if (first) await call(op, undefined, { body: JSON.stringify(first), note: "row 1's values again" });
      }
      if (op.kind === "delete") {
        await call(op, missingId);
        // A fresh row is referenced by nothing: 204.
        const create = createOf(ops, op);
        if (create) {
          const r = await call(create, undefined, {
            body: JSON.stringify(example(checker.bodySchema(create), "fresh", checker)),
          });
          if (r.status === 201) await call(op, r.json.id);
        }
      }
    }
    // Answers no operation documents, still problem details as the document's wo.Problem says:
    // a method a documented path does not have (405, `Allow` naming the documented methods) and
    // a path under /api that no route has (404).
    for (const [path, item] of Object.entries(doc.paths) as [string, Schema][]) {
      const documented = Object.keys(item).map((m) => m.toUpperCase());
      const concrete = path.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, "1");
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !documented.includes(m))) {
        const reply = await rawRequest(open.url, method, concrete);
        checker.checkProblem(`${method} ${concrete}`, reply, 405);
        expect(reply.headers.allow, `${method} ${concrete}`).toBe([...documented].sort().join(", "));
      }
    }
    checker.checkProblem("GET /api/no-such-route", await rawRequest(open.url, "GET", "/api/no-such-route"), 404);

    // Last, as they may remove rows the calls above use: row 1 of each type, which other rows
    // may still reference (409).
    for (const op of ops.filter((o) => o.kind === "delete")) await call(op, 1);

    // A database at its `[database] max_bytes`: every write that needs room answers 503.
    const fullApp = copyApp(`samples/${sample}`);
    fullApps.push(fullApp);
    const toml = join(fullApp, "wo.toml");
    const text = readFileSync(toml, "utf8");
    writeFileSync(
      toml,
      text.includes("[database]")
        ? text.replace("[database]", `[database]\nmax_bytes = ${fullBytes}`)
        : `${text}\n[database]\nmax_bytes = ${fullBytes}\n`,
    );
    const full = await startWo([fullApp, "--listen", "127.0.0.1:0"]);
    running.push(full);
    // One row of each type first, so a create whose refs need them is refused for room, not for refs.
    await seed(full.url, 1);
    let fullAnswers = 0;
    for (const op of creates) {
      for (let i = 0; i < 400; i++) {
        const r = await call(
          op,
          undefined,
          {
            body: JSON.stringify(example(checker.bodySchema(op), `full${i}`, checker, false, padding)),
            note: "filling",
          },
          full.url,
        );
        if (r.status === 503) fullAnswers++;
        if (r.status !== 201) break;
      }
    }
    for (const op of ops.filter((o) => o.doc.requestBody && o.kind !== "create")) {
      await call(
        op,
        1,
        {
          body: JSON.stringify(example(checker.bodySchema(op), "fullw", checker, true, padding)),
          note: "full database",
        },
        full.url,
      );
    }
    expect(fullAnswers, "every create on a full database answered 503").toBe(creates.length);

    const unproduced = ops.flatMap((op) =>
      Object.keys(op.doc.responses)
        .filter((s) => !unproducible(op, s) && !checker.seen(op, s))
        .map((s) => `${op.id} ${s}`),
    );
    expect({ drift: checker.failures, unproduced }).toEqual({ drift: [], unproduced: [] });
  });
});

interface Request {
  /** The second path parameter of a relation's link routes; row 1 by default. */
  target?: number | string;
  body?: string;
  headers?: Record<string, string>;
  query?: string;
  note?: string;
}

/** The operations of the document, classified by method, success status and paging parameters. */
function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths) as [string, Schema][]) {
    for (const [method, opDoc] of Object.entries(item) as [string, Schema][]) {
      const r = opDoc.responses;
      const paged = ((opDoc.parameters ?? []) as Schema[]).some((p) => p.in === "query" && p.name === "limit");
      const linkRoute = /\{(?!id\})[A-Za-z_][A-Za-z0-9_]*\}/.test(path);
      const kind: Operation["kind"] = linkRoute
        ? method === "put"
          ? "link"
          : "unlink"
        : r["201"]
          ? "create"
          : r["204"]
            ? "delete"
            : method === "patch"
              ? "update"
              : method === "post"
                ? "method"
                : path.endsWith("/me")
                  ? "me"
                  : r["200"].content?.["text/event-stream"]
                    ? "live"
                    : paged
                      ? "list"
                      : "get";
      out.push({ id: opDoc.operationId, method: method.toUpperCase(), path, doc: opDoc, kind });
    }
  }
  return out;
}

/** The create operation on the collection an item operation belongs to. */
function createOf(ops: Operation[], op: Operation): Operation | undefined {
  const collection = op.path.replace(/\/\{id\}.*$/, "");
  return ops.find((o) => o.kind === "create" && o.path === collection);
}

function pick(values: Record<string, Json>, properties: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => k in properties));
}

class ResponseChecker {
  readonly failures: string[] = [];
  private readonly observed = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true });
  private readonly closed: Json;

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    // Response schemas are compiled with the document's components beside them, so their
    // `#/components/…` references resolve; the copy is closed (see the file comment).
    this.closed = closeObjects(structuredClone(doc));
  }

  resolve(schema: Schema): Schema {
    let s = schema;
    while (s && typeof s.$ref === "string")
      s = s.$ref
        .slice(2)
        .split("/")
        .reduce((node: Json, key: string) => node[key.replace(/~1/g, "/").replace(/~0/g, "~")], this.doc);
    return s;
  }

  bodySchema(op: Operation): Schema {
    return this.resolve(op.doc.requestBody).content["application/json"].schema;
  }

  seen(op: Operation, status: string): boolean {
    return this.observed.has(`${op.id} ${status}`);
  }

  check(op: Operation, what: string, reply: RawReply): void {
    const status = String(reply.status);
    this.observed.add(`${op.id} ${status}`);
    const documented = op.doc.responses[status];
    if (!documented) {
      this.failures.push(`${what}: ${status} is not documented for ${op.id} (${reply.text.slice(0, 200)})`);
      return;
    }
    const response = this.resolve(documented);
    for (const [name, header] of Object.entries(response.headers ?? {}) as [string, Schema][]) {
      const value = reply.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) this.failures.push(`${what}: ${status} lacks the ${name} header`);
        continue;
      }
      this.validate(`${what}: header ${name}`, header.schema, value);
    }
    const mediaType = String(reply.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (!response.content) {
      if (reply.text !== "") this.failures.push(`${what}: ${status} is documented without a body but has one`);
      return;
    }
    if (!response.content[mediaType]) {
      this.failures.push(
        `${what}: ${status} is ${mediaType || "untyped"}; documented: ${Object.keys(response.content).join(", ")}`,
      );
      return;
    }
    // A live stream is documented as text; its events are spec/live.md's, not a JSON body.
    if (mediaType === "text/event-stream") return;
    if (reply.json === undefined && reply.text !== "null") {
      this.failures.push(`${what}: ${status} body is not JSON: ${reply.text.slice(0, 200)}`);
      return;
    }
    this.validate(`${what}: ${status} body`, response.content[mediaType].schema, reply.json ?? null);
  }

  /** An answer outside every operation: `status`, problem+json, and a body the document's wo.Problem admits. */
  checkProblem(what: string, reply: RawReply, status: number): void {
    if (reply.status !== status)
      this.failures.push(`${what}: ${reply.status}, expected ${status} (${reply.text.slice(0, 200)})`);
    const mediaType = String(reply.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (mediaType !== "application/problem+json")
      this.failures.push(`${what}: ${status} is ${mediaType || "untyped"}, not application/problem+json`);
    this.validate(`${what}: ${status} body`, { $ref: "#/components/schemas/wo.Problem" }, reply.json ?? null);
  }

  private readonly compiled = new Map<string, ValidateFunction>();

  private validate(what: string, schema: Schema, value: unknown): void {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate)
      this.compiled.set(
        key,
        (validate = this.ajv.compile({ ...closeObjects(structuredClone(schema)), components: this.closed.components })),
      );
    if (!validate(value))
      this.failures.push(
        `${what} does not match the document: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 300)}`,
      );
  }
}

/** Every object schema with `properties` and no `additionalProperties` gets `additionalProperties: false`. */
function closeObjects(node: Json): Json {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node && typeof node === "object") {
    if (node.properties && typeof node.properties === "object" && node.additionalProperties === undefined)
      node.additionalProperties = false;
    for (const value of Object.values(node)) closeObjects(value);
  }
  return node;
}

function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  return Array.isArray(t) ? t.find((x) => x !== "null") : t;
}

/**
 * A value valid against `schema`, distinct per `tag` where the schema allows (so @unique fields
 * do not collide). Objects get their required members (all members when `full`); free text
 * ends with `pad`.
 */
function example(schema: Schema, tag: string, checker: ResponseChecker, full = false, pad = ""): Json {
  const s = checker.resolve(schema);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v: Json) => v !== null);
  if (s.anyOf)
    return example(
      s.anyOf.find((x: Schema) => typeOf(checker.resolve(x)) !== "null") ?? s.anyOf[0],
      tag,
      checker,
      full,
      pad,
    );
  const safe = tag.replace(/[^a-z0-9]/gi, "").toLowerCase() || "x";
  switch (typeOf(s)) {
    case "object": {
      const required = new Set<string>(s.required ?? []);
      const out: Record<string, Json> = {};
      for (const [name, sub] of Object.entries(s.properties ?? {}) as [string, Schema][]) {
        if (full || required.has(name)) out[name] = example(sub, `${tag}${name}`, checker, full, pad);
      }
      return out;
    }
    case "array":
      return s.minItems ? [example(s.items, tag, checker, full, pad)] : [];
    case "integer":
      return Math.max(1, s.minimum ?? 1);
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "string": {
      if (s.format === "email") return `${safe}@example.com`;
      if (s.format === "uri") return `https://example.com/${safe}`;
      if (s.format === "date-time") return new Date().toISOString();
      if (s.pattern) {
        const pattern = new RegExp(s.pattern, "u");
        const fit = [safe, safe.toUpperCase(), `a${safe}`].find((c) => pattern.test(c));
        if (fit === undefined) throw new Error(`no example for pattern ${s.pattern}`);
        return fit;
      }
      return `text ${tag}${pad}`;
    }
    default:
      return null;
  }
}

/** Method arguments to try: every integer parameter as 1, 2 or 0 (all combinations; 0 fails most asserts), the rest by example. */
function methodBodies(schema: Schema, checker: ResponseChecker): Json[] {
  const s = checker.resolve(schema);
  const base = example(s, "m", checker);
  const ints = Object.entries(s.properties ?? {})
    .filter(([, p]) => typeOf(checker.resolve(p as Schema)) === "integer")
    .map(([name]) => name);
  let bodies: Json[] = [base];
  for (const name of ints) bodies = bodies.flatMap((b) => [1, 2, 0].map((v) => ({ ...b, [name]: v })));
  return bodies;
}
