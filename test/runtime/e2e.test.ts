// End to end: the real `wo run` process on copies of the samples, a real socket, a real SQLite
// file. Durability under SIGKILL, migrations across restarts, the data-folder lock, signals.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { send, sendJson } from "../rest/support/harness.js";
import { copyApp, runToExit, startWo, tempDir, type WoProcess } from "../support/wo-process.js";

// Each start may rebuild the app (the source changed) on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000 });

const running: WoProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop("SIGKILL")));
});

async function start(app: string, db: string, extra: string[] = []): Promise<WoProcess> {
  const p = await startWo([app, "--listen", "127.0.0.1:0", "--db", db, ...extra]);
  running.push(p);
  return p;
}

describe.each(["hello", "blog", "pricing"])("samples/%s", (sample) => {
  it("serves /, /healthz and every list endpoint", async () => {
    const p = await start(copyApp(`samples/${sample}`), tempDir());
    expect((await send(p.url, "GET", "/healthz")).text).toBe("ok");
    const info = (await send(p.url, "GET", "/")).json;
    expect(info.app).toBe(sample);
    const lists = info.endpoints.filter((e: { op: string }) => e.op.endsWith("_list"));
    expect(lists.length).toBeGreaterThan(0);
    for (const e of lists) {
      const r = await send(p.url, "GET", e.path);
      expect(r.status, e.path).toBe(200);
      expect(r.json).toEqual({ items: [] });
    }
    expect((await send(p.url, "GET", "/api/does-not-exist")).status).toBe(404);
  });
});

describe("samples/hello CRUD through wo run", () => {
  it("create, get, list with a filter, patch, delete", async () => {
    const p = await start(copyApp("samples/hello"), tempDir());
    const made = await sendJson(p.url, "POST", "/api/greetings", { message: "hi" });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ id: 1, message: "hi", from: null });
    expect(made.headers.get("location")).toBe("/api/greetings/1");
    await sendJson(p.url, "POST", "/api/greetings", { message: "yo", from: "ann" });
    expect(
      (await send(p.url, "GET", "/api/greetings?from=ann")).json.items.map((r: { message: string }) => r.message),
    ).toEqual(["yo"]);
    const patched = await sendJson(p.url, "PATCH", "/api/greetings/1", { from: "bob" });
    expect(patched.json).toEqual({ ...made.json, from: "bob" });
    expect((await send(p.url, "DELETE", "/api/greetings/1")).status).toBe(204);
    expect((await send(p.url, "GET", "/api/greetings/1")).status).toBe(404);
  });
});

