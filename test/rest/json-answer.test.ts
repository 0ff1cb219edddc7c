// A GET's JSON answer and a create's under `wo run` are written straight to node's response
// (runtime/rest/json-answer.ts): their bytes on the wire — status line, header names as
// spelled, their order, Content-Length — are the ones hono's `c.json` gave, and HEAD and CORS
// answers (which still take hono's Response) agree with them.

import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

const app = {
  "wo.toml": 'name = "answers"\n',
  "app.wo": `type Note {
  title: Text
  done: Bool = false
  service rest "/api/notes" expose list, get, create
}
`,
};

let appDir: string;
let wo: WoProcess;

beforeAll(async () => {
  appDir = writeApp("answers", app);
  wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
  const res = await fetch(`${wo.url}/api/notes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "é ünïcode" }),
  });
  expect(res.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

/** The answer's head (Date masked) and body, as the bytes arrived, over a fresh connection. */
function raw(request: string): Promise<{ head: string; body: string }> {
  return rawAt(wo.url, request);
}

function rawAt(url: string, request: string): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = Buffer.alloc(0);
    socket.on("data", (d) => {
      data = Buffer.concat([data, d]);
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = data.subarray(0, end).toString("latin1");
      const length = /content-length: (\d+)/i.exec(head);
      const body = data.subarray(end + 4);
      if (!/^HEAD /.test(request) && length && body.length < Number(length[1])) return;
      socket.destroy();
      resolve({ head: head.replace(/\r\nDate: [^\r]+/, "\r\nDate: X"), body: body.toString("utf8") });
    });
    socket.on("error", reject);
  });
}

const host = () => `Host: ${new URL(wo.url).host}\r\n`;

describe("GET and create answers written straight to node's response", () => {
  it("a GET by id: c.json's status line, headers and order, and an exact Content-Length", async () => {
    const { head, body } = await raw(`GET /api/notes/1 HTTP/1.1\r\n${host()}\r\n`);
    expect(JSON.parse(body)).toEqual({ id: 1, title: "é ünïcode", done: false });
    expect(head).toBe(
      [
        "HTTP/1.1 200 OK",
        "x-content-type-options: nosniff",
        "Content-Type: application/json",
        "Date: X",
        "Connection: keep-alive",
        "Keep-Alive: timeout=5",
        `Content-Length: ${Buffer.byteLength(body)}`,
      ].join("\r\n"),
    );
  });

  it("a list answers the same way", async () => {
    const { head, body } = await raw(`GET /api/notes HTTP/1.1\r\n${host()}\r\n`);
    expect(JSON.parse(body).items).toHaveLength(1);
    expect(head).toMatch(
      /^HTTP\/1\.1 200 OK\r\nx-content-type-options: nosniff\r\nContent-Type: application\/json\r\n/,
    );
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}`);
  });

  it("HEAD has the GET's headers and no body; a CORS GET keeps its headers", async () => {
    const head = await raw(`HEAD /api/notes/1 HTTP/1.1\r\n${host()}\r\n`);
    expect(head.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head.head).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(head.body).toBe("");
    const cors = await raw(`GET /api/notes/1 HTTP/1.1\r\n${host()}Origin: http://localhost:3000\r\n\r\n`);
    expect(cors.head).toContain("\r\naccess-control-allow-origin: http://localhost:3000\r\n");
    expect(cors.head).toContain("\r\nvary: Origin\r\n");
    expect(JSON.parse(cors.body).id).toBe(1);
  });

  it("a GET by id the edge leaves to hono (a query, a trailing slash, an escape, a bad id, HTTP/1.0) answers as before", async () => {
    const plain = await raw(`GET /api/notes/1 HTTP/1.1\r\n${host()}\r\n`);
    for (const path of ["/api/notes/1?x=1", "/api/notes/1/", "/api/notes/%31"]) {
      const other = await raw(`GET ${path} HTTP/1.1\r\n${host()}\r\n`);
      expect(other, path).toEqual(plain);
    }
    const bad = await raw(`GET /api/notes/01 HTTP/1.1\r\n${host()}\r\n`);
    expect(bad.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(bad.body).detail).toBe("'01' is not a valid Note id; ids are positive integers.");
    const old = await raw(`GET /api/notes/1 HTTP/1.0\r\n${host()}\r\n`);
    expect(old.body).toBe(plain.body);
    expect(old.head).toMatch(
      /^HTTP\/1\.1 200 OK\r\nx-content-type-options: nosniff\r\nContent-Type: application\/json\r\n/,
    );
  });

  it("a create: the status line, headers and order @hono/node-server wrote for c.json(row, 201, { location })", async () => {
    const note = JSON.stringify({ title: "made" });
    const { head, body } = await raw(
      `POST /api/notes HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: ${note.length}\r\n\r\n${note}`,
    );
    const row = JSON.parse(body);
    expect(row).toEqual({ id: row.id, title: "made", done: false });
    expect(head).toBe(
      [
        "HTTP/1.1 201 Created",
        "x-content-type-options: nosniff",
        "content-type: application/json",
        `location: /api/notes/${row.id}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Date: X",
        "Connection: keep-alive",
        "Keep-Alive: timeout=5",
      ].join("\r\n"),
    );
    // With Origin, through hono's Response: the CORS headers are added to it.
    const cors = await raw(
      `POST /api/notes HTTP/1.1\r\n${host()}Origin: http://localhost:3000\r\nContent-Type: application/json\r\nContent-Length: ${note.length}\r\n\r\n${note}`,
    );
    expect(cors.head).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(cors.head).toContain("\r\naccess-control-allow-origin: http://localhost:3000\r\n");
    expect(cors.head).toContain(`\r\nlocation: /api/notes/${JSON.parse(cors.body).id}\r\n`);
  });

  it("a missing row is still a problem answer, and keep-alive goes on after each answer", async () => {
    const { hostname, port } = new URL(wo.url);
    const socket = connect(Number(port), hostname);
    const answers: string[] = [];
    let data = "";
    const done = new Promise<void>((resolve) =>
      socket.on("data", (d) => {
        data += d.toString("utf8");
        const parts = data.split(/HTTP\/1\.1 /).filter(Boolean);
        if (parts.length === 3 && data.endsWith("}")) {
          answers.push(...parts);
          resolve();
        }
      }),
    );
    for (const path of ["/api/notes/1", "/api/notes/99", "/api/notes/1"])
      socket.write(`GET ${path} HTTP/1.1\r\n${host()}\r\n`);
    await done;
    socket.destroy();
    expect(answers.map((a) => a.slice(0, 3))).toEqual(["200", "404", "200"]);
    expect(answers[1]).toContain("content-type: application/problem+json");
  });
});

