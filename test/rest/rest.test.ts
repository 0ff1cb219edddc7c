// REST end to end (spec/rest.md): `node bin/wo.js run test/fixtures/apps/press` on a real
// socket over a real SQLite file. The same model as a hand-made catalog
// (test/fixtures/catalog.ts) backs the one in-process test that needs to break the store.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { blogCatalog } from "../fixtures/catalog.js";
import { dumpDatabase, send, sendJson, serveApp, type Reply, type Served } from "./support/harness.js";

// Starting `wo run` builds the app first: allow for it on a busy two-core machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });
const appDir = "test/fixtures/apps/press";

let app: Served;
let base: string;

beforeAll(async () => {
  app = await serveApp(appDir);
  base = app.url;
});
afterAll(async () => {
  await app?.dispose();
});

function expectProblem(r: Reply, status: number) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.json).toMatchObject({
    status,
    type: expect.stringMatching(/^urn:wo:problem:/),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(r.text).not.toMatch(/\bat .*\.(?:js|ts):\d+/); // no stack trace
}

describe("runtime endpoints", () => {
  it("GET /healthz answers ok and GET / describes the app", async () => {
    const health = await send(base, "GET", "/healthz");
    expect([health.status, health.text]).toEqual([200, "ok"]);
    const info = await send(base, "GET", "/");
    expect(info.json).toMatchObject({ app: "blog", version: "1.0.0", types: ["Author", "Article"] });
    expect(info.json.endpoints).toContainEqual({ method: "POST", path: "/api/articles", op: "article_create" });
    expect(info.json.endpoints).toContainEqual({ method: "GET", path: "/api/articles/live", op: "subscribe" });
    expect(info.json.mcp.tools).toBeGreaterThan(0);
  });
});

describe("CRUD", () => {
  it("creates (201 + Location), gets, patches partially, deletes (204), then 404", async () => {
    const author = await sendJson(base, "POST", "/api/authors", { name: "Ada", email: "ada@example.com" });
    expect(author.status).toBe(201);
    expect(author.headers.get("location")).toBe(`/api/authors/${author.json.id}`);
    expect(author.json).toEqual({ id: author.json.id, name: "Ada", email: "ada@example.com" });

    const created = await sendJson(base, "POST", "/api/articles", {
      title: "First",
      author: author.json.id,
      tags: ["a"],
    });
    expect(created.status).toBe(201);
    // Every stored field present, defaults applied, optional-never-set is null.
    expect(created.json).toEqual({
      id: created.json.id,
      title: "First",
      views: 0,
      published: false,
      status: "Draft",
      author: author.json.id,
      subtitle: null,
      tags: ["a"],
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const got = await send(base, "GET", `/api/articles/${created.json.id}`);
    expect(got.json).toEqual(created.json);

    const patched = await sendJson(base, "PATCH", `/api/articles/${created.json.id}`, {
      status: "Live",
      subtitle: "sub",
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual({ ...created.json, status: "Live", subtitle: "sub" });

    const authorOnly = await sendJson(base, "POST", "/api/authors", { name: "Tmp", email: "tmp@example.com" });
    const del = await send(base, "DELETE", `/api/authors/${authorOnly.json.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    expectProblem(await send(base, "GET", `/api/authors/${authorOnly.json.id}`), 404);
  });

  it("an empty body creates a row from defaults when nothing is required, and a PATCH with {} changes nothing", async () => {
    const a = await sendJson(base, "POST", "/api/authors", { name: "P", email: "p@example.com" });
    const same = await send(base, "PATCH", `/api/authors/${a.json.id}`, {
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(same.json).toEqual(a.json);
  });
});

describe("list", () => {
  it("filters by equality with values coerced by field type", async () => {
    const a = await sendJson(base, "POST", "/api/authors", { name: "Filt", email: "filt@example.com" });
    for (const [title, status, published, views] of [
      ["f1", "Live", true, 3],
      ["f2", "Draft", false, 3],
      ["f3", "Live", false, 7],
    ] as const) {
      expect(
        (await sendJson(base, "POST", "/api/articles", { title, status, published, views, author: a.json.id })).status,
      ).toBe(201);
    }
    const titles = async (q: string) =>
      (await send(base, "GET", `/api/articles?author=${a.json.id}&${q}`)).json.items.map(
        (r: { title: string }) => r.title,
      );
    expect(await titles("status=Live")).toEqual(["f1", "f3"]);
    expect(await titles("published=true")).toEqual(["f1"]);
    expect(await titles("views=3&status=Draft")).toEqual(["f2"]);
    expect(await titles("title=f%33")).toEqual(["f3"]);
    expect(await titles("title=none")).toEqual([]);
    // A union filter outside the union is a mistake, not an empty result.
    expect((await send(base, "GET", "/api/articles?status=Nope")).status).toBe(400);
  });

  it("walks a growing table page by page without duplicates or gaps", async () => {
    const a = await sendJson(base, "POST", "/api/authors", { name: "Pager", email: "pager@example.com" });
    const make = async (n: number) => {
      for (let i = 0; i < n; i++) await sendJson(base, "POST", "/api/articles", { title: `p${i}`, author: a.json.id });
    };
    await make(23);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await send(
        base,
        "GET",
        `/api/articles?author=${a.json.id}&limit=5${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.json.items.length).toBeLessThanOrEqual(5);
      seen.push(...page.json.items.map((r: { id: number }) => r.id));
      cursor = page.json.nextCursor;
      // The table grows while it is walked: new rows come after the cursor and are seen too.
      if (pages++ < 3) await make(2);
    } while (cursor);
    const all = (await send(base, "GET", `/api/articles?author=${a.json.id}&limit=1000`)).json;
    expect(all.nextCursor).toBeUndefined();
    expect(seen).toEqual(all.items.map((r: { id: number }) => r.id));
    expect(new Set(seen).size).toBe(23 + 6);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
  });

  it("defaults to 50 rows per page", async () => {
    const page = await send(base, "GET", "/api/articles");
    const count = (await send(base, "GET", "/api/articles?limit=1000")).json.items.length;
    expect(page.json.items.length).toBe(Math.min(50, count));
    expect(page.json.nextCursor === undefined).toBe(count <= 50);
  });
});

describe("hostile and malformed requests", () => {
  const json = { "content-type": "application/json" };
  const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), email: "big@example.com" });
  const deep = `{"name":${"[".repeat(50_000)}${"]".repeat(50_000)},"email":"d@example.com"}`;
  type Case = [
    name: string,
    method: string,
    path: string,
    init: { body?: string | Uint8Array; headers?: Record<string, string> },
    status: number,
    errorPath?: string,
  ];
  const cases: Case[] = [
    ["invalid JSON", "POST", "/api/authors", { body: '{"name":', headers: json }, 400],
    [
      "trailing garbage after JSON",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"a@b.cd"} x', headers: json },
      400,
    ],
    ["a JSON array body", "POST", "/api/authors", { body: "[]", headers: json }, 400],
    ["a JSON string body", "POST", "/api/authors", { body: '"x"', headers: json }, 400],
    ["a JSON null body", "POST", "/api/authors", { body: "null", headers: json }, 400],
    [
      "invalid UTF-8",
      "POST",
      "/api/authors",
      { body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: json },
      400,
    ],
    [
      "wrong type for a field",
      "POST",
      "/api/authors",
      { body: '{"name":5,"email":"t@example.com"}', headers: json },
      400,
      "/name",
    ],
    [
      "unknown field",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"u@example.com","admin":true}', headers: json },
      400,
      "/admin",
    ],
    [
      "__proto__ key",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"q@example.com","__proto__":{"x":1}}', headers: json },
      400,
      "/__proto__",
    ],
    ["missing required field", "POST", "/api/authors", { body: '{"name":"a"}', headers: json }, 400, "/email"],
    [
      "value outside a union",
      "POST",
      "/api/articles",
      { body: '{"title":"t","author":1,"status":"Deleted"}', headers: json },
      400,
      "/status",
    ],
    [
      "malformed email",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"not-an-email"}', headers: json },
      400,
      "/email",
    ],
    [
      "string where a list goes",
      "POST",
      "/api/articles",
      { body: '{"title":"t","author":1,"tags":"a"}', headers: json },
      400,
      "/tags",
    ],
    [
      "null for a required field in PATCH",
      "PATCH",
      "/api/articles/1",
      { body: '{"title":null}', headers: json },
      400,
      "/title",
    ],
    ["deeply nested JSON", "POST", "/api/authors", { body: deep, headers: json }, 400],
    ["body over the limit (Content-Length)", "POST", "/api/authors", { body: big, headers: json }, 413],
    [
      "text/plain body",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"tp@example.com"}', headers: { "content-type": "text/plain" } },
      415,
    ],
    [
      "form body",
      "POST",
      "/api/authors",
      { body: "name=a", headers: { "content-type": "application/x-www-form-urlencoded" } },
      415,
    ],
    [
      "JSON named only in a parameter",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"tpj@example.com"}', headers: { "content-type": "text/plain; application/json" } },
      415,
    ],
    [
      "a type that only starts like JSON",
      "POST",
      "/api/authors",
      { body: '{"name":"a","email":"jx@example.com"}', headers: { "content-type": "application/jsonx" } },
      415,
    ],
    ["body without Content-Type", "PATCH", "/api/articles/1", { body: '{"title":"x"}', headers: {} }, 415],
    ["negative id", "GET", "/api/articles/-1", {}, 400, "/id"],
    ["zero id", "GET", "/api/articles/0", {}, 400, "/id"],
    ["non-numeric id", "GET", "/api/articles/abc", {}, 400, "/id"],
    ["fractional id", "PATCH", "/api/articles/1.5", { body: "{}", headers: json }, 400, "/id"],
    ["id beyond 2^53", "DELETE", "/api/authors/99999999999999999999", {}, 400, "/id"],
    ["traversal-looking id", "GET", "/api/articles/..%2F..%2Fetc%2Fpasswd", {}, 400, "/id"],
    ["encoded NUL in id", "GET", "/api/articles/1%00", {}, 400, "/id"],
    ["unknown id on get", "GET", "/api/articles/424242", {}, 404],
    ["unknown id on patch", "PATCH", "/api/articles/424242", { body: '{"title":"x"}', headers: json }, 404],
    ["unknown id on delete", "DELETE", "/api/authors/424242", {}, 404],
    [
      "duplicate unique value",
      "POST",
      "/api/authors",
      { body: '{"name":"dup","email":"seed@example.com"}', headers: json },
      409,
      "/email",
    ],
    [
      "duplicate unique value by PATCH",
      "PATCH",
      "/api/authors/2",
      { body: '{"email":"seed@example.com"}', headers: json },
      409,
      "/email",
    ],
    [
      "dangling ref on create",
      "POST",
      "/api/articles",
      { body: '{"title":"t","author":424242}', headers: json },
      422,
      "/author",
    ],
    [
      "dangling ref on update",
      "PATCH",
      "/api/articles/1",
      { body: '{"author":424242}', headers: json },
      422,
      "/author",
    ],
    ["deleting a referenced row", "DELETE", "/api/authors/1", {}, 409],
    ["PUT is not an op", "PUT", "/api/articles/1", { body: "{}", headers: json }, 405],
    ["DELETE not exposed on articles", "DELETE", "/api/articles/1", {}, 405],
    ["POST to an item path", "POST", "/api/articles/1", { body: "{}", headers: json }, 405],
    ["unknown route", "GET", "/api/nothing", {}, 404],
    ["unknown filter field", "GET", "/api/articles?password=x", {}, 400, "/password"],
    ["filter value of the wrong type", "GET", "/api/articles?views=many", {}, 400, "/views"],
    ["bool filter that is not true/false", "GET", "/api/articles?published=yes", {}, 400, "/published"],
    ["repeated filter", "GET", "/api/articles?views=1&views=2", {}, 400, "/views"],
    ["limit 0", "GET", "/api/articles?limit=0", {}, 400, "/limit"],
    ["limit over 1000", "GET", "/api/articles?limit=5000", {}, 400, "/limit"],
    ["forged cursor", "GET", "/api/articles?cursor=!!!", {}, 400, "/cursor"],
    [
      "cursor that decodes to garbage",
      "GET",
      `/api/articles?cursor=${Buffer.from("-5").toString("base64url")}`,
      {},
      400,
      "/cursor",
    ],
    ["live stream with a list-only parameter", "GET", "/api/articles/live?limit=5", {}, 400, "/limit"],
    ["live stream with an unknown filter", "GET", "/api/articles/live?password=x", {}, 400, "/password"],
  ];

  let before: string;
  let seeded: { author: number; second: number; article: number };
  beforeAll(async () => {
    // Fixed ids the table refers to: author 1 (referenced by article 1) and author 2.
    const fresh = await serveApp(appDir);
    await app.dispose();
    app = fresh;
    base = app.url;
    const a1 = await sendJson(base, "POST", "/api/authors", { name: "Seed", email: "seed@example.com" });
    const a2 = await sendJson(base, "POST", "/api/authors", { name: "Other", email: "other@example.com" });
    const p1 = await sendJson(base, "POST", "/api/articles", { title: "Seed", author: a1.json.id });
    seeded = { author: a1.json.id, second: a2.json.id, article: p1.json.id };
    expect(seeded).toEqual({ author: 1, second: 2, article: 1 });
    before = dumpDatabase(app.dbFile);
  });

  it(`has at least 25 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  const table = cases.map(([name, method, path, init, status, errorPath]) => ({
    name,
    method,
    path,
    init,
    status,
    errorPath,
  }));
  it.each(table)("$name: $method $path → $status", async ({ method, path, init, status, errorPath }) => {
    const r = await send(base, method, path, init);
    expectProblem(r, status);
    if (status === 405) expect(r.headers.get("allow")).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
    if (errorPath) expect(r.json.errors?.map((e: { path: string }) => e.path)).toContain(errorPath);
  });

  it("what curl -d sends (a form type, or no type) is 415 with the header to add", async () => {
    for (const headers of [{ "content-type": "application/x-www-form-urlencoded" }, {}] as Record<string, string>[]) {
      const r = await send(base, "POST", "/api/authors", { body: '{"name":"c"}', headers });
      expectProblem(r, 415);
      expect(r.json.detail).toContain("with curl: -H 'content-type: application/json'");
    }
  });

  it("a chunked body over the limit is cut off while it streams (413)", async () => {
    // A raw socket: fetch reports EPIPE rather than the answer once the server stops reading.
    const { connect } = await import("node:net");
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    await new Promise((r) => socket.once("connect", r));
    let answer = "";
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("error", () => {}); // the server closes the connection: expected
    socket.write(
      `POST /api/authors HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`;
    const total = 1024; // 64 MiB offered; the limit is 1 MiB
    let sent = 0;
    while (sent < total && answer === "" && !socket.destroyed) {
      sent++;
      if (!socket.write(chunk))
        await new Promise((r) => {
          socket.once("drain", r);
          socket.once("close", r);
        });
    }
    // Generous on a loaded machine: the answer is checked, not how fast it came.
    for (let i = 0; i < 1500 && !/\r\n\r\n/.test(answer) && !socket.destroyed; i++)
      await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    // The answer came while the body was still streaming: it was never buffered whole.
    expect(sent).toBeLessThan(total);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
  });

  it("a client that sends its whole oversized body still reads the 413, not a reset", async () => {
    // What fetch does: send everything, then read. Closing a socket with unread bytes would
    // reset the connection and the client would see EPIPE/ECONNRESET instead of the answer.
    for (const size of [2 << 20, 8 << 20, 24 << 20]) {
      for (const chunked of [false, true]) {
        const bytes = Buffer.alloc(size, 0x78);
        const body = chunked
          ? new ReadableStream({
              start(c) {
                for (let i = 0; i < size; i += 0x10000) c.enqueue(bytes.subarray(i, i + 0x10000));
                c.close();
              },
            })
          : bytes;
        const r = await fetch(`${base}/api/authors`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit);
        expect([size, chunked, r.status]).toEqual([size, chunked, 413]);
        expect(((await r.json()) as any).type).toBe("urn:wo:problem:payload-too-large");
      }
    }
  });

  it("leaves the database exactly as it was", () => {
    expect(dumpDatabase(app.dbFile)).toBe(before);
  });
});

describe("concurrency", () => {
  it("200 concurrent creates → 200 rows with distinct ids", async () => {
    const a = await sendJson(base, "POST", "/api/authors", { name: "Many", email: "many@example.com" });
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        sendJson(base, "POST", "/api/articles", { title: `c${i}`, author: a.json.id }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(200).fill(201));
    const ids = new Set(replies.map((r) => r.json.id));
    expect(ids.size).toBe(200);
    const listed = (await send(base, "GET", `/api/articles?author=${a.json.id}&limit=1000`)).json.items;
    expect(listed.map((r: { id: number }) => r.id).sort((x: number, y: number) => x - y)).toEqual(
      [...ids].sort((x, y) => x - y),
    );
  });
});

describe("failures the caller did not cause", () => {
  it("an unexpected store failure is a plain 500 problem; the server logs one line without the body", async () => {
    const { loadBuild } = await import("../../runtime/load-build.js");
    const { openSqliteStore } = await import("../../runtime/store/sqlite.js");
    const { createApp } = await import("../../runtime/app.js");
    const { tempDir, writeBuild } = await import("./support/harness.js");
    const { join } = await import("node:path");
    const dir = tempDir();
    writeBuild(blogCatalog(), join(dir, "build"));
    const build = await loadBuild(join(dir, "build"));
    const { store } = await openSqliteStore({ file: join(dir, "data", "app.sqlite"), catalog: build.catalog });
    const lines: string[] = [];
    const app = await createApp({ build, store, log: (line) => lines.push(line) });
    // A real store in a real broken state: closed under the app's feet.
    await store.close();
    const res = await app.hono.request("/api/authors", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"secret-name","email":"s@example.com"}',
    });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toMatchObject({ status: 500, type: "urn:wo:problem:internal" });
    expect(JSON.stringify(body)).not.toMatch(/sqlite|database|connection|\.ts|\.js/i);
    expect(lines.length).toBe(1);
    expect(lines[0]).not.toContain("secret-name");
  });

  it("HEAD is answered like GET without a body", async () => {
    const res = await fetch(`${base}/api/authors`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("paths", () => {
  it("a trailing slash names the same route", async () => {
    const r = await send(base, "GET", "/api/authors/");
    expect(r.status).toBe(200);
    expect(r.json.items).toBeInstanceOf(Array);
  });
});

describe("never crashes on input", () => {
  it("random methods, paths, queries, headers and bodies never get a 5xx, and the server keeps serving", async () => {
    const fc = (await import("fast-check")).default;
    const segment = fc.oneof(
      fc.constantFrom(
        "api",
        "authors",
        "articles",
        "live",
        "me",
        "1",
        "2",
        "-1",
        "0",
        "..",
        "%2F",
        "%00",
        "%ZZ",
        "1e3",
        "9007199254740993",
      ),
      fc.string({ maxLength: 8 }).map((s) => encodeURIComponent(s)),
    );
    const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join("/")}`);
    const query = fc
      .array(
        fc.tuple(
          fc.constantFrom(
            "limit",
            "cursor",
            "views",
            "published",
            "status",
            "author",
            "id",
            "x",
            "",
            "sort",
            "count",
            "views[gte]",
            "status[in]",
            "title[contains]",
            "author[null]",
            "x[eq]",
            "views[]",
          ),
          fc.string({ maxLength: 6 }),
        ),
        { maxLength: 3 },
      )
      .map((pairs) =>
        pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}` : "",
      );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json(),
      fc.string({ maxLength: 40 }),
      fc.jsonValue().map((v) => JSON.stringify({ title: v, name: v, email: v, author: v, tags: v })),
    );
    const contentType = fc.constantFrom(
      undefined,
      "application/json",
      "text/plain",
      "application/json; charset=utf-8",
      "application/merge-patch+json",
      "",
    );
    const method = fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD");
    await fc.assert(
      fc.asyncProperty(method, path, query, body, contentType, async (m, p, q, b, ct) => {
        const headers: Record<string, string> = ct === undefined ? {} : { "content-type": ct };
        const hasBody = b !== undefined && m !== "GET" && m !== "HEAD";
        const r = await send(base, m, `/api${p}${q}`, hasBody ? { body: b, headers } : { headers });
        expect(r.status, `${m} /api${p}${q} ${ct} ${b}`).toBeLessThan(500);
        if (r.status >= 400 && m !== "HEAD") expect(r.headers.get("content-type")).toBe("application/problem+json");
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) }, // FUZZ_RUNS=4000 for a longer hunt
    );
    expect((await send(base, "GET", "/healthz")).status).toBe(200);
  });
});
