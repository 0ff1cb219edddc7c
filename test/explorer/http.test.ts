// spec/explorer.md at the HTTP level, against real `wo run`s of samples/hello: `GET /` answers
// JSON as before unless the client prefers HTML; /openapi.json is the build's file; pages,
// static files and JSON endpoints obey the Host/Origin guard and the token rule, carry the
// security headers, and only the listed files are served (no path reaches another file).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rawRequest } from "../support/raw-http.js";
import { copyApp, removeApp, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 120_000 });

const token = "explorer-http-test-token";
let open: { wo: WoProcess; appDir: string };
let guarded: { wo: WoProcess; appDir: string };

beforeAll(async () => {
  const openDir = copyApp("samples/hello");
  const guardedDir = copyApp("samples/hello");
  appendFileSync(join(guardedDir, "wo.toml"), '\n[server]\ntoken_env = "WO_EXPLORER_TOKEN"\n');
  const [a, b] = await Promise.all([
    startWo([openDir, "--listen", "127.0.0.1:0"]),
    startWo([guardedDir, "--listen", "127.0.0.1:0"], { env: { WO_EXPLORER_TOKEN: token } }),
  ]);
  open = { wo: a, appDir: openDir };
  guarded = { wo: b, appDir: guardedDir };
});
afterAll(async () => {
  for (const s of [open, guarded]) {
    if (!s) continue;
    await s.wo.stop();
    removeApp(s.appDir);
  }
});

const get = (s: { wo: WoProcess }, path: string, headers: Record<string, string> = {}) =>
  rawRequest(s.wo.url, "GET", path, headers);
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const bearer = { authorization: `Bearer ${token}` };

const pages = ["/", "/docs"];
const assets = [
  "/explorer/explorer.js",
  "/explorer/schema-form.js",
  "/explorer/explorer.css",
  "/docs/docs.js",
  "/docs/docs.css",
  "/docs/swagger-ui.css",
  "/docs/swagger-ui-bundle.js",
];
const dataEndpoints = ["/explorer/app.json", "/openapi.json", "/docs/openapi.json"];

describe("GET / negotiates", () => {
  it("JSON for Accept: application/json, */* or no Accept, exactly as before", async () => {
    for (const headers of [
      { accept: "application/json" },
      { accept: "*/*" },
      {},
      { accept: "text/html, application/json" },
      { accept: "text/html;q=0.5, application/json" },
    ] as Record<string, string>[]) {
      const r = await get(open, "/", headers);
      expect(r.status).toBe(200);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.json).toMatchObject({
        app: "hello",
        version: "0.1.0",
        types: ["Greeting"],
        mcp: { path: "/mcp", tools: 5 },
      });
      expect(r.headers.vary).toMatch(/accept/i);
    }
  });

  it("the explorer page for a browser's Accept (or text/html alone)", async () => {
    for (const accept of [browserAccept, "text/html", "text/*, application/json;q=0.9"]) {
      const r = await get(open, "/", { accept });
      expect(r.status).toBe(200);
      expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(r.text).toContain('<script type="module" src="/explorer/explorer.js"></script>');
      // A shell: no app text in the HTML itself, and no inline script.
      expect(r.text).not.toContain("hello");
      expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });
});