// The same answers with identities, policies and a rate limit in force: every answer a GET by
// id can get, as the bytes arrive, and the request log's line for each.
const guardedApp = {
  "wo.toml": 'name = "guarded"\n\n[server]\ntoken_env = "WO_ANSWERS_OWNER"\n\n[limits]\nreads_per_minute = 3\n',
  "app.wo": `type Note {
  title: Text
  published: Bool = false

  policy read anyone when published == true

  service rest "/api/notes" expose list, get, create
}

type Secret {
  title: Text

  service rest "/api/secrets" expose get, create
}
`,
};
const ownerToken = "answers-owner-token-0123456789abcdef";

describe("GET by id answers under identities, policies and rate limits", () => {
  let dir: string;
  let server: WoProcess;
  let reader: string;

  beforeAll(async () => {
    dir = writeApp("guarded", guardedApp);
    const added = await runWoCommand(["token", "add", "reader", dir, "--role", "reader"]);
    expect(added.code, added.stderr).toBe(0);
    reader = added.stdout.trimEnd().split("\n").at(-1)!;
    server = await startWo([dir, "--listen", "127.0.0.1:0"], { env: { WO_ANSWERS_OWNER: ownerToken } });
    for (const [path, body] of [
      ["/api/notes", { title: "public", published: true }],
      ["/api/notes", { title: "draft" }],
      ["/api/secrets", { title: "s" }],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ownerToken}` },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) removeApp(dir);
  });

  const get = (path: string, headers = "") =>
    rawAt(server.url, `GET ${path} HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n${headers}\r\n`);
  const owner = `Authorization: Bearer ${ownerToken}\r\n`;
  const lines = () =>
    server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("wo: GET /api/"));
  const keepAlive = ["Date: X", "Connection: keep-alive", "Keep-Alive: timeout=5"];
  const problemHead = (status: string, headers: string[], body: string) =>
    [
      `HTTP/1.1 ${status}`,
      "x-content-type-options: nosniff",
      "content-type: application/problem+json",
      ...headers,
      ...(headers.length > 0 ? [`Content-Length: ${Buffer.byteLength(body)}`, ...keepAlive] : keepAlive),
      ...(headers.length > 0 ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]),
    ].join("\r\n");

  it("the owner's 200 and 404, anonymous callers' 200, 404 and 401, each with its log line", async () => {
    const ok = await get("/api/notes/2", owner);
    expect(JSON.parse(ok.body)).toEqual({ id: 2, title: "draft", published: false });
    expect(ok.head).toBe(
      [
        "HTTP/1.1 200 OK",
        "x-content-type-options: nosniff",
        "Content-Type: application/json",
        ...keepAlive,
        `Content-Length: ${Buffer.byteLength(ok.body)}`,
      ].join("\r\n"),
    );
    const missing = await get("/api/notes/99", owner);
    expect(JSON.parse(missing.body)).toEqual({
      type: "urn:wo:problem:not-found",
      title: "Not found",
      status: 404,
      detail: "No Note with id 99.",
    });
    expect(missing.head).toBe(problemHead("404 Not Found", [], missing.body));
    // Anonymous: the published row, the draft as a missing one, a type no line lets anyone read.
    const published = await get("/api/notes/1");
    expect(JSON.parse(published.body).title).toBe("public");
    const hidden = await get("/api/notes/2");
    expect(hidden.body).toBe(missing.body.replace("id 99", "id 2"));
    expect(hidden.head).toBe(problemHead("404 Not Found", [], hidden.body));
    const refused = await get("/api/secrets/1");
    expect(JSON.parse(refused.body).status).toBe(401);
    const challenge = /\r\nwww-authenticate: ([^\r]+)\r\n/.exec(refused.head)?.[1];
    expect(challenge).toMatch(/^Bearer /);
    expect(refused.head).toBe(problemHead("401 Unauthorized", [`www-authenticate: ${challenge}`], refused.body));
    await expect
      .poll(() => lines().map((l) => l.replace(/ [\d.]+ ms/, " X ms")))
      .toEqual([
        "wo: GET /api/notes/2 200 X ms by owner",
        "wo: GET /api/notes/99 404 X ms by owner",
        "wo: GET /api/notes/1 200 X ms by anonymous",
        "wo: GET /api/notes/2 404 X ms by anonymous",
        "wo: GET /api/secrets/1 401 X ms by anonymous",
      ]);
  });

  it("a refused credential, a hostile Host or Origin are refused before any route", async () => {
    const bad = await get("/api/notes/1", "Authorization: Bearer not-a-token\r\n");
    expect(bad.head).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(bad.head).toContain("\r\nwww-authenticate: Bearer");
    expect(JSON.parse(bad.body).type).toBe("urn:wo:problem:unauthorized");
    const host = await rawAt(server.url, `GET /api/notes/1 HTTP/1.1\r\nHost: evil.example:80\r\n${owner}\r\n`);
    expect(host.head).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(JSON.parse(host.body).detail).toContain("Host 'evil.example:80' is not allowed");
    const origin = await get("/api/notes/1", `${owner}Origin: https://evil.example\r\n`);
    expect(origin.head).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(origin.head).not.toContain("access-control-allow-origin");
    expect(JSON.parse(origin.body).detail).toContain("Origin 'https://evil.example' is not allowed");
  });

  it("past a caller's read budget: 429 with Retry-After, as the bytes were", async () => {
    const auth = `Authorization: Bearer ${reader}\r\n`;
    const statuses: string[] = [];
    let limited: { head: string; body: string } | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const answer = await get("/api/notes/1", auth);
      statuses.push(answer.head.slice(9, 12));
      if (answer.head.startsWith("HTTP/1.1 429")) limited = answer;
    }
    expect(statuses).toEqual(["200", "200", "200", "429"]);
    expect(JSON.parse(limited!.body).type).toBe("urn:wo:problem:rate-limited");
    const retry = /\r\nretry-after: (\d+)\r\n/.exec(limited!.head)?.[1];
    expect(limited!.head).toBe(problemHead("429 Too Many Requests", [`retry-after: ${retry}`], limited!.body));
  });
});