describe("samples/blog CRUD through wo run", () => {
  it("refs, unique fields, filters, nested structs, references on delete", async () => {
    const p = await start(copyApp("samples/blog"), tempDir());
    const ann = await sendJson(p.url, "POST", "/api/authors", { name: "Ann", email: "ann@example.com" });
    expect(ann.status).toBe(201);
    expect(ann.json).toMatchObject({ name: "Ann", level: "Writer", bio: null, links: null });
    const post = await sendJson(p.url, "POST", "/api/posts", {
      title: "Hello",
      slug: "hello",
      body: "Hi *there*",
      author: ann.json.id,
      seo: { title: "SEO" },
    });
    expect(post.status).toBe(201);
    expect(post.json).toMatchObject({
      status: "Draft",
      author: ann.json.id,
      seo: { title: "SEO" },
      published_at: null,
    });
    expect(
      (await sendJson(p.url, "POST", "/api/posts", { title: "Again", slug: "hello", body: "x", author: ann.json.id }))
        .status,
    ).toBe(409);
    expect(
      (await sendJson(p.url, "POST", "/api/posts", { title: "Orphan", slug: "orphan", body: "x", author: 999 })).status,
    ).toBe(422);
    const published = await sendJson(p.url, "PATCH", `/api/posts/${post.json.id}`, { status: "Published" });
    expect(published.json).toMatchObject({ status: "Published", title: "Hello", seo: { title: "SEO" } });
    expect(
      (await send(p.url, "GET", "/api/posts?status=Published")).json.items.map((r: { slug: string }) => r.slug),
    ).toEqual(["hello"]);
    expect((await send(p.url, "GET", `/api/posts?author=${ann.json.id}&status=Draft`)).json.items).toEqual([]);
    const comment = await sendJson(p.url, "POST", "/api/comments", {
      post: post.json.id,
      author_name: "Bob",
      body: "Nice",
    });
    expect(comment.json).toMatchObject({ visible: true });
    const refused = await send(p.url, "DELETE", `/api/authors/${ann.json.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/Post/);
    expect((await send(p.url, "DELETE", `/api/comments/${comment.json.id}`)).status).toBe(204);
    expect((await send(p.url, "DELETE", `/api/posts/${post.json.id}`)).status).toBe(204);
    expect((await send(p.url, "DELETE", `/api/authors/${ann.json.id}`)).status).toBe(204);
    // `me` is the caller's own row; the owner (no identity configured) has no user id.
    const me = await send(p.url, "GET", "/api/authors/me");
    expect(me.status).toBe(404);
    expect(me.json.detail).toBe(
      "The caller (owner) has no user id, so it has no Author of its own; get the row by its id instead.",
    );
  });
});

describe("durability", () => {
  it("every acknowledged create survives SIGKILL", async () => {
    const app = copyApp("samples/hello");
    const db = tempDir();
    const p = await start(app, db);
    const acked: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const r = await sendJson(p.url, "POST", "/api/greetings", { message: `m${i}` });
        if (r.status === 201) acked.push(r.json.id);
      }),
    );
    expect(acked.length).toBe(60);
    expect(await p.stop("SIGKILL")).toBe("SIGKILL");
    const again = await start(app, db);
    const rows = (await send(again.url, "GET", "/api/greetings?limit=1000")).json.items;
    expect(rows.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b)).toEqual(
      [...acked].sort((a, b) => a - b),
    );
  });
});

describe("shutdown and the data-folder lock", () => {
  it("a second wo run on the same data is refused; SIGTERM exits 0 and frees it", async () => {
    const app = copyApp("samples/hello");
    const db = tempDir();
    const first = await start(app, db);
    const second = await runToExit([app, "--listen", "127.0.0.1:0", "--db", db]);
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/in use by another wo process/);
    expect(second.output).not.toMatch(/\n\s+at /);
    expect((await send(first.url, "GET", "/healthz")).status).toBe(200);
    expect(await first.stop("SIGTERM")).toBe(0);
    const third = await start(app, db);
    expect((await send(third.url, "GET", "/healthz")).status).toBe(200);
  });

  it("an app with errors is not served: diagnostics with excerpts, exit 1", async () => {
    const app = copyApp("samples/hello");
    const file = join(app, "greeting.wo");
    writeFileSync(file, readFileSync(file, "utf8").replace("message: Text", "message: Txt"));
    const r = await runToExit([app, "--listen", "127.0.0.1:0", "--db", tempDir()]);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/greeting\.wo:\d+:\d+: error WO2001: Unknown type 'Txt'\./);
    expect(r.output).toMatch(/\^\^\^/);
    expect(r.output).not.toMatch(/\n\s+at /);
  });

  it("bad flags and a taken port are one-line errors", async () => {
    const app = copyApp("samples/hello");
    const bad = await runToExit([app, "--listen", "nonsense"]);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/not a listen address/);
    const unknown = await runToExit([app, "--frobnicate"]);
    expect(unknown.code).toBe(2);
    const first = await start(app, tempDir());
    const port = new URL(first.url).port;
    const taken = await runToExit([app, "--listen", `127.0.0.1:${port}`, "--db", tempDir()]);
    expect(taken.code).toBe(1);
    expect(taken.output).toMatch(/port is in use/);
  });
});

describe("migration across restarts", () => {
  it("an additive change keeps the data; a destructive one is refused and the data stays", async () => {
    const app = copyApp("samples/hello");
    const db = tempDir();
    const file = join(app, "greeting.wo");
    const original = readFileSync(file, "utf8");

    let p = await start(app, db);
    for (const message of ["a", "b", "c"])
      expect((await sendJson(p.url, "POST", "/api/greetings", { message, from: "me" })).status).toBe(201);
    expect(await p.stop("SIGTERM")).toBe(0);

    // Additive: a new optional field. Rebuilt because the source changed; rows keep their data.
    writeFileSync(file, original.replace("from: Text?", "from: Text?\n  mood: Text?"));
    p = await start(app, db);
    expect(p.output()).toMatch(/migrated: .*mood/);
    const rows = (await send(p.url, "GET", "/api/greetings")).json.items;
    expect(rows.map((r: { message: string; mood: unknown }) => [r.message, r.mood])).toEqual([
      ["a", null],
      ["b", null],
      ["c", null],
    ]);
    expect(await p.stop("SIGTERM")).toBe(0);

    // Destructive: drop a stored field that holds data. Refused, naming the change and the flag.
    writeFileSync(file, original.replace("  from: Text?\n", ""));
    const refused = await runToExit([app, "--listen", "127.0.0.1:0", "--db", db]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/from/);
    expect(refused.output).toMatch(/--allow-destructive-migration/);

    // Back to the additive version: everything is still there.
    writeFileSync(file, original.replace("from: Text?", "from: Text?\n  mood: Text?"));
    p = await start(app, db);
    expect(
      (await send(p.url, "GET", "/api/greetings")).json.items.map((r: { message: string; from: string }) => [
        r.message,
        r.from,
      ]),
    ).toEqual([
      ["a", "me"],
      ["b", "me"],
      ["c", "me"],
    ]);
  });
});

describe("bearer token", () => {
  it("token_env protects /api and /mcp but not /healthz", async () => {
    const app = copyApp("samples/hello");
    appendFileSync(join(app, "wo.toml"), '\n[server]\ntoken_env = "WO_TEST_TOKEN"\n');
    const p = await startWo([app, "--listen", "127.0.0.1:0", "--db", tempDir()], {
      env: { WO_TEST_TOKEN: "s3cret-token" },
    });
    running.push(p);
    expect((await send(p.url, "GET", "/healthz")).status).toBe(200);
    const none = await send(p.url, "GET", "/api/greetings");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await send(p.url, "GET", "/api/greetings", { headers: { authorization: "Bearer wrong" } })).status).toBe(
      401,
    );
    expect(
      (await send(p.url, "GET", "/api/greetings", { headers: { authorization: "Bearer s3cret-token" } })).status,
    ).toBe(200);
    // /mcp, with or without a trailing slash or query: the same rule, the same 401 shape.
    const ping = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    for (const path of ["/mcp", "/mcp/", "/mcp?x=1"]) {
      const refused = await send(p.url, "POST", path, { body: ping, headers: { "content-type": "application/json" } });
      expect([path, refused.status]).toEqual([path, 401]);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      const wrong = await send(p.url, "POST", path, {
        body: ping,
        headers: { "content-type": "application/json", authorization: "Bearer s3cret-tokeN" },
      });
      expect([path, wrong.status]).toEqual([path, 401]);
      const ok = await send(p.url, "POST", path, {
        body: ping,
        headers: { "content-type": "application/json", authorization: "Bearer s3cret-token" },
      });
      expect([path, ok.status, ok.json?.result?.protocolVersion]).toEqual([path, 200, "2025-11-25"]);
    }
  });
});

describe("samples/pricing methods through wo run", () => {
  it("POST P/:id/m calls the method; abort → 409, bad args → 400, unknown row → 404, unexposed → 405/404", async () => {
    const p = await start(copyApp("samples/pricing"), tempDir());
    const product = await sendJson(p.url, "POST", "/api/products", { sku: "AB-1", title: "Lamp" });
    expect(product.status).toBe(201);
    const price = await sendJson(p.url, "POST", `/api/products/${product.json.id}/set_price`, { amount: 4999 });
    expect(price.status).toBe(200);
    expect(price.json).toMatchObject({ product: product.json.id, amount: 4999, currency: "EUR" });
    // No arguments: an empty body, still typed as JSON (without a type it is 415, spec/rest.md).
    const current = await send(p.url, "POST", `/api/products/${product.json.id}/current_price`, {
      headers: { "content-type": "application/json" },
    });
    expect(current.json).toEqual(price.json);
    expect((await send(p.url, "POST", `/api/products/${product.json.id}/current_price`)).status).toBe(415);

    const before = (await send(p.url, "GET", "/api/prices")).json;
    const aborted = await sendJson(p.url, "POST", `/api/products/${product.json.id}/set_price`, { amount: -1 });
    expect(aborted.status).toBe(409);
    expect(aborted.json.detail).toBe("a price must be positive");
    expect((await sendJson(p.url, "POST", `/api/products/${product.json.id}/set_price`, { amount: "x" })).status).toBe(
      400,
    );
    expect((await sendJson(p.url, "POST", `/api/products/${product.json.id}/set_price`, {})).status).toBe(400);
    expect((await sendJson(p.url, "POST", "/api/products/999/set_price", { amount: 5 })).status).toBe(404);
    expect((await send(p.url, "GET", `/api/products/${product.json.id}/set_price`)).status).toBe(405);
    expect((await send(p.url, "POST", "/api/prices")).status).toBe(405);
    // Nothing the failed calls did was kept.
    expect((await send(p.url, "GET", "/api/prices")).json).toEqual(before);
  });
});

describe("graceful shutdown", () => {
  it("SIGTERM during a burst of creates: every acknowledged row is stored, exit 0", async () => {
    const app = copyApp("samples/hello");
    const db = tempDir();
    const p = await start(app, db);
    const acked: number[] = [];
    let firstAck!: () => void;
    const someAcked = new Promise<void>((r) => (firstAck = r));
    const burst = Array.from({ length: 100 }, async (_, i) => {
      try {
        const r = await sendJson(p.url, "POST", "/api/greetings", { message: `g${i}` });
        if (r.status === 201) acked.push(r.json.id);
        firstAck();
      } catch {
        // refused after the server stopped accepting: never acknowledged
      }
    });
    // Signal while the burst is in flight: some answered, the rest queued or in progress.
    await someAcked;
    const code = p.stop("SIGTERM");
    await Promise.all(burst);
    expect(await code).toBe(0);
    const again = await start(app, db);
    const ids = (await send(again.url, "GET", "/api/greetings?limit=1000")).json.items.map((r: { id: number }) => r.id);
    expect(acked.length).toBeGreaterThan(0);
    for (const id of acked) expect(ids).toContain(id);
  });
});