describe("endpoints", () => {
  it("/openapi.json is the build's openapi.json, byte for byte", async () => {
    const r = await get(open, "/openapi.json");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.text).toBe(readFileSync(join(open.appDir, ".wo/build/openapi.json"), "utf8"));
  });

  it("/docs/openapi.json is that document with descriptions as Markdown that renders to their text", async () => {
    const faithful = JSON.parse(readFileSync(join(open.appDir, ".wo/build/openapi.json"), "utf8"));
    const r = await get(open, "/docs/openapi.json");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(faithful.info.description).toBe("The smallest wo app: one type behind a REST API and MCP tools.");
    expect(r.json.info.description).toBe("The smallest wo app\\: one type behind a REST API and MCP tools\\.");
    // Only descriptions differ.
    const bare = (doc: unknown) => JSON.stringify(doc, (key, v) => (key === "description" ? undefined : v));
    expect(bare(r.json)).toBe(bare(faithful));
  });

  it("/explorer/app.json describes types, fields, endpoints with input schemas and MCP tools", async () => {
    const r = await get(open, "/explorer/app.json");
    expect(r.status).toBe(200);
    expect(r.json.app).toMatchObject({ name: "hello", version: "0.1.0" });
    expect(r.json.types[0]).toMatchObject({ name: "Greeting", snake: "greeting", rest: ["/api/greetings"] });
    expect(r.json.types[0].fields.map((f: { name: string }) => f.name)).toEqual([
      "id",
      "message",
      "from",
      "created_at",
    ]);
    expect(r.json.types[0].fields[1]).toEqual({
      name: "message",
      type: "Text",
      optional: false,
      unique: false,
      writable: true,
      updatable: true,
      requiredOnCreate: true,
    });
    const create = r.json.endpoints.find((e: { op: string }) => e.op === "greeting_create");
    expect(create).toMatchObject({
      method: "POST",
      path: "/api/greetings",
      inputSchema: { type: "object", required: ["message"] },
    });
    expect(r.json.mcp.tools.map((t: { name: string }) => t.name)).toEqual([
      "greeting_create",
      "greeting_delete",
      "greeting_get",
      "greeting_list",
      "greeting_update",
    ]);
    expect(r.json.mcp.tools[0].inputSchema).toMatchObject({ type: "object" });
  });

  it("/docs is Swagger UI served from this server, initialized from its own script", async () => {
    const r = await get(open, "/docs");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.text).toContain('src="/docs/swagger-ui-bundle.js"');
    expect(r.text).not.toMatch(/https?:\/\//);
    const bundle = await get(open, "/docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(bundle.text).toBe(
      readFileSync(join(import.meta.dirname, "../../node_modules/swagger-ui-dist/swagger-ui-bundle.js"), "utf8"),
    );
    expect((await get(open, "/docs/docs.js")).text).toContain('url: "/docs/openapi.json"');
  });
});

describe("security", () => {
  it("pages, static files and JSON endpoints carry the security headers", async () => {
    for (const path of [...pages, ...assets, ...dataEndpoints]) {
      const r = await get(open, path, { accept: browserAccept });
      expect(r.status, path).toBe(200);
      expect(r.headers["content-security-policy"], path).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      expect(r.headers["x-content-type-options"], path).toBe("nosniff");
      expect(r.headers["referrer-policy"], path).toBe("no-referrer");
      expect(r.headers["x-frame-options"], path).toBe("DENY");
    }
  });

  it("a foreign Host or Origin is refused (403) on every page, file and endpoint", async () => {
    for (const path of [...pages, ...assets, ...dataEndpoints]) {
      for (const headers of [
        { host: "evil.example" },
        { host: `127.0.0.1.nip.io:${new URL(open.wo.url).port}` },
        { origin: "http://evil.example" },
        { origin: "null" },
      ] as Record<string, string>[]) {
        const r = await get(open, path, { accept: browserAccept, ...headers });
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(r.json).toMatchObject({ type: "urn:wo:problem:forbidden" });
        expect(r.text).not.toContain("<html");
      }
    }
    // ... also with the token: the guard comes first.
    expect((await get(guarded, "/explorer/app.json", { ...bearer, host: "evil.example" })).status).toBe(403);
  });

  it("with a token: pages and static files load without it, data endpoints need it", async () => {
    for (const path of [...pages, ...assets])
      expect((await get(guarded, path, { accept: browserAccept })).status, path).toBe(200);
    for (const path of dataEndpoints) {
      const refused = await get(guarded, path);
      expect(refused.status, path).toBe(401);
      expect(refused.headers["www-authenticate"]).toBe('Bearer realm="wo"');
      expect((await get(guarded, path, bearer)).status, path).toBe(200);
    }
    expect((await get(guarded, "/api/greetings")).status).toBe(401);
  });

  it("only the listed files are served: traversal and other package files are 404", async () => {
    const attempts = [
      "/explorer/../package.json",
      "/explorer/%2e%2e/package.json",
      "/explorer/..%2fpackage.json",
      "/explorer/%2e%2e%2f%2e%2e%2fpackage.json",
      "/docs/..%2f..%2fpackage.json",
      "/docs/%2e%2e/%2e%2e/runtime/app.ts",
      "/explorer/index.html",
      "/explorer/routes.ts",
      "/explorer/",
      "/docs/index.html",
      "/docs/swagger-ui-bundle.js.map",
      "/docs/package.json",
      "/explorer/explorer.js%00.png",
      "/explorer/explorer.js/..",
      "/explorer/EXPLORER.JS",
      "/explorer/explorer.js.",
      "/docs/swagger-initializer.js",
      "/..%2f..%2f..%2fetc/passwd",
    ];
    for (const path of attempts) {
      const r = await get(open, path);
      expect(r.status, path).toBe(404);
      expect(r.headers["content-type"], path).toBe("application/problem+json");
    }
  });
});
